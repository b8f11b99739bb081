/**
 * The roles controllers run as (Kubernetes' controller_policy.go): `system:controller:<name>`,
 * each bound by a ClusterRoleBinding of the same name to the service account `<name>` of the
 * system namespace, as kube-controller-manager uses them with --use-service-account-credentials.
 * This server's own controllers (namespace, garbage collector, service accounts, root CA,
 * ephemeral volumes, aggregation) have theirs here, and so has every other controller Kubernetes
 * ships enabled by default, for controller managers run against this server. Roles behind
 * alpha feature gates (off by default in Kubernetes) are left out.
 */
import { Naming } from '../../naming';
import { BindingObject, PolicyRule, RoleObject } from '../../registry/rbac/types';
import {
  CONTROLLER_ROLE_PREFIX, READ, READ_UPDATE, clusterBinding, eventsRule, policyGroups, role, rule, serviceAccountSubject,
} from './bootstrap-policy';
import { signerNames } from './bootstrap-cluster-roles';

/** The ConfigMap in the system namespace where kube-apiserver records legacy token use. */
const LEGACY_TOKEN_TRACKING_CONFIGMAP = 'kube-apiserver-legacy-service-account-token-tracking';

/** Controller name -> its rules. */
function controllerRules(naming: Naming): Array<[string, PolicyRule[]]> {
  const g = policyGroups(naming);
  const core = [g.core];
  const events = eventsRule(g);
  const signers = signerNames(naming);
  return [
    ['attachdetach-controller', [
      rule(['list', 'watch'], core, ['persistentvolumes', 'persistentvolumeclaims']),
      rule(READ, core, ['nodes']),
      rule(['patch', 'update'], core, ['nodes/status']),
      rule(['list', 'watch'], core, ['pods']),
      events,
      rule(['get', 'create', 'delete', 'list', 'watch'], [g.storage], ['volumeattachments']),
      rule(READ, [g.storage], ['csidrivers']),
      rule(READ, [g.storage], ['csinodes']),
    ]],
    // Full powers on ClusterRoles, escalate included: it writes whatever the selected roles grant.
    ['clusterrole-aggregation-controller', [
      rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [g.rbac], ['clusterroles']),
    ]],
    ['cronjob-controller', [
      rule(['get', 'list', 'watch', 'update'], [g.batch], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], [g.batch], ['jobs']),
      rule(['update'], [g.batch], ['cronjobs/status']),
      rule(['update'], [g.batch], ['cronjobs/finalizers']),
      rule(['list', 'watch', 'delete'], core, ['pods']),
      events,
    ]],
    ['daemon-set-controller', [
      rule(READ, [g.extensions, g.apps], ['daemonsets']),
      rule(['update'], [g.extensions, g.apps], ['daemonsets/status']),
      rule(['update'], [g.extensions, g.apps], ['daemonsets/finalizers']),
      rule(['list', 'watch'], core, ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], core, ['pods']),
      rule(['create'], core, ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], [g.apps], ['controllerrevisions']),
      events,
    ]],
    ['deployment-controller', [
      rule(['get', 'list', 'watch', 'update'], [g.extensions, g.apps], ['deployments']),
      rule(['update'], [g.extensions, g.apps], ['deployments/status']),
      rule(['update'], [g.extensions, g.apps], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [g.apps, g.extensions], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], core, ['pods']),
      events,
    ]],
    ['disruption-controller', [
      rule(READ, [g.extensions, g.apps], ['deployments']),
      rule(READ, [g.apps, g.extensions], ['replicasets']),
      rule(READ, core, ['replicationcontrollers']),
      rule(READ, [g.policy], ['poddisruptionbudgets']),
      rule(READ, [g.apps], ['statefulsets']),
      rule(['update'], [g.policy], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], core, ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
      events,
    ]],
    ['endpoint-controller', [
      rule(READ, core, ['services', 'pods']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], core, ['endpoints']),
      rule(['create'], core, ['endpoints/restricted']),
      events,
    ]],
    ['endpointslice-controller', [
      rule(READ, core, ['services', 'pods', 'nodes']),
      // Slices it creates are owned by their Service with blockOwnerDeletion.
      rule(['update'], core, ['services/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [g.discovery], ['endpointslices']),
      events,
    ]],
    ['endpointslicemirroring-controller', [
      rule(READ, core, ['services', 'endpoints']),
      rule(['update'], core, ['services/finalizers']),
      rule(['update'], core, ['endpoints/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [g.discovery], ['endpointslices']),
      events,
    ]],
    ['expand-controller', [
      rule(READ_UPDATE, core, ['persistentvolumes']),
      rule(['update', 'patch'], core, ['persistentvolumeclaims/status']),
      rule(READ, core, ['persistentvolumeclaims']),
      events,
      rule(['get'], core, ['services']),
    ]],
    ['ephemeral-volume-controller', [
      rule(READ, core, ['pods']),
      rule(['update'], core, ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create'], core, ['persistentvolumeclaims']),
      events,
    ]],
    ['resource-claim-controller', [
      rule(READ, core, ['pods']),
      rule(['update'], core, ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'delete'], [g.resource], ['resourceclaims']),
      rule(['update', 'patch'], [g.resource], ['resourceclaims', 'resourceclaims/status']),
      rule(['update', 'patch'], core, ['pods/status']),
      events,
    ]],
    // Lists, watches, reads and deletes anything that has owners.
    ['generic-garbage-collector', [
      rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']),
      events,
    ]],
    ['horizontal-pod-autoscaler', [
      rule(READ, [g.autoscaling], ['horizontalpodautoscalers']),
      rule(['update'], [g.autoscaling], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list', 'watch'], core, ['pods']),
      rule(['list', 'watch'], [g.metrics], ['pods']),
      rule(READ, [g.customMetrics], ['*']),
      rule(READ, [g.externalMetrics], ['*']),
      events,
    ]],
    ['job-controller', [
      rule(READ_UPDATE, [g.batch], ['jobs']),
      rule(['update'], [g.batch], ['jobs/status']),
      rule(['update'], [g.batch], ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], core, ['pods']),
      events,
    ]],
    // Empties a terminating namespace of every kind, then finalizes it.
    ['namespace-controller', [
      rule(['get', 'list', 'watch', 'delete'], core, ['namespaces']),
      rule(['update'], core, ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
    ]],
    ['node-controller', [
      rule(['get', 'list', 'watch', 'update', 'delete', 'patch'], core, ['nodes']),
      rule(['patch', 'update'], core, ['nodes/status']),
      rule(['patch', 'update'], core, ['pods/status']),
      rule(['list', 'watch', 'get', 'delete'], core, ['pods']),
      events,
    ]],
    ['persistent-volume-binder', [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], core, ['persistentvolumes']),
      rule(['update'], core, ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], core, ['persistentvolumeclaims']),
      rule(['update'], core, ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], core, ['pods']),
      rule(READ, [g.storage], ['storageclasses']),
      rule(['list', 'watch'], core, ['nodes']),
      events,
      // The recycler watches its pod's events.
      rule(['watch'], core, ['events']),
      rule(['get'], core, ['services']),
    ]],
    ['pod-garbage-collector', [
      rule(['list', 'watch', 'delete'], core, ['pods']),
      rule(READ, core, ['nodes']),
      rule(['patch'], core, ['pods/status']),
    ]],
    ['replicaset-controller', [
      rule(['get', 'list', 'watch', 'update'], [g.apps, g.extensions], ['replicasets']),
      rule(['update'], [g.apps, g.extensions], ['replicasets/status']),
      rule(['update'], [g.apps, g.extensions], ['replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], core, ['pods']),
      events,
    ]],
    ['replication-controller', [
      rule(['get', 'list', 'watch', 'update'], core, ['replicationcontrollers']),
      rule(['update'], core, ['replicationcontrollers/status']),
      rule(['update'], core, ['replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], core, ['pods']),
      events,
    ]],
    // Quota may count anything.
    ['resourcequota-controller', [
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['update'], core, ['resourcequotas/status']),
      events,
    ]],
    ['route-controller', [
      rule(['list', 'watch'], core, ['nodes']),
      rule(['patch'], core, ['nodes/status']),
      events,
    ]],
    ['service-account-controller', [
      rule(['create'], core, ['serviceaccounts']),
      events,
    ]],
    ['service-controller', [
      rule(READ, core, ['services']),
      rule(['patch', 'update'], core, ['services/status']),
      rule(['list', 'watch'], core, ['nodes']),
      events,
    ]],
    ['service-cidrs-controller', [
      rule(READ_UPDATE, [g.networking], ['servicecidrs']),
      rule(['patch', 'update'], [g.networking], ['servicecidrs/finalizers']),
      rule(['patch', 'update'], [g.networking], ['servicecidrs/status']),
      rule(READ, [g.networking], ['ipaddresses']),
      events,
    ]],
    ['statefulset-controller', [
      rule(['list', 'watch'], core, ['pods']),
      rule(READ, [g.apps], ['statefulsets']),
      rule(['update'], [g.apps], ['statefulsets/status']),
      rule(['update'], [g.apps], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], core, ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], [g.apps], ['controllerrevisions']),
      rule(['get', 'create', 'list', 'watch'], core, ['persistentvolumeclaims']),
      rule(['update', 'delete'], core, ['persistentvolumeclaims']),
      rule(['update'], core, ['pods/finalizers']),
      events,
    ]],
    ['ttl-controller', [
      rule(['update', 'patch', 'list', 'watch'], core, ['nodes']),
      events,
    ]],
    ['certificate-controller', [
      rule(['get', 'list', 'watch', 'delete'], [g.certificates], ['certificatesigningrequests']),
      rule(['update'], [g.certificates], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      rule(['approve'], [g.certificates], ['signers'], [signers.kubeApiserverClientKubelet]),
      rule(['sign'], [g.certificates], ['signers'],
        [signers.legacyUnknown, signers.kubeApiserverClient, signers.kubeApiserverClientKubelet, signers.kubeletServing]),
      rule(['create'], [g.authorization], ['subjectaccessreviews']),
      events,
    ]],
    ['pvc-protection-controller', [
      rule(['get', 'list', 'watch', 'update'], core, ['persistentvolumeclaims']),
      rule(['list', 'watch', 'get'], core, ['pods']),
      events,
    ]],
    ['pv-protection-controller', [
      rule(['get', 'list', 'watch', 'update'], core, ['persistentvolumes']),
      events,
    ]],
    ['volumeattributesclass-protection-controller', [
      rule(['list', 'watch', 'get'], core, ['persistentvolumeclaims']),
      rule(['list', 'watch', 'get'], core, ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], [g.storage], ['volumeattributesclasses']),
      events,
    ]],
    ['ttl-after-finished-controller', [
      rule(['get', 'list', 'watch', 'delete'], [g.batch], ['jobs']),
      events,
    ]],
    ['root-ca-cert-publisher', [
      rule(['create', 'update'], core, ['configmaps']),
      events,
    ]],
    ['validatingadmissionpolicy-status-controller', [
      rule(READ, [g.admissionRegistration], ['validatingadmissionpolicies']),
      rule(['get', 'patch', 'update'], [g.admissionRegistration], ['validatingadmissionpolicies/status']),
      events,
    ]],
    ['legacy-service-account-token-cleaner', [
      rule(['get'], core, ['configmaps'], [LEGACY_TOKEN_TRACKING_CONFIGMAP]),
      rule(['patch', 'delete'], core, ['secrets']),
    ]],
    ['selinux-warning-controller', [
      events,
      rule(READ, core, ['persistentvolumes']),
      rule(READ, core, ['persistentvolumeclaims']),
      rule(READ, core, ['pods']),
      rule(READ, [g.storage], ['csidrivers']),
    ]],
  ];
}

/** The controllers' ClusterRoles and the ClusterRoleBindings to their service accounts, without the bootstrap metadata. */
export function controllerRoles(naming: Naming): { roles: RoleObject[]; bindings: BindingObject[] } {
  const roles: RoleObject[] = [];
  const bindings: BindingObject[] = [];
  for (const [controller, rules] of controllerRules(naming)) {
    const name = `${CONTROLLER_ROLE_PREFIX}${controller}`;
    roles.push(role(name, rules));
    bindings.push(clusterBinding(naming, name, [serviceAccountSubject(naming.systemNamespace, controller)]));
  }
  return { roles, bindings };
}
