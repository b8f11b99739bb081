/**
 * The spec's webhook `rules` table as pure functions (Kubernetes' predicates/rules): does one
 * rule cover a request's operation, group, version, resource/subresource and scope.
 */
import { WebhookRule } from './compiled-webhook';

/** What a rule is matched against: the request's (or an equivalent version's) resource. */
export interface RuleTarget {
  operation: string;
  group: string;
  version: string;
  resource: string;
  /** '' when the request is on the resource itself. */
  subresource: string;
  /** '' for a cluster-scoped object; a Namespace's own name counts as cluster-scoped below. */
  namespace: string;
}

const exactOrWildcard = (items: readonly string[], wanted: string): boolean => {
  for (const item of items) if (item === '*' || item === wanted) return true;
  return false;
};

const isNamespaceResource = (t: RuleTarget): boolean => t.group === '' && t.version === 'v1' && t.resource === 'namespaces';

/** `scope`: `*` (or absent) anything; Namespaced needs a namespace; Cluster has none (Namespaces themselves are Cluster). */
export function scopeMatches(scope: string, t: RuleTarget): boolean {
  switch (scope) {
    case '*': return true;
    case 'Namespaced': return !isNamespaceResource(t) && t.namespace !== '';
    case 'Cluster': return isNamespaceResource(t) || t.namespace === '';
    default: return false;
  }
}

/**
 * `resources` entries: `name` the resource alone, `name/sub` one subresource, `*` every resource
 * (no subresources), `* / *` everything, `name/*` a resource and all its subresources, `* /sub`
 * that subresource of every resource.
 */
export function resourceMatches(resources: readonly string[], resource: string, subresource: string): boolean {
  for (const entry of resources) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

/** Whether `rule` covers `t` (all five conditions). */
export function ruleMatches(rule: WebhookRule, t: RuleTarget): boolean {
  return scopeMatches(rule.scope, t)
    && exactOrWildcard(rule.operations, t.operation)
    && exactOrWildcard(rule.apiGroups, t.group)
    && exactOrWildcard(rule.apiVersions, t.version)
    && resourceMatches(rule.resources, t.resource, t.subresource);
}

/** Kubernetes never sends the admission configuration kinds themselves to webhooks (no lock-out). */
export function isExemptConfigurationKind(group: string, kind: string, admissionregistrationGroup: string): boolean {
  return group === admissionregistrationGroup && (kind === 'ValidatingWebhookConfiguration' || kind === 'MutatingWebhookConfiguration'
    || kind === 'ValidatingAdmissionPolicy' || kind === 'ValidatingAdmissionPolicyBinding'
    || kind === 'MutatingAdmissionPolicy' || kind === 'MutatingAdmissionPolicyBinding');
}
