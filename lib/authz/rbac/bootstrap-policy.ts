/**
 * The vocabulary of the bootstrap policy (Kubernetes' bootstrappolicy package): verb sets, the
 * flavor's API group names, rule and binding builders, and the label and annotation every
 * bootstrap object carries. The objects themselves are in bootstrap-cluster-roles.ts,
 * bootstrap-controller-roles.ts, bootstrap-bindings.ts and bootstrap-namespace-roles.ts.
 */
import { Naming } from '../../naming';
import { ApiObject } from '../../scheme/types';
import { BindingObject, PolicyRule, RoleObject, Subject, GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../registry/rbac/types';

export const READ = ['get', 'list', 'watch'];
export const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
export const READ_WRITE = [...READ, ...WRITE];
export const READ_UPDATE = ['get', 'list', 'watch', 'update', 'patch'];

/** Names of the policy's well-known users and groups (the same in both flavors). */
export const SYSTEM_MASTERS = 'system:masters';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';
export const MONITORING_GROUP = 'system:monitoring';
export const KUBE_PROXY = 'system:kube-proxy';
export const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
export const KUBE_SCHEDULER = 'system:kube-scheduler';

/** Prefix of the roles the controllers run as, each bound to the service account of its name. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

/** The label that marks every bootstrap object: `orch.io/bootstrapping` / `kubernetes.io/bootstrapping`. */
export const bootstrappingLabel = (naming: Naming): string => `${naming.labelDomain}/bootstrapping`;
export const BOOTSTRAPPING_VALUE = 'rbac-defaults';

/** `"false"` here keeps the server's hands off a bootstrap object: `rbac.authorization.orch.io/autoupdate`. */
export const autoupdateAnnotation = (naming: Naming): string => `rbac.authorization.${naming.labelDomain}/autoupdate`;

/** Label of the roles gathered into admin, edit or view: `rbac.authorization.orch.io/aggregate-to-admin`. */
export const aggregateToLabel = (naming: Naming, role: 'admin' | 'edit' | 'view'): string =>
  `${naming.group('rbac.authorization')}/aggregate-to-${role}`;

/** The API groups the policy names, in the flavor's spelling (`*.orch.io` or `*.k8s.io`). */
export function policyGroups(naming: Naming) {
  const g = naming.group;
  return {
    core: '', apps: 'apps', autoscaling: 'autoscaling', batch: 'batch', extensions: 'extensions', policy: 'policy',
    admissionRegistration: g('admissionregistration'), authentication: g('authentication'), authorization: g('authorization'),
    certificates: g('certificates'), coordination: g('coordination'), discovery: g('discovery'), events: g('events'),
    networking: g('networking'), node: g('node'), rbac: g('rbac.authorization'), resource: g('resource'), storage: g('storage'),
    metrics: g('metrics'), customMetrics: g('custom.metrics'), externalMetrics: g('external.metrics'),
  };
}

export type PolicyGroups = ReturnType<typeof policyGroups>;

// Kubernetes' rule builder sorts every list; stored objects (and `kubectl get -o yaml`) show them so.
const sorted = (list: readonly string[]): string[] => [...list].sort();

/** A resource rule; `resourceNames` only when given. */
export function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule {
  const r: PolicyRule = { verbs: sorted(verbs), apiGroups: sorted(apiGroups), resources: sorted(resources) };
  if (resourceNames?.length) r.resourceNames = sorted(resourceNames);
  return r;
}

/** A non-resource rule. */
export function urlRule(verbs: readonly string[], urls: readonly string[]): PolicyRule {
  return { verbs: sorted(verbs), nonResourceURLs: sorted(urls) };
}

/** A rule from elsewhere with its lists sorted as the builders sort them. */
export function sortedRule(r: PolicyRule): PolicyRule {
  return r.nonResourceURLs?.length ? urlRule(r.verbs, r.nonResourceURLs) : rule(r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? undefined);
}

/** Writing events in either events API: nearly every controller and component has it. */
export function eventsRule(groups: PolicyGroups): PolicyRule {
  return rule(['create', 'update', 'patch'], [groups.core, groups.events], ['events']);
}

/** A ClusterRole (or, with `namespace`, a Role) with its rules; labels beyond the bootstrap one. */
export function role(name: string, rules: PolicyRule[], extra: { labels?: Record<string, string>; namespace?: string } = {}): RoleObject {
  return { metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}), ...(extra.labels ? { labels: extra.labels } : {}) }, rules };
}

export const userSubject = (naming: Naming, name: string): Subject => ({ kind: USER_KIND, apiGroup: naming.group('rbac.authorization'), name });
export const groupSubject = (naming: Naming, name: string): Subject => ({ kind: GROUP_KIND, apiGroup: naming.group('rbac.authorization'), name });
export const serviceAccountSubject = (namespace: string, name: string): Subject => ({ kind: SERVICE_ACCOUNT_KIND, name, namespace });

/** A ClusterRoleBinding named after the ClusterRole it grants (no subjects: none listed). */
export function clusterBinding(naming: Naming, roleName: string, subjects: Subject[]): BindingObject {
  const b: BindingObject = { metadata: { name: roleName }, roleRef: { apiGroup: naming.group('rbac.authorization'), kind: 'ClusterRole', name: roleName } };
  if (subjects.length) b.subjects = subjects;
  return b;
}

/** A RoleBinding in `namespace` of the Role `roleName`, named `name` (default: the role's name). */
export function namespacedBinding(naming: Naming, namespace: string, roleName: string, subjects: Subject[], name = roleName): BindingObject {
  return {
    metadata: { name, namespace },
    roleRef: { apiGroup: naming.group('rbac.authorization'), kind: 'Role', name: roleName },
    subjects,
  };
}

/** Adds the bootstrap label and the autoupdate annotation (Kubernetes' addDefaultMetadata); returns `obj`. */
export function withBootstrapMetadata<T extends ApiObject>(naming: Naming, obj: T): T {
  const meta = (obj.metadata ??= {});
  meta.labels = { ...(meta.labels ?? {}), [bootstrappingLabel(naming)]: BOOTSTRAPPING_VALUE };
  meta.annotations = { ...(meta.annotations ?? {}), [autoupdateAnnotation(naming)]: 'true' };
  return obj;
}
