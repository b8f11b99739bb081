/**
 * Whether a FlowSchema matches a request, rule by rule as kube-apiserver 1.32
 * (k8s.io/apiserver pkg/util/flowcontrol/rule.go): a rule matches when one of its subjects is
 * the user and, for a resource request, one resource rule matches (verb, `resource/subresource`,
 * API group (in this server's spelling or Kubernetes'), cluster scope or namespace), for any other request one non-resource rule (verb, URL:
 * exact, `*`, or a prefix: `/foo/*` and `/foo` both match `/foo/bar`).
 */
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, RequestDigest, ResourcePolicyRule, Subject } from './types';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export function matchesFlowSchema(d: RequestDigest, fs: FlowSchema): boolean {
  for (const rule of fs.spec.rules ?? []) if (matchesPolicyRule(d, rule)) return true;
  return false;
}

function matchesPolicyRule(d: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!rule.subjects.some((s) => matchesSubject(d.user, s))) return false;
  if (d.isResourceRequest) return (rule.resourceRules ?? []).some((r) => matchesResourceRule(d, r));
  return (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(d, r));
}

export function matchesSubject(user: RequestDigest['user'], s: Subject): boolean {
  switch (s.kind) {
    case 'User':
      return s.user !== undefined && (s.user.name === '*' || s.user.name === user.name);
    case 'Group':
      return s.group !== undefined && (s.group.name === '*' || user.groups.includes(s.group.name));
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!sa) return false;
      if (sa.name === '*') return user.name.startsWith(`${SERVICE_ACCOUNT_PREFIX}${sa.namespace}:`);
      return user.name === `${SERVICE_ACCOUNT_PREFIX}${sa.namespace}:${sa.name}`;
    }
    default:
      return false;
  }
}

function matchesResourceRule(d: RequestDigest, r: ResourcePolicyRule): boolean {
  if (!contains(d.verb, r.verbs, '*')) return false;
  const resource = d.subresource ? `${d.resource}/${d.subresource}` : d.resource;
  if (!contains(resource, r.resources, '*')) return false;
  if (!contains(d.apiGroup, r.apiGroups, '*') && !(d.apiGroupAlias !== undefined && contains(d.apiGroupAlias, r.apiGroups, '*'))) return false;
  if (!d.namespace) return r.clusterScope === true;
  return contains(d.namespace, r.namespaces ?? [], '*');
}

function matchesNonResourceRule(d: RequestDigest, r: NonResourcePolicyRule): boolean {
  if (!contains(d.verb, r.verbs, '*')) return false;
  for (const url of r.nonResourceURLs) {
    if (url === '*' || url === d.path) return true;
    let prefix = url.endsWith('*') ? url.slice(0, -1) : url;
    if (!prefix.endsWith('/')) prefix += '/';
    if (d.path.startsWith(prefix)) return true;
  }
  return false;
}

/** kube's containsString: a list of just the wildcard matches everything. */
function contains(x: string, list: readonly string[], wildcard: string): boolean {
  if (list.length === 1 && list[0] === wildcard) return true;
  return list.includes(x);
}
