/**
 * The --authorization-mode chain: modes are asked in order; the first allow or deny decides;
 * no opinion from all is a refusal whose reason joins theirs. `system:masters` is allowed before
 * any mode is asked, whatever the modes (Kubernetes' privileged group). A mode's error (a webhook
 * that cannot be reached) does not stop the chain: a later mode may still allow; with none, the
 * request fails with that error (500) rather than 403.
 */
import { AuthorizationAttributes } from './attributes';
import { AuthorizationResult, Authorizer, RuleResolver, RulesResult, aggregateMessage, allow } from './authorizer';
import { SYSTEM_MASTERS, UserInfo } from '../meta/user';
import { isPromise } from '../authn/authenticator';

export interface NamedAuthorizer {
  /** The mode name (RBAC, Webhook, ...). */
  mode: string;
  /** The authorizer's name in --authorization-config (metrics label it); absent: the lower-cased mode. */
  name?: string;
  authorizer: Authorizer;
  /** Absent: the mode cannot list what a user may do (SelfSubjectRulesReview is then incomplete). */
  rules?: RuleResolver;
}

const PRIVILEGED: AuthorizationResult = allow('');

export class ModeChain implements Authorizer, RuleResolver {
  /** Told each terminal decision of a mode (apiserver_authorization_decisions_total); the privileged group is no mode. */
  onDecision?: (mode: string, decision: 'allowed' | 'denied', name: string) => void;

  /**
   * The modes, in order. Replaced as a whole when --authorization-config is reloaded
   * (config-chain.ts); a request keeps the list it started with.
   */
  modes: readonly NamedAuthorizer[];

  constructor(modes: readonly NamedAuthorizer[]) {
    this.modes = modes;
  }

  authorize(a: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    if (a.user.groups.includes(SYSTEM_MASTERS)) return PRIVILEGED;
    return this.from(this.modes, 0, a, [], []);
  }

  /** Synchronous while the modes answer synchronously (RBAC, Node, ABAC), a promise from the first that does not. */
  private from(modes: readonly NamedAuthorizer[], i: number, a: AuthorizationAttributes, reasons: string[], errors: string[]): AuthorizationResult | Promise<AuthorizationResult> {
    for (; i < modes.length; i++) {
      const r = modes[i].authorizer.authorize(a);
      if (isPromise(r)) {
        const next = i + 1;
        const named = modes[i];
        return r.then((res) => this.step(res, reasons, errors, named) ?? this.from(modes, next, a, reasons, errors));
      }
      const decided = this.step(r, reasons, errors, modes[i]);
      if (decided) return decided;
    }
    const reason = reasons.join('\n');
    return errors.length
      ? { decision: 'no-opinion', reason, error: aggregateMessage(errors) }
      : { decision: 'no-opinion', reason };
  }

  private step(r: AuthorizationResult, reasons: string[], errors: string[], named: NamedAuthorizer): AuthorizationResult | undefined {
    if (r.decision !== 'no-opinion') {
      this.onDecision?.(named.mode, r.decision === 'allow' ? 'allowed' : 'denied', named.name ?? named.mode.toLowerCase());
      return r;
    }
    if (r.reason) reasons.push(r.reason);
    if (r.error) errors.push(r.error);
    return undefined;
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const out: RulesResult = { rules: [], incomplete: false, errors: [] };
    for (const m of [...this.modes]) {
      if (!m.rules) { out.incomplete = true; continue; }
      const r = await m.rules.rulesFor(user, namespace);
      out.rules.push(...r.rules);
      out.errors.push(...r.errors);
      out.incomplete ||= r.incomplete;
    }
    return out;
  }
}
