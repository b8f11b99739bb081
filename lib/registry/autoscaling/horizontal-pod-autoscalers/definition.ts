/**
 * HorizontalPodAutoscaler (autoscaling, namespaced, short name `hpa`, category `all`), served at
 * v2 (preferred, the storage version) and v1 over the same objects, and, when `--runtime-config`
 * switches them on, at the removed v2beta1 (by conversion, like v1) and v2beta2 (relabelled). Status is reset on create and
 * written only through `/status`, which keeps the spec; main-resource writes keep the status.
 * Kubernetes' HPA strategy does not track metadata.generation, so neither does this one. Updates
 * may be unconditional. kubectl's NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE table.
 *
 * v1 is served through conversion (conversion.ts): its strategy hooks convert to v2, do what
 * the v2 strategy does, and convert back, so defaults, validation (with v2 field paths, as
 * Kubernetes validates the internal object) and status handling are the same at both versions.
 * Reads, lists, watches and writes at v1 go through the def's `versioning` (the hook custom
 * resources use for conversion): stored v2 objects are served converted, v1 writes are stored as
 * their v2 form. served-version.ts (a relabelling only) is not enough for a change of shape.
 *
 * Not here: the HPA controller (kube-controller-manager's job).
 */
import { ApiObject, ObjectVersioning, ResourceDef, Strategy, SubresourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { AUTOSCALING_GROUP } from '../group';
import { annotationProblem, hpaV1ToV2, hpaV2ToV1 } from './conversion';
import { hpaV2ToV2beta1, hpaV2beta1ToV2 } from './conversion-v2beta1';
import { canonicalizeHpaV2, normalizeStatusV2, setDefaultsV1, setDefaultsV2 } from './defaults';
import { hpaSchemaV1 } from './schema-v1';
import { hpaSchemaV2, hpaSchemaV2beta2 } from './schema-v2';
import { hpaSchemaV2beta1 } from './schema-v2beta1';
import { Schema } from '../../../scheme/schema';
import { servedOverStorage } from '../../served-version';
import { hpaTable } from './table';
import { Json, objectOr } from './types';
import { validateHpa, validateHpaStatus, validateHpaUpdate } from './validation';

const KIND = 'HorizontalPodAutoscaler';
export const HPA_STORAGE_VERSION = 'v2';
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const base = (version: string): Omit<ResourceDef, 'schema' | 'strategy' | 'subresources' | 'table'> => ({
  group: AUTOSCALING_GROUP, version, kind: KIND, listKind: `${KIND}List`,
  resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'],
  verbs: VERBS, deleteReturnsStatus: false, nameValidation: 'dns-subdomain',
});

/** A v2 object as stored: defaulted, status in Go's shape. */
function storedShape(obj: ApiObject): ApiObject {
  setDefaultsV2(obj);
  obj.status = normalizeStatusV2(objectOr(obj.status));
  return obj;
}

/** The v2 strategy (Kubernetes' autoscalerStrategy over the v2 object). */
const v2Strategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  checkDecode: (obj) => decodeProblem(obj, hpaSchemaV2, KIND),
  default: setDefaultsV2,
  prepareForCreate: (obj) => { obj.status = {}; storedShape(obj); },
  prepareForUpdate: (obj, old) => { obj.status = old.status; storedShape(obj); },
  validate: (obj) => validateHpa(obj),
  // Main writes carry the stored status and /status writes the stored spec: checking both is
  // what each of Kubernetes' two strategies checks.
  validateUpdate: (obj, old) => [...validateHpaUpdate(obj, old), ...validateHpaStatus(obj)],
  canonicalize: canonicalizeHpaV2,
};

/** `/status` at v2: the incoming status over the stored object. */
const v2Status: SubresourceDef = {
  name: 'status', kind: KIND, verbs: ['get', 'patch', 'update'],
  applyUpdate: (incoming, current) => ({ ...current, status: normalizeStatusV2(objectOr(incoming.status)) }),
};

/** autoscaling/v2 HorizontalPodAutoscaler. */
export function horizontalPodAutoscalerV2Resource(): ResourceDef {
  return { ...base('v2'), schema: hpaSchemaV2, table: hpaTable((o) => o), subresources: [v2Status], strategy: v2Strategy };
}

/** Replaces the contents of `obj` by those of `next` (strategy hooks change their argument). */
function replaceContents(obj: ApiObject, next: ApiObject): void {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, next);
}

/** A version served by conversion to and from the stored v2 objects. */
interface ConvertedVersion {
  version: string;
  schema: Schema;
  toV2: (obj: ApiObject) => ApiObject;
  fromV2: (obj: ApiObject) => ApiObject;
  /** The version's own SetDefaults (the rest comes from v2's). */
  setDefaults: (obj: ApiObject) => void;
  /** A problem decoding the object beyond its schema (v1's round-trip annotations). */
  decodeProblem?: (obj: ApiObject) => string | undefined;
}

