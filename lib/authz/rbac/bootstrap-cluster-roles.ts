/**
 * The default ClusterRoles (Kubernetes' bootstrappolicy ClusterRoles, as kube-apiserver ships
 * them by default): the user-facing cluster-admin, admin, edit and view (the last three gathered
 * by aggregation from the system:aggregate-to-* roles), discovery and self-review roles, and the
 * roles of nodes, proxies, schedulers, controller managers and certificate approvers. Rule lists
 * are Kubernetes', resource names included, with every `*.k8s.io` group in the flavor's spelling.
 */
import { Naming } from '../../naming';
import { nodeRules } from '../node/node-rules';
import { RoleObject } from '../../registry/rbac/types';
import {
  READ, READ_UPDATE, READ_WRITE, WRITE, aggregateToLabel, eventsRule, policyGroups, role, rule, sortedRule, urlRule,
} from './bootstrap-policy';

/** The four signers of the certificates API: `orch.io/kube-apiserver-client` / `kubernetes.io/...`. */
export function signerNames(naming: Naming) {
  const d = naming.labelDomain;
  return {
    kubeApiserverClient: `${d}/kube-apiserver-client`,
    kubeApiserverClientKubelet: `${d}/kube-apiserver-client-kubelet`,
    kubeletServing: `${d}/kubelet-serving`,
    legacyUnknown: `${d}/legacy-unknown`,
  };
}

function aggregatedRoles(naming: Naming): RoleObject[] {
  const selector = (to: 'admin' | 'edit' | 'view') => ({ clusterRoleSelectors: [{ matchLabels: { [aggregateToLabel(naming, to)]: 'true' } }] });
  const label = (to: 'admin' | 'edit') => ({ [aggregateToLabel(naming, to)]: 'true' });
  // Their rules are the aggregation controller's; the bootstrap policy owns only the selectors.
  return [
    { metadata: { name: 'admin' }, aggregationRule: selector('admin') },
    { metadata: { name: 'edit', labels: label('admin') }, aggregationRule: selector('edit') },
    { metadata: { name: 'view', labels: label('edit') }, aggregationRule: selector('view') },
  ];
}

/** What admin, edit and view gather, in Kubernetes' words and order. */
function aggregateToRoles(naming: Naming): RoleObject[] {
  const g = policyGroups(naming);
  const core = [g.core];
  const to = (r: 'admin' | 'edit' | 'view') => ({ labels: { [aggregateToLabel(naming, r)]: 'true' } });
  return [
    role('system:aggregate-to-admin', [
      rule(['create'], [g.authorization], ['localsubjectaccessreviews']),
      rule(READ_WRITE, [g.rbac], ['roles', 'rolebindings']),
    ], to('admin')),
    role('system:aggregate-to-edit', [
      // Reading the resources that escalate (exec, secrets, proxies) comes with edit, not view.
      rule(READ, core, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], core, ['serviceaccounts']),
      rule(WRITE, core, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], core, ['pods/eviction']),
      rule(WRITE, core, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy',
        'persistentvolumeclaims', 'configmaps', 'secrets']),
      rule(['create'], core, ['serviceaccounts/token']),
      rule(WRITE, [g.core, g.events], ['events']),
      rule(WRITE, [g.apps], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback',
        'replicasets', 'replicasets/scale']),
      rule(WRITE, [g.autoscaling], ['horizontalpodautoscalers']),
      rule(WRITE, [g.batch], ['jobs', 'cronjobs']),
      rule(WRITE, [g.extensions], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses',
        'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(WRITE, [g.policy], ['poddisruptionbudgets']),
      rule(WRITE, [g.networking], ['networkpolicies', 'ingresses']),
      rule(READ_WRITE, [g.coordination], ['leases']),
      rule(WRITE, [g.resource], ['resourceclaims', 'resourceclaimtemplates']),
    ], to('edit')),
    role('system:aggregate-to-view', [
      rule(READ, core, ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
        'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(READ, core, ['limitranges', 'resourcequotas', 'bindings', 'pods/status', 'resourcequotas/status', 'namespaces/status',
        'replicationcontrollers/status', 'pods/log']),
      // Reading namespaces in a namespace means reading that one: a hint of which one may use.
      rule(READ, core, ['namespaces']),
      rule(READ, [g.core, g.events], ['events']),
      rule(READ, [g.discovery], ['endpointslices']),
      rule(READ, [g.apps], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets',
        'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(READ, [g.autoscaling], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, [g.batch], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(READ, [g.extensions], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses',
        'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(READ, [g.policy], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, [g.networking], ['networkpolicies', 'ingresses', 'ingresses/status']),
      rule(READ, [g.resource], ['resourceclaims', 'resourceclaims/status', 'resourceclaimtemplates']),
    ], to('view')),
  ];
}

