/**
 * The `pods/ephemeralcontainers` subresource (get, update, patch; the body is the Pod), as
 * Kubernetes 1.32's podEphemeralContainersStrategy: a write takes over only
 * spec.ephemeralContainers (dropNonEphemeralContainerUpdates: everything else stays as stored),
 * and ValidatePodEphemeralContainersUpdate allows only additions: an existing ephemeral container
 * may be neither removed nor changed, and a mirror (static) pod takes none. The new containers are
 * defaulted and validated as ephemeral containers by the pod spec's rules (no ports, probes,
 * lifecycle or resources; a target container that exists; a name not in use).
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { ApiObject, SubresourceDef } from '../../../scheme/types';
import { Json, isObject, records, text } from '../json-fields';
import { describeDiff, semanticEqual } from '../semantic-equal';
import { VolumeRules } from '../volumes/volume-list';
import { defaultPod } from '../pod-spec/defaults';
import { validatePodSpec } from '../pod-spec/spec-validation';

const PATH = 'spec.ephemeralContainers';

/** ValidatePodEphemeralContainersUpdate's own rules (the spec is validated by the caller). */
export function validateEphemeralContainersUpdate(obj: ApiObject, old: ApiObject, mirrorAnnotation: string): FieldError[] {
  if (Object.hasOwn(old.metadata?.annotations ?? {}, mirrorAnnotation)) {
    return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
  }
  const spec = isObject(obj.spec) ? obj.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  const byName = new Map(records(spec, 'ephemeralContainers').map((c) => [text(c, 'name'), c]));
  const errs: FieldError[] = [];
  for (const before of records(oldSpec, 'ephemeralContainers')) {
    const name = text(before, 'name');
    const now = byName.get(name);
    if (!now) errs.push(fieldErrors.forbidden(PATH, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!semanticEqual(before, now)) {
      errs.push(fieldErrors.forbidden(PATH, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${describeDiff(before, now, 'core.EphemeralContainer')}`));
    }
  }
  return errs;
}

/** The subresource of the Pod kind; `volumes` are the pod spec's volume rules, `mirrorAnnotation` the flavor's. */
export function ephemeralContainersSubresource(volumes: VolumeRules, mirrorAnnotation: string): SubresourceDef {
  return {
    name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'],
    applyUpdate: (incoming, current) => {
      const spec = isObject(incoming.spec) ? incoming.spec : {};
      const containers = Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : undefined;
      const next: ApiObject = { ...current, spec: { ...(isObject(current.spec) ? current.spec : {}) } };
      const nextSpec = next.spec as Json;
      if (containers?.length) nextSpec.ephemeralContainers = containers;
      else delete nextSpec.ephemeralContainers;
      defaultPod(next as Json, volumes);
      return next;
    },
    validateUpdate: (obj, old) => [
      ...validatePodSpec(isObject(obj.spec) ? obj.spec : {}, { path: 'spec', podName: obj.metadata?.name ?? '', isPod: true }, volumes),
      ...validateEphemeralContainersUpdate(obj, old, mirrorAnnotation),
    ],
  };
}
