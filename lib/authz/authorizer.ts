/**
 * The authorizer contract (DESIGN: each mode answers allow, deny or no opinion with a reason;
 * the chain stops at the first allow or deny; no opinion from all is 403).
 */
import { AuthorizationAttributes } from './attributes';

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why (for audit, and appended to a 403's message when not empty). */
  reason: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

export const allow = (reason = ''): AuthorizationResult => ({ decision: 'allow', reason });
export const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'no-opinion', reason });
export const deny = (reason: string): AuthorizationResult => ({ decision: 'deny', reason });