/**
 * The def of a version whose objects are v2's: its strategy hooks convert to v2, do what the v2
 * strategy does, and convert back; reads, lists and watches convert the stored v2 objects; writes
 * store their v2 form; `/status` takes the status the incoming object stands for.
 */
function servedThroughV2(c: ConvertedVersion): ResourceDef {
  const viaV2 = (obj: ApiObject, change: (v2: ApiObject) => void): void => {
    const v2 = c.toV2(obj);
    change(v2);
    replaceContents(obj, c.fromV2(v2));
  };
  const v2Of = (obj: ApiObject): ApiObject => storedShape(c.toV2(obj));
  const strategy: Strategy = {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    checkDecode: (obj) => decodeProblem(obj, c.schema, KIND) ?? c.decodeProblem?.(obj),
    default: c.setDefaults,
    prepareForCreate: (obj) => { c.setDefaults(obj); viaV2(obj, (v2) => { v2.status = {}; storedShape(v2); }); },
    prepareForUpdate: (obj, old) => { c.setDefaults(obj); viaV2(obj, (v2) => { v2.status = c.toV2(old).status; storedShape(v2); }); },
    validate: (obj) => validateHpa(c.toV2(obj)),
    validateUpdate: (obj, old) => { const v2 = c.toV2(obj); return [...validateHpaUpdate(v2, c.toV2(old)), ...validateHpaStatus(v2)]; },
    canonicalize: (obj) => viaV2(obj, canonicalizeHpaV2),
  };
  const status: SubresourceDef = {
    name: 'status', kind: KIND, verbs: ['get', 'patch', 'update'],
    applyUpdate: (incoming, current) => {
      const next = normalizeStatusV2(objectOr(c.toV2(incoming).status) as Json);
      return c.fromV2({ ...c.toV2(current), status: next });
    },
  };
  const versioning: ObjectVersioning = {
    fromStorage: async (objects) => objects.map((o) => { const v2 = storedShape(structuredClone(o)); canonicalizeHpaV2(v2); return c.fromV2(v2); }),
    toStorage: async (object) => { const v2 = v2Of(object); canonicalizeHpaV2(v2); return v2; },
    servesStored: () => false,
  };
  return {
    ...base(c.version), schema: c.schema, table: hpaTable(v2Of), subresources: [status], strategy,
    storageVersion: HPA_STORAGE_VERSION, versioning,
  };
}

/** autoscaling/v1 HorizontalPodAutoscaler, served over the v2 objects (round-trip annotations: conversion.ts). */
export function horizontalPodAutoscalerV1Resource(): ResourceDef {
  return servedThroughV2({
    version: 'v1', schema: hpaSchemaV1, toV2: hpaV1ToV2, fromV2: hpaV2ToV1, setDefaults: setDefaultsV1, decodeProblem: annotationProblem,
  });
}

/**
 * autoscaling/v2beta1 HorizontalPodAutoscaler (removed from Kubernetes in 1.25), served over the
 * v2 objects when `--runtime-config` switches it on: the older metric shape, behavior in an
 * annotation (conversion-v2beta1.ts); its defaults are v1's plus v2's through conversion.
 */
export function horizontalPodAutoscalerV2beta1Resource(): ResourceDef {
  return {
    ...servedThroughV2({ version: 'v2beta1', schema: hpaSchemaV2beta1, toV2: hpaV2beta1ToV2, fromV2: hpaV2ToV2beta1, setDefaults: setDefaultsV1 }),
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 22], removedIn: [1, 25], replacement: { group: AUTOSCALING_GROUP, version: 'v2', kind: KIND } },
  };
}

/**
 * autoscaling/v2beta2 HorizontalPodAutoscaler (removed from Kubernetes in 1.26), served over the
 * v2 objects when `--runtime-config` switches it on. Its fields and defaults (pkg/apis/autoscaling/
 * v2beta2/defaults.go: minReplicas 1, the 80% CPU metric, the behavior's unset rule fields with a
 * scale-down stabilization window left unset) are v2's: the objects are relabelled only.
 */
export function horizontalPodAutoscalerV2beta2Resource(): ResourceDef {
  return servedOverStorage({
    ...horizontalPodAutoscalerV2Resource(),
    version: 'v2beta2',
    schema: hpaSchemaV2beta2,
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 23], removedIn: [1, 26], replacement: { group: AUTOSCALING_GROUP, version: 'v2', kind: KIND } },
    strategy: { ...v2Strategy, checkDecode: (obj) => decodeProblem(obj, hpaSchemaV2beta2, KIND) },
  }, HPA_STORAGE_VERSION);
}
