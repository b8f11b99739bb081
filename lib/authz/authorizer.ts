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
  /**
   * A mode could not decide (a webhook unreachable, a role missing): with no allow from any mode
   * the request is answered 500 InternalError rather than 403, as kube-apiserver does.
   */
  error?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

export const allow = (reason = ''): AuthorizationResult => ({ decision: 'allow', reason });
export const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'no-opinion', reason });
export const deny = (reason: string): AuthorizationResult => ({ decision: 'deny', reason });

/** What a user may do in a namespace ('' for cluster-wide only), for SelfSubjectRulesReview and escalation checks. */
export interface RulesResult {
  rules: import('../registry/rbac/types').PolicyRule[];
  /** Some mode cannot list its rules (Webhook, Node, ABAC...): the list may miss permissions. */
  incomplete: boolean;
  /** Problems met while collecting (a binding to a missing role), as Kubernetes' evaluationError. */
  errors: string[];
}

export interface RuleResolver {
  rulesFor(user: import('../meta/user').UserInfo, namespace: string): RulesResult | Promise<RulesResult>;
}

/** Go's aggregate error text (utilerrors.NewAggregate): one message alone, several (deduplicated) in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
