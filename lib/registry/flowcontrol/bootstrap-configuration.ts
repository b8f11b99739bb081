/**
 * API priority and fairness: Kubernetes 1.32's bootstrap configuration as data
 * (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go). The mandatory objects
 * (`exempt` and `catch-all`, each a PriorityLevelConfiguration and a FlowSchema) are kept
 * by the server whatever users do to them; the suggested ones are created when missing and
 * refreshed while their `apf.kubernetes.io/autoupdate-spec` annotation says "true".
 *
 * The objects are flowcontrol.apiserver.k8s.io/v1 JSON exactly as the Go structs serialise
 * (omitempty fields left out: no `distinguisherMethod` for `exempt` and `probes`, no
 * `clusterScope: false`), and already default-complete: defaulting changes none of them, so
 * a stored object's spec can be compared with these by deep equality. Both the registry
 * (validation of the mandatory objects, the configuration keeper) and lib/flowcontrol (the
 * dispatcher) read them; nothing here may be mutated (use `cloneBootstrapObject`).
 */

export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
export const FLOWCONTROL_API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

export interface SubjectJson {
  kind: 'User' | 'Group' | 'ServiceAccount';
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}
export interface ResourcePolicyRuleJson {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}
export interface NonResourcePolicyRuleJson { verbs: string[]; nonResourceURLs: string[] }
export interface PolicyRulesWithSubjectsJson {
  subjects: SubjectJson[];
  resourceRules?: ResourcePolicyRuleJson[];
  nonResourceRules?: NonResourcePolicyRuleJson[];
}
export interface FlowSchemaSpecJson {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence: number;
  distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' };
  rules?: PolicyRulesWithSubjectsJson[];
}
export interface QueuingConfigurationJson { queues: number; handSize: number; queueLengthLimit: number }
export interface LimitedPriorityLevelConfigurationJson {
  nominalConcurrencyShares?: number;
  limitResponse: { type: 'Queue' | 'Reject'; queuing?: QueuingConfigurationJson };
  lendablePercent?: number;
  borrowingLimitPercent?: number;
}
export interface ExemptPriorityLevelConfigurationJson { nominalConcurrencyShares?: number; lendablePercent?: number }
export interface PriorityLevelConfigurationSpecJson {
  type: 'Exempt' | 'Limited';
  limited?: LimitedPriorityLevelConfigurationJson;
  exempt?: ExemptPriorityLevelConfigurationJson;
}
interface BootstrapMeta { name: string; annotations: Record<string, string> }
export interface BootstrapFlowSchema {
  apiVersion: string; kind: 'FlowSchema'; metadata: BootstrapMeta; spec: FlowSchemaSpecJson;
}
export interface BootstrapPriorityLevelConfiguration {
  apiVersion: string; kind: 'PriorityLevelConfiguration'; metadata: BootstrapMeta; spec: PriorityLevelConfigurationSpecJson;
}

// Well-known names (k8s.io/apiserver/pkg/authentication/user and serviceaccount).
const SYSTEM_MASTERS = 'system:masters';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';
const ALL_AUTHENTICATED = 'system:authenticated';
const NODES_GROUP = 'system:nodes';
const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const KUBE_SCHEDULER = 'system:kube-scheduler';
const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';

function groups(...names: string[]): SubjectJson[] {
  return names.map((name) => ({ kind: 'Group', group: { name } }));
}
function users(...names: string[]): SubjectJson[] {
  return names.map((name) => ({ kind: 'User', user: { name } }));
}
function kubeSystemServiceAccounts(...names: string[]): SubjectJson[] {
  return names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));
}
function resourceRule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[],
  clusterScope: boolean): ResourcePolicyRuleJson {
  const rule: ResourcePolicyRuleJson = { verbs, apiGroups, resources };
  if (clusterScope) rule.clusterScope = true;
  rule.namespaces = namespaces;
  return rule;
}
/** Every verb on every resource anywhere, and every verb on every non-resource URL. */
function everything(subjects: SubjectJson[]): PolicyRulesWithSubjectsJson {
  return {
    subjects,
    resourceRules: [resourceRule(['*'], ['*'], ['*'], ['*'], true)],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  };
}
function meta(name: string): BootstrapMeta {
  return { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } };
}
function flowSchema(name: string, level: string, matchingPrecedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | '', ...rules: PolicyRulesWithSubjectsJson[]): BootstrapFlowSchema {
  const spec: FlowSchemaSpecJson = { priorityLevelConfiguration: { name: level }, matchingPrecedence };
  if (distinguisher !== '') spec.distinguisherMethod = { type: distinguisher };
  spec.rules = rules;
  return { apiVersion: FLOWCONTROL_API_VERSION, kind: 'FlowSchema', metadata: meta(name), spec };
}
function limited(name: string, shares: number, lendablePercent: number,
  queuing: [number, number, number] | null): BootstrapPriorityLevelConfiguration {
  const limitResponse: LimitedPriorityLevelConfigurationJson['limitResponse'] = queuing === null
    ? { type: 'Reject' }
    : { type: 'Queue', queuing: { queues: queuing[0], handSize: queuing[1], queueLengthLimit: queuing[2] } };
  return {
    apiVersion: FLOWCONTROL_API_VERSION, kind: 'PriorityLevelConfiguration', metadata: meta(name),
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse, lendablePercent } },
  };
}

