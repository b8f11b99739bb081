/**
 * The resource names a ResourceQuota may name and the scopes that apply to them, as Kubernetes'
 * pkg/apis/core/helper has them (IsStandardQuotaResourceName, IsIntegerResourceName,
 * IsResourceQuotaScopeValidForResource). Shared by the ResourceQuota kind's validation and the
 * quota evaluators of the ResourceQuota admission plugin and controller.
 */
import { isQualifiedName } from '../../meta/validation';

const STANDARD_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers']);

const STANDARD_QUOTA_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage',
  'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services',
  'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers']);

const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

/** IsQuotaHugePageResourceName: `hugepages-<size>` or `requests.hugepages-<size>`. */
export const isQuotaHugePageResourceName = (name: string): boolean => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');

/** IsStandardResourceName. */
export const isStandardResourceName = (name: string): boolean => STANDARD_RESOURCES.has(name) || isQuotaHugePageResourceName(name);

/** IsStandardQuotaResourceName. */
export const isStandardQuotaResourceName = (name: string): boolean => STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePageResourceName(name);

/** IsNativeResource: no domain, or a kubernetes.io one. */
export const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');

/** IsExtendedResourceName: a domain-qualified, non-native name that stays qualified under `requests.`. */
export const isExtendedResourceName = (name: string): boolean =>
  !isNativeResource(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;

/** IsIntegerResourceName: object counts and extended resources are whole numbers. */
export const isIntegerResourceName = (name: string): boolean => INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);

const POD_OBJECT_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** IsResourceQuotaScopeValidForResource. */
export function isScopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating': case 'NotTerminating': case 'NotBestEffort': case 'PriorityClass': case 'CrossNamespacePodAffinity':
      return POD_OBJECT_COUNT.has(resource) || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return POD_OBJECT_COUNT.has(resource);
    default:
      return true;
  }
}

/** The scopes Kubernetes knows (IsStandardResourceQuotaScope). */
export const STANDARD_QUOTA_SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity']);
