/**
 * Kubernetes' ValidateRuntimeClass / ValidateRuntimeClassUpdate (pkg/apis/node/validation, 1.32)
 * over a RuntimeClass's JSON: the handler a DNS-1123 label (immutable); overhead.podFixed checked
 * as a container's limits are (Kubernetes reuses ValidateResourceRequirements, so its paths read
 * `overhead.limits[<name>]`); scheduling.nodeSelector as labels and scheduling.tolerations as a
 * pod's. Metadata is validated by the store.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Label, validateLabels } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';
import { validateResourceRequirements } from '../../core/pod-spec/resources';
import { validateTolerations } from '../../core/pod-spec/scheduling';
import { Json, isObject, records } from '../../core/json-fields';

const handlerOf = (obj: ApiObject): string => (typeof (obj as Json).handler === 'string' ? (obj as Json).handler as string : '');

/** ValidateRuntimeClass (less metadata). */
export function validateRuntimeClass(obj: ApiObject): FieldError[] {
  const o = obj as Json;
  const handler = handlerOf(obj);
  const errs = isDns1123Label(handler).map((m) => fieldErrors.invalid('handler', handler, m));
  if (isObject(o.overhead)) {
    const podFixed = isObject(o.overhead.podFixed) ? o.overhead.podFixed : {};
    errs.push(...validateResourceRequirements({ limits: podFixed }, 'overhead'));
  }
  if (isObject(o.scheduling)) {
    const s = o.scheduling;
    if (s.nodeSelector !== undefined && s.nodeSelector !== null) errs.push(...validateLabels(s.nodeSelector, 'scheduling.nodeSelector'));
    errs.push(...validateTolerations(records(s, 'tolerations'), 'scheduling.tolerations'));
  }
  return errs;
}

/** The strategy's ValidateUpdate: the object as on create, then the immutable handler. */
export function validateRuntimeClassUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs = validateRuntimeClass(obj);
  const handler = handlerOf(obj);
  if (handler !== handlerOf(old)) errs.push(fieldErrors.immutable('handler', handler));
  return errs;
}
