/**
 * Which requests the Pod plugins act on, and their refusals worded as Kubernetes' plugins word
 * them: admission.NewForbidden (the request's name, else the object's name or generateName,
 * else `Unknown`) and apierrors.NewForbidden with the pod's own name (`pods is forbidden: ...`
 * when it has none).
 */
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, errors } from '../../meta/api-errors';

/** A write to a core Pod itself (or to one of `subresources`) that carries an object. */
export function isPodWrite(attrs: AdmissionAttributes, subresources: string[] = []): boolean {
  if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods' || !attrs.object) return false;
  return !attrs.subresource || subresources.includes(attrs.subresource);
}

const PODS = { group: '', resource: 'pods' };

/** Kubernetes' admission.NewForbidden for a pod request. */
export function admissionForbidden(attrs: AdmissionAttributes, why: string): ApiError {
  const meta = attrs.object?.metadata;
  const name = attrs.name || meta?.name || meta?.generateName || 'Unknown';
  return errors.forbidden(PODS, name, why);
}

/** Kubernetes' apierrors.NewForbidden(pods, pod.Name, why), as several plugins call it. */
export function podForbidden(podName: string, why: string): ApiError {
  if (podName) return errors.forbidden(PODS, podName, why);
  return new ApiError(403, 'Forbidden', `pods is forbidden: ${why}`, { kind: 'pods' });
}

