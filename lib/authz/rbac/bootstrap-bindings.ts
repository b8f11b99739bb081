/**
 * The default ClusterRoleBindings (Kubernetes' bootstrappolicy ClusterRoleBindings): who holds
 * the default ClusterRoles. Discovery and self-review are for authenticated users only (since
 * Kubernetes 1.14); health and version are public.
 */
import { Naming } from '../../naming';
import { BindingObject } from '../../registry/rbac/types';
import {
  ALL_AUTHENTICATED, ALL_SERVICE_ACCOUNTS, ALL_UNAUTHENTICATED, KUBE_CONTROLLER_MANAGER, KUBE_PROXY, KUBE_SCHEDULER, MONITORING_GROUP,
  SYSTEM_MASTERS, clusterBinding, groupSubject, serviceAccountSubject, userSubject,
} from './bootstrap-policy';

/** Every default ClusterRoleBinding but the controllers' (bootstrap-controller-roles.ts), without the bootstrap metadata. */
export function clusterRoleBindings(naming: Naming): BindingObject[] {
  const group = (name: string) => groupSubject(naming, name);
  const user = (name: string) => userSubject(naming, name);
  return [
    clusterBinding(naming, 'cluster-admin', [group(SYSTEM_MASTERS)]),
    clusterBinding(naming, 'system:monitoring', [group(MONITORING_GROUP)]),
    clusterBinding(naming, 'system:discovery', [group(ALL_AUTHENTICATED)]),
    clusterBinding(naming, 'system:basic-user', [group(ALL_AUTHENTICATED)]),
    clusterBinding(naming, 'system:public-info-viewer', [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)]),
    clusterBinding(naming, 'system:node-proxier', [user(KUBE_PROXY)]),
    clusterBinding(naming, 'system:kube-controller-manager', [user(KUBE_CONTROLLER_MANAGER)]),
    clusterBinding(naming, 'system:kube-dns', [serviceAccountSubject(naming.systemNamespace, 'kube-dns')]),
    clusterBinding(naming, 'system:kube-scheduler', [user(KUBE_SCHEDULER)]),
    clusterBinding(naming, 'system:volume-scheduler', [user(KUBE_SCHEDULER)]),
    // Without subjects since the Node authorizer (1.7): nodes get their rights from the Node mode.
    clusterBinding(naming, 'system:node', []),
    // Workloads may read the service-account issuer's discovery document and keys.
    clusterBinding(naming, 'system:service-account-issuer-discovery', [group(ALL_SERVICE_ACCOUNTS)]),
  ];
}
