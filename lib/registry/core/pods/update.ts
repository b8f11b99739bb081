/**
 * What an update may change in a Pod's spec (Kubernetes' ValidatePodUpdate): container and
 * init container images, activeDeadlineSeconds (set, or lowered), tolerations (additions, and
 * tolerationSeconds of existing ones), scheduling gates (removals), terminationGracePeriodSeconds
 * (to 1 when it was negative) and, while the pod is gated, additions to its nodeSelector.
 * Containers cannot be added or removed.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { describeDiff, semanticEqual } from '../semantic-equal';
import { Json, isObject, records, text } from '../json-fields';

/** Kubernetes' list of the updatable fields, as its message prints it. */
const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];
const MAX_INT32 = 2147483647;

/** ValidateContainerUpdates: same count; every image set and without surrounding spaces. `stop` when the counts differ. */
function validateContainerUpdates(containers: Json[], old: Json[], path: string): { errs: FieldError[]; stop: boolean } {
  if (containers.length !== old.length) return { errs: [fieldErrors.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  containers.forEach((c, i) => {
    const image = text(c, 'image');
    const at = child(index(path, i), 'image');
    if (!image) errs.push(fieldErrors.required(at));
    if (image.trim().length !== image.length) errs.push(fieldErrors.invalid(at, image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

function validateActiveDeadline(spec: Json, old: Json): FieldError[] {
  const now = spec.activeDeadlineSeconds;
  const before = old.activeDeadlineSeconds;
  const path = 'spec.activeDeadlineSeconds';
  if (typeof now === 'number') {
    if (now < 0 || now > MAX_INT32) return [fieldErrors.invalid(path, now, `must be between 0 and ${MAX_INT32}, inclusive`)];
    if (typeof before === 'number' && before < now) return [fieldErrors.invalid(path, now, 'must be less than or equal to previous value')];
  } else if (typeof before === 'number') {
    return [fieldErrors.invalid(path, null, 'must not update from a positive integer to nil value')];
  }
  return [];
}

/** validateOnlyAddedTolerations: every old toleration still there, tolerationSeconds aside. */
function validateOnlyAddedTolerations(now: Json[], old: Json[]): FieldError[] {
  const sameBut = (a: Json, b: Json) => semanticEqual({ ...a, tolerationSeconds: undefined }, { ...b, tolerationSeconds: undefined });
  const kept = old.every((o) => now.some((n) => sameBut(o, n)));
  return kept ? [] : [fieldErrors.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
}

/** validateOnlyDeletedSchedulingGates. */
function validateOnlyDeletedSchedulingGates(now: Json[], old: Json[]): FieldError[] {
  const oldNames = new Set(old.map((g) => text(g, 'name')));
  return now.flatMap((g, i) => (oldNames.has(text(g, 'name')) ? [] : [fieldErrors.forbidden(
    child(index('spec.schedulingGates', i), 'name'), `only deletion is allowed, but found new scheduling gate '${text(g, 'name')}'`)]));
}

/** Errors of changing spec `old` into `spec` (both already defaulted). */
export function validatePodSpecUpdate(spec: Json, old: Json): FieldError[] {
  const regular = validateContainerUpdates(records(spec, 'containers'), records(old, 'containers'), 'spec.containers');
  if (regular.stop) return regular.errs;
  const init = validateContainerUpdates(records(spec, 'initContainers'), records(old, 'initContainers'), 'spec.initContainers');
  const errs = [...regular.errs, ...init.errs];
  if (init.stop) return errs;
  errs.push(...validateActiveDeadline(spec, old));
  errs.push(...validateOnlyAddedTolerations(records(spec, 'tolerations'), records(old, 'tolerations')));
  errs.push(...validateOnlyDeletedSchedulingGates(records(spec, 'schedulingGates'), records(old, 'schedulingGates')));
  if (semanticEqual(spec, old)) return errs;
  // The updatable fields are put back to their old values; what still differs may not change.
  const withOldImages = (key: string) => records(spec, key).map((c, i) => ({ ...c, image: records(old, key)[i].image }));
  const munged: Json = {
    ...spec,
    containers: withOldImages('containers'),
    ...(Array.isArray(spec.initContainers) ? { initContainers: withOldImages('initContainers') } : {}),
    activeDeadlineSeconds: old.activeDeadlineSeconds,
    schedulingGates: old.schedulingGates,
    tolerations: old.tolerations,
  };
  const oldGrace = old.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace;
  if (records(old, 'schedulingGates').length && !semanticEqual(munged.nodeSelector, old.nodeSelector)) {
    const before = isObject(old.nodeSelector) ? old.nodeSelector : {};
    const after = isObject(munged.nodeSelector) ? munged.nodeSelector : {};
    if (Object.entries(before).some(([k, v]) => after[k] !== v)) {
      errs.push(fieldErrors.invalid('spec.nodeSelector', after, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
    }
    munged.nodeSelector = old.nodeSelector;
  }
  for (const key of Object.keys(munged)) if (munged[key] === undefined) delete munged[key];
  if (!semanticEqual(munged, old)) {
    errs.push(fieldErrors.forbidden('spec',
      `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${describeDiff(old, munged, 'core.PodSpec')}`));
  }
  return errs;
}