/** Roles of the control plane's components and of nodes. */
function componentRoles(naming: Naming): RoleObject[] {
  const g = policyGroups(naming);
  const core = [g.core];
  const events = eventsRule(g);
  const signers = signerNames(naming);
  const csr = `system:${g.certificates}`;
  return [
    role('system:heapster', [
      rule(READ, core, ['events', 'pods', 'nodes', 'namespaces']),
      rule(READ, [g.extensions], ['deployments']),
    ]),
    role('system:node', nodeRules(naming).map(sortedRule)),
    role('system:node-problem-detector', [
      rule(['get'], core, ['nodes']),
      rule(['patch'], core, ['nodes/status']),
      events,
    ]),
    role('system:kubelet-api-admin', [
      rule(READ, core, ['nodes']),
      rule(['proxy'], core, ['nodes']),
      rule(['*'], core, ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
      rule(['*'], core, ['nodes/pods', 'nodes/healthz', 'nodes/configz']),
    ]),
    role('system:node-bootstrapper', [
      rule(['create', 'get', 'list', 'watch'], [g.certificates], ['certificatesigningrequests']),
    ]),
    role('system:auth-delegator', [
      rule(['create'], [g.authentication], ['tokenreviews']),
      rule(['create'], [g.authorization], ['subjectaccessreviews']),
    ]),
    role('system:kube-aggregator', [
      rule(READ, core, ['services', 'endpoints']),
    ]),
    role('system:kube-controller-manager', [
      events,
      // Leader election.
      rule(['create'], [g.coordination], ['leases']),
      rule(['get', 'update'], [g.coordination], ['leases'], ['kube-controller-manager']),
      rule(['create'], core, ['secrets', 'serviceaccounts']),
      rule(['delete'], core, ['secrets']),
      rule(['get'], core, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], core, ['secrets', 'serviceaccounts']),
      rule(['create'], [g.authentication], ['tokenreviews']),
      rule(['create'], [g.authorization], ['subjectaccessreviews']),
      // Every shared informer.
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], core, ['serviceaccounts/token']),
    ]),
    role('system:kube-dns', [
      rule(['list', 'watch'], core, ['endpoints', 'services']),
    ]),
    role('system:persistent-volume-provisioner', [
      rule(['get', 'list', 'watch', 'create', 'delete'], core, ['persistentvolumes']),
      // update: the lock annotations on claims.
      rule(['get', 'list', 'watch', 'update'], core, ['persistentvolumeclaims']),
      rule(READ, [g.storage], ['storageclasses']),
      rule(['watch'], core, ['events']),
      events,
    ]),
    role(`${csr}:certificatesigningrequests:nodeclient`, [
      rule(['create'], [g.certificates], ['certificatesigningrequests/nodeclient']),
    ]),
    role(`${csr}:certificatesigningrequests:selfnodeclient`, [
      rule(['create'], [g.certificates], ['certificatesigningrequests/selfnodeclient']),
    ]),
    role('system:volume-scheduler', [
      rule(READ_UPDATE, core, ['persistentvolumes']),
      rule(READ, [g.storage], ['storageclasses']),
      rule(READ_UPDATE, core, ['persistentvolumeclaims']),
    ]),
    role(`${csr}:legacy-unknown-approver`, [rule(['approve'], [g.certificates], ['signers'], [signers.legacyUnknown])]),
    role(`${csr}:kubelet-serving-approver`, [rule(['approve'], [g.certificates], ['signers'], [signers.kubeletServing])]),
    role(`${csr}:kube-apiserver-client-approver`, [rule(['approve'], [g.certificates], ['signers'], [signers.kubeApiserverClient])]),
    role(`${csr}:kube-apiserver-client-kubelet-approver`, [
      rule(['approve'], [g.certificates], ['signers'], [signers.kubeApiserverClientKubelet]),
    ]),
    role('system:service-account-issuer-discovery', [
      urlRule(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/']),
    ]),
    role('system:node-proxier', [
      rule(['list', 'watch'], core, ['services', 'endpoints']),
      rule(READ, core, ['nodes']),
      events,
      rule(['list', 'watch'], [g.networking], ['servicecidrs']),
      rule(['list', 'watch'], [g.discovery], ['endpointslices']),
    ]),
    role('system:kube-scheduler', [
      events,
      // Leader election (and the candidates of coordinated election).
      rule(['create'], [g.coordination], ['leases']),
      rule(['get', 'list', 'update', 'watch'], [g.coordination], ['leases'], ['kube-scheduler']),
      rule(READ_WRITE, [g.coordination], ['leasecandidates']),
      rule(READ, core, ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], core, ['pods']),
      rule(['create'], core, ['pods/binding', 'bindings']),
      rule(['patch', 'update'], core, ['pods/status']),
      // What selects pods, and what pods use.
      rule(READ, core, ['services', 'replicationcontrollers']),
      rule(READ, [g.apps, g.extensions], ['replicasets']),
      rule(READ, [g.apps], ['statefulsets']),
      rule(READ, [g.policy], ['poddisruptionbudgets']),
      rule(READ, core, ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], [g.authentication], ['tokenreviews']),
      rule(['create'], [g.authorization], ['subjectaccessreviews']),
      rule(READ, [g.storage], ['csinodes']),
      rule(READ, [g.storage], ['volumeattachments']),
      rule(READ, core, ['namespaces']),
      rule(READ, [g.storage], ['csidrivers']),
      rule(READ, [g.storage], ['csistoragecapacities']),
      // Dynamic resource allocation.
      rule(READ, [g.resource], ['deviceclasses']),
      rule(READ_UPDATE, [g.resource], ['resourceclaims']),
      rule(READ_UPDATE, [g.resource], ['resourceclaims/status']),
      rule(['update'], core, ['pods/finalizers']),
      rule(READ, [g.resource], ['resourceslices']),
      rule(['create', 'delete'], [g.resource], ['resourceclaims']),
    ]),
  ];
}

/** Every default ClusterRole but the controllers' (bootstrap-controller-roles.ts), without the bootstrap metadata. */
export function clusterRoles(naming: Naming): RoleObject[] {
  const g = policyGroups(naming);
  return [
    // Everything, everywhere: bound to system:masters.
    role('cluster-admin', [rule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
    // Enough to learn whether the server is ready and which APIs it serves.
    role('system:discovery', [urlRule(['get'], [
      '/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*',
    ])]),
    // The monitoring endpoints, single health checks included (they may tell more).
    role('system:monitoring', [
      urlRule(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*', '/statusz']),
      rule(['get'], [g.core], ['nodes/metrics']),
    ]),
    // What any user may ask about itself.
    role('system:basic-user', [
      rule(['create'], [g.authorization], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [g.authentication], ['selfsubjectreviews']),
    ]),
    // What is not secret even to anonymous callers.
    role('system:public-info-viewer', [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    ...aggregatedRoles(naming),
    ...aggregateToRoles(naming),
    ...componentRoles(naming),
  ];
}
