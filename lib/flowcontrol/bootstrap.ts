/**
 * Kubernetes 1.32's bootstrap API priority and fairness configuration (k8s.io/apiserver
 * pkg/apis/flowcontrol/bootstrap/default.go): the mandatory and suggested FlowSchemas and
 * PriorityLevelConfigurations. The dispatcher works from these until the stores hold the
 * objects (the first moments after start, or a server without the flowcontrol kinds), and
 * supplies the mandatory `exempt` and `catch-all` ones whenever they are missing, as kube does.
 */
import type { FlowSchema, PriorityLevelConfiguration, PolicyRulesWithSubjects, Subject, QueuingConfiguration } from './types';

const ALL_RESOURCES = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
const ALL_NON_RESOURCES = { verbs: ['*'], nonResourceURLs: ['*'] };

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));
const everything = (subjects: Subject[]): PolicyRulesWithSubjects =>
  ({ subjects, resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] });
const namespaced = (verbs: string[], apiGroups: string[], resources: string[]) =>
  ({ verbs, apiGroups, resources, clusterScope: false, namespaces: ['*'] });

function fs(name: string, level: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rule: PolicyRulesWithSubjects): FlowSchema {
  return {
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level }, matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  };
}

function limited(name: string, nominalConcurrencyShares: number, lendablePercent: number, queuing?: Required<QueuingConfiguration>): PriorityLevelConfiguration {
  return {
    metadata: { name },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares, lendablePercent,
        limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' },
      },
    },
  };
}

const queuing = (queues: number, handSize: number): Required<QueuingConfiguration> => ({ queues, handSize, queueLengthLimit: 50 });

export const BOOTSTRAP_MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  limited('catch-all', 5, 0),
  { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
];

export const BOOTSTRAP_MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  fs('exempt', 'exempt', 1, '', everything(groups('system:masters'))),
  fs('catch-all', 'catch-all', 10000, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

export const BOOTSTRAP_SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  limited('system', 30, 33, queuing(64, 6)),
  limited('node-high', 40, 25, queuing(64, 6)),
  limited('leader-election', 10, 0, queuing(16, 4)),
  limited('workload-high', 40, 50, queuing(128, 6)),
  limited('workload-low', 100, 90, queuing(128, 6)),
  limited('global-default', 20, 50, queuing(128, 6)),
];

export const BOOTSTRAP_SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  fs('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  fs('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [
      { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
      namespaced(['*'], ['coordination.k8s.io'], ['leases']),
    ],
  }),
  fs('probes', 'exempt', 2, '', {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  fs('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')],
    resourceRules: [namespaced(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'])],
  }),
  fs('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [
      namespaced(['get', 'create', 'update'], [''], ['endpoints', 'configmaps']),
      namespaced(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases']),
    ],
  }),
  fs('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [namespaced(['get', 'create', 'update'], [''], ['endpoints'])],
  }),
  fs('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-controller-manager'))),
  fs('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
  fs('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts('*'))),
  fs('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  fs('global-default', 'global-default', 9900, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

/**
 * The whole bootstrap configuration: what a fresh kube-apiserver creates. `coordinationGroup` is
 * the served name of coordination.k8s.io (another in the orch flavor), so that the
 * leader-election rules match the Leases this server serves.
 */
export function bootstrapConfiguration(coordinationGroup = 'coordination.k8s.io'): { flowSchemas: FlowSchema[]; priorityLevels: PriorityLevelConfiguration[] } {
  const rename = (g: string) => (g === 'coordination.k8s.io' ? coordinationGroup : g);
  const flowSchemas = [...BOOTSTRAP_MANDATORY_FLOW_SCHEMAS, ...BOOTSTRAP_SUGGESTED_FLOW_SCHEMAS].map((f) => ({
    ...f, spec: { ...f.spec, rules: f.spec.rules?.map((r) => ({ ...r, resourceRules: r.resourceRules?.map((rr) => ({ ...rr, apiGroups: rr.apiGroups.map(rename) })) })) },
  }));
  return { flowSchemas, priorityLevels: [...BOOTSTRAP_MANDATORY_PRIORITY_LEVELS, ...BOOTSTRAP_SUGGESTED_PRIORITY_LEVELS] };
}