// Mandatory PriorityLevelConfigurations, in default.go's order (catch-all, then exempt).
const PL_EXEMPT: BootstrapPriorityLevelConfiguration = {
  apiVersion: FLOWCONTROL_API_VERSION, kind: 'PriorityLevelConfiguration', metadata: meta('exempt'),
  spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
};
const PL_CATCH_ALL = limited('catch-all', 5, 0, null);

export const MANDATORY_PRIORITY_LEVELS: readonly BootstrapPriorityLevelConfiguration[] = [PL_CATCH_ALL, PL_EXEMPT];

export const MANDATORY_FLOW_SCHEMAS: readonly BootstrapFlowSchema[] = [
  flowSchema('exempt', 'exempt', 1, '', everything(groups(SYSTEM_MASTERS))),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED))),
];

// Suggested PriorityLevelConfigurations: [queues, handSize, queueLengthLimit].
export const SUGGESTED_PRIORITY_LEVELS: readonly BootstrapPriorityLevelConfiguration[] = [
  limited('system', 30, 33, [64, 6, 50]),
  limited('node-high', 40, 25, [64, 6, 50]),
  limited('leader-election', 10, 0, [16, 4, 50]),
  limited('workload-high', 40, 50, [128, 6, 50]),
  limited('workload-low', 100, 90, [128, 6, 50]),
  limited('global-default', 20, 50, [128, 6, 50]),
];

const FS_PROBES = flowSchema('probes', 'exempt', 2, '', {
  subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
  nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
});
const FS_SYSTEM_LEADER_ELECTION = flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
  subjects: [...users(KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER), ...kubeSystemServiceAccounts('*')],
  resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], ['*'], false)],
});
const FS_ENDPOINT_CONTROLLER = flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
  subjects: [...users(KUBE_CONTROLLER_MANAGER),
    ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
  resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], ['*'], false)],
});
const FS_WORKLOAD_LEADER_ELECTION = flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
  subjects: kubeSystemServiceAccounts('*'),
  resourceRules: [
    resourceRule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], ['*'], false),
    resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], ['*'], false),
  ],
});
const FS_SYSTEM_NODE_HIGH = flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
  subjects: groups(NODES_GROUP),
  resourceRules: [
    resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
    resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false),
  ],
});
const FS_SYSTEM_NODES = flowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups(NODES_GROUP)));
const FS_KUBE_CONTROLLER_MANAGER = flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace',
  everything(users(KUBE_CONTROLLER_MANAGER)));
const FS_KUBE_SCHEDULER = flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace',
  everything(users(KUBE_SCHEDULER)));
const FS_KUBE_SYSTEM_SERVICE_ACCOUNTS = flowSchema('kube-system-service-accounts', 'workload-high', 900,
  'ByNamespace', everything(kubeSystemServiceAccounts('*')));
const FS_SERVICE_ACCOUNTS = flowSchema('service-accounts', 'workload-low', 9000, 'ByUser',
  everything(groups(ALL_SERVICE_ACCOUNTS)));
const FS_GLOBAL_DEFAULT = flowSchema('global-default', 'global-default', 9900, 'ByUser',
  everything(groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED)));

/** default.go's SuggestedFlowSchemas order. */
export const SUGGESTED_FLOW_SCHEMAS: readonly BootstrapFlowSchema[] = [
  FS_SYSTEM_NODES, FS_SYSTEM_NODE_HIGH, FS_PROBES, FS_SYSTEM_LEADER_ELECTION, FS_WORKLOAD_LEADER_ELECTION,
  FS_ENDPOINT_CONTROLLER, FS_KUBE_CONTROLLER_MANAGER, FS_KUBE_SCHEDULER, FS_KUBE_SYSTEM_SERVICE_ACCOUNTS,
  FS_SERVICE_ACCOUNTS, FS_GLOBAL_DEFAULT,
];

/** A deep copy to hand to code that may change it (the objects above are shared). */
export function cloneBootstrapObject<T extends BootstrapFlowSchema | BootstrapPriorityLevelConfiguration>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}
