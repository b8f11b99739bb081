/**
 * The name checks ValidateLimitRange applies (pkg/apis/core/validation): the limit type
 * (validateLimitRangeTypeName) and each resource name, container resource names for the Pod and
 * Container types (validateContainerResourceName) and any standard or qualified resource name
 * for the others (validateResourceName). As in Go, a name failing both the standard and the
 * container check gets both errors.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isQualifiedName } from '../../../meta/validation';

const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([...CONTAINER_RESOURCES, 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers']);
export const STANDARD_LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
export const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsExtendedResourceName. */
const isExtended = (name: string): boolean => !isNativeResource(name) && !name.startsWith('requests.') && !isQualifiedName(`requests.${name}`).length;
/** helper.IsOvercommitAllowed: native resources other than huge pages. */
export const overcommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePages(name);

/** validateResourceName: a qualified name, standard when it has no domain. */
function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (errs.length) return errs;
  const standard = STANDARD_RESOURCES.has(name) || isHugePages(name) || name.startsWith('requests.hugepages-');
  if (!name.includes('/') && !standard) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified'));
  return errs;
}

/** validateContainerResourceName: validateResourceName, then a container resource or an extended one. */
function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!CONTAINER_RESOURCES.has(name) && !isHugePages(name)) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtended(name)) {
    errs.push(fieldErrors.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** validateLimitRangeResourceName: container names for Pod and Container, any resource name otherwise. */
export function validateLimitRangeResourceName(type: string, name: string, path: string): FieldError[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, path) : validateResourceName(name, path);
}

/** validateLimitRangeTypeName: a qualified name, one of the standard types when it has no domain. */
export function validateLimitRangeTypeName(type: string, path: string): FieldError[] {
  const errs = isQualifiedName(type).map((m) => fieldErrors.invalid(path, type, m));
  if (errs.length) return errs;
  if (!type.includes('/') && !STANDARD_LIMIT_TYPES.includes(type)) {
    errs.push(fieldErrors.invalid(path, type, 'must be a standard limit type or fully qualified'));
  }
  return errs;
}
