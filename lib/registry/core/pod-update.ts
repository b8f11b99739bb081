/**
 * What an update may change in a Pod's spec (Kubernetes' ValidatePodUpdate, for the fields
 * served here): only container images; containers cannot be added or removed.
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { describeDiff, semanticEqual } from './semantic-equal';
import { Json, records, text } from './volumes/json-fields';

/** Kubernetes' list of the updatable fields, as its message prints it. */
const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** Errors of changing spec `old` into `spec` (both already defaulted). */
export function validatePodSpecUpdate(spec: Json, old: Json): FieldError[] {
  const containers = records(spec, 'containers');
  const oldContainers = records(old, 'containers');
  if (containers.length !== oldContainers.length) {
    return [fieldErrors.forbidden('spec.containers', 'pod updates may not add or remove containers')];
  }
  const errs: FieldError[] = [];
  containers.forEach((c, i) => {
    const image = text(c, 'image');
    const path = child(index('spec.containers', i), 'image');
    if (!image) errs.push(fieldErrors.required(path));
    if (image.trim().length !== image.length) errs.push(fieldErrors.invalid(path, image, 'must not have leading or trailing whitespace'));
  });
  if (semanticEqual(spec, old)) return errs;
  // Images may change: compare the rest with the old images put back.
  const munged: Json = { ...spec, containers: containers.map((c, i) => ({ ...c, image: oldContainers[i].image })) };
  if (!semanticEqual(munged, old)) {
    errs.push(fieldErrors.forbidden('spec',
      `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${describeDiff(old, munged, 'core.PodSpec')}`));
  }
  return errs;
}
