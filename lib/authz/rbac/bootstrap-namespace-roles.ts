/**
 * The default Roles and RoleBindings of the system and public namespaces (Kubernetes'
 * namespace_policy.go): reading the authentication ConfigMap for extension servers, leader
 * locking for the controller manager and scheduler, and the bootstrap signer's and token
 * cleaner's access to bootstrap-token Secrets and the cluster-info ConfigMap.
 */
import { Naming } from '../../naming';
import { AUTHENTICATION_CONFIGMAP } from '../../registry/core/configmaps/definition';
import { BindingObject, RoleObject } from '../../registry/rbac/types';
import {
  CONTROLLER_ROLE_PREFIX, KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, READ, eventsRule, namespacedBinding, policyGroups, role, rule,
  serviceAccountSubject, userSubject,
} from './bootstrap-policy';

/** The ConfigMap of the public namespace that the bootstrap signer signs. */
const CLUSTER_INFO_CONFIGMAP = 'cluster-info';

/** The namespaced defaults, without the bootstrap metadata. */
export function namespaceRoles(naming: Naming): { roles: RoleObject[]; bindings: BindingObject[] } {
  const g = policyGroups(naming);
  const core = [g.core];
  const system = naming.systemNamespace;
  const inSystem = { namespace: system };
  const inPublic = { namespace: naming.publicNamespace };
  const sa = (name: string) => serviceAccountSubject(system, name);
  const user = (name: string) => userSubject(naming, name);
  const signer = `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`;
  const cloudProvider = `${CONTROLLER_ROLE_PREFIX}cloud-provider`;
  const tokenCleaner = `${CONTROLLER_ROLE_PREFIX}token-cleaner`;
  const lockingControllerManager = 'system::leader-locking-kube-controller-manager';
  const lockingScheduler = 'system::leader-locking-kube-scheduler';
  const authReader = 'extension-apiserver-authentication-reader';
  return {
    roles: [
      role(authReader, [rule(READ, core, ['configmaps'], [AUTHENTICATION_CONFIGMAP])], inSystem),
      // Reads bootstrap-token Secrets to sign cluster-info with them.
      role(signer, [rule(READ, core, ['secrets'])], inSystem),
      // Deprecated since Kubernetes 1.10, still shipped.
      role(cloudProvider, [rule(['create', 'get', 'list', 'watch'], core, ['configmaps'])], inSystem),
      role(tokenCleaner, [rule(['get', 'list', 'watch', 'delete'], core, ['secrets']), eventsRule(g)], inSystem),
      role(lockingControllerManager, [
        rule(['watch'], core, ['configmaps']),
        rule(['get', 'update'], core, ['configmaps'], ['kube-controller-manager']),
        rule(['get', 'watch', 'list', 'create', 'update'], [g.coordination], ['leases']),
      ], inSystem),
      role(lockingScheduler, [
        rule(['watch'], core, ['configmaps']),
        rule(['get', 'update'], core, ['configmaps'], ['kube-scheduler']),
      ], inSystem),
      role(signer, [
        rule(READ, core, ['configmaps']),
        rule(['update'], core, ['configmaps'], [CLUSTER_INFO_CONFIGMAP]),
        eventsRule(g),
      ], inPublic),
    ],
    bindings: [
      namespacedBinding(naming, system, authReader, [user(KUBE_CONTROLLER_MANAGER), user(KUBE_SCHEDULER)], `system::${authReader}`),
      namespacedBinding(naming, system, lockingControllerManager,
        [user(KUBE_CONTROLLER_MANAGER), sa('kube-controller-manager'), sa('leader-election-controller')]),
      namespacedBinding(naming, system, lockingScheduler, [user(KUBE_SCHEDULER), sa('kube-scheduler')]),
      namespacedBinding(naming, system, signer, [sa('bootstrap-signer')]),
      namespacedBinding(naming, system, cloudProvider, [sa('cloud-provider')]),
      namespacedBinding(naming, system, tokenCleaner, [sa('token-cleaner')]),
      namespacedBinding(naming, naming.publicNamespace, signer, [sa('bootstrap-signer')]),
    ],
  };
}
