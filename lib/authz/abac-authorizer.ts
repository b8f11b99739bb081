/**
 * The ABAC mode (--authorization-policy-file), as Kubernetes' ABAC authorizer: a request is
 * allowed when some policy matches it (subject, then verb, then resource or non-resource
 * attributes); otherwise no opinion ("No policy matched."). Policies only grant.
 */
import { AuthorizationAttributes } from './attributes';
import { AuthorizationResult, Authorizer, RuleResolver, RulesResult, allow, noOpinion } from './authorizer';
import { UserInfo } from '../meta/user';
import { PolicyRule } from '../registry/rbac/types';
import { AbacPolicy } from './abac-policy';

const ALLOWED = allow('');
const NO_MATCH = noOpinion('No policy matched.');
const READ_VERBS = ['get', 'list', 'watch'];

/** The policy's user and group, where named, are the user's; at least one must be named. */
export function subjectMatches(p: AbacPolicy, user: UserInfo): boolean {
  if (p.user && p.user !== '*' && p.user !== user.name) return false;
  if (p.group && p.group !== '*' && !user.groups.includes(p.group)) return false;
  return !!(p.user || p.group);
}

/** Read-only requests pass every policy; others only policies that are not readonly. */
const verbMatches = (p: AbacPolicy, a: AuthorizationAttributes) => !p.readonly || READ_VERBS.includes(a.verb);

const matchesOrStar = (policy: string, value: string) => policy === '*' || policy === value;

function resourceMatches(p: AbacPolicy, a: AuthorizationAttributes): boolean {
  return a.isResourceRequest && matchesOrStar(p.namespace, a.namespace)
    && matchesOrStar(p.resource, a.resource) && matchesOrStar(p.apiGroup, a.apiGroup);
}

/** `*`, the exact path, or a prefix: `/apis/*` matches everything under `/apis/`. */
function nonResourceMatches(p: AbacPolicy, a: AuthorizationAttributes): boolean {
  if (a.isResourceRequest || !p.nonResourcePath) return false;
  const path = p.nonResourcePath;
  if (path === '*' || path === a.path) return true;
  return path.endsWith('*') && a.path.startsWith(path.replace(/\*+$/, ''));
}

/** Whether policy `p` grants the request `a`. */
export function policyMatches(p: AbacPolicy, a: AuthorizationAttributes): boolean {
  return subjectMatches(p, a.user) && verbMatches(p, a) && (resourceMatches(p, a) || nonResourceMatches(p, a));
}

export class AbacAuthorizer implements Authorizer, RuleResolver {
  constructor(readonly policies: readonly AbacPolicy[]) {}

  authorize(a: AuthorizationAttributes): AuthorizationResult {
    for (const p of this.policies) if (policyMatches(p, a)) return ALLOWED;
    return NO_MATCH;
  }

  /**
   * As Kubernetes' ABAC RulesFor: for each policy of the user that applies to the namespace
   * (`*` or that name), a resource rule when it names a resource and a non-resource rule when it
   * names a path; readonly policies give get, list and watch, others `*`. Complete.
   */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const rules: PolicyRule[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || !matchesOrStar(p.namespace, namespace)) continue;
      const verbs = p.readonly ? [...READ_VERBS] : ['*'];
      if (p.resource) rules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath) rules.push({ verbs: [...verbs], nonResourceURLs: [p.nonResourcePath] });
    }
    return { rules, incomplete: false, errors: [] };
  }
}
