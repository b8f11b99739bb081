/**
 * The RBAC mode: allows what some rule granted to the user (by name, group or service account)
 * allows; otherwise no opinion, with the missing roles met on the way as the reason (Kubernetes:
 * `RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`). Reads only the PolicyIndex.
 */
import { AuthorizationAttributes } from '../attributes';
import { AuthorizationResult, Authorizer, RuleResolver, RulesResult, aggregateMessage, allow, noOpinion } from '../authorizer';
import { UserInfo } from '../../meta/user';
import { PolicyIndex, RuleSource, describeSource } from './policy-index';
import { ruleAllows } from './rule-match';
import { PolicyRule } from '../../registry/rbac/types';

export class RbacAuthorizer implements Authorizer, RuleResolver {
  constructor(readonly index: PolicyIndex) {}

  authorize(a: AuthorizationAttributes): AuthorizationResult {
    let found: RuleSource | undefined;
    const errors: string[] = [];
    this.index.visitRules(a.user, a.namespace, (source, rule) => {
      if (!ruleAllows(a, rule)) return false;
      found = source;
      return true;
    }, errors);
    if (found) return allow(`RBAC: allowed by ${describeSource(found)}`);
    return noOpinion(errors.length ? `RBAC: ${aggregateMessage(errors)}` : '');
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.index.visitRules(user, namespace, (_s, rule) => { rules.push(rule); return false; }, errors);
    return { rules, incomplete: false, errors };
  }
}
