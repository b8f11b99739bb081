/**
 * Kubernetes' admission.NewForbidden for the plugins of this folder: 403 Forbidden naming the
 * resource and the object (`persistentvolumeclaims "data" is forbidden: <why>`). Before a name
 * is drawn the object's generateName stands in, and `Unknown` when there is neither.
 */
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { errors } from '../../meta/api-errors';

/** The name admission errors give the object of `attrs`. */
export function admissionObjectName(attrs: AdmissionAttributes): string {
  if (attrs.name) return attrs.name;
  const meta = attrs.object?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

/** 403 Forbidden for `attrs` with Kubernetes' sentence. */
export function admissionForbidden(attrs: AdmissionAttributes, why: string) {
  return errors.forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, admissionObjectName(attrs), why);
}
