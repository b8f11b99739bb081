/**
 * HorizontalPodAutoscaler (autoscaling, namespaced, short name `hpa`, category `all`), served at
 * v2 (preferred, the storage version) and v1 over the same objects. Status is reset on create and
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
import { canonicalizeHpaV2, normalizeStatusV2, setDefaultsV1, setDefaultsV2 } from './defaults';
import { hpaSchemaV1 } from './schema-v1';
import { hpaSchemaV2 } from './schema-v2';
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

/** The v1 object as its v2 form, changed by `change`, and back (in place). */
function viaV2(obj: ApiObject, change: (v2: ApiObject) => void): void {
  const v2 = hpaV1ToV2(obj);
  change(v2);
  replaceContents(obj, hpaV2ToV1(v2));
}

const v2Of = (obj: ApiObject): ApiObject => storedShape(hpaV1ToV2(obj));

const v1Strategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  checkDecode: (obj) => decodeProblem(obj, hpaSchemaV1, KIND) ?? annotationProblem(obj),
  default: setDefaultsV1,
  prepareForCreate: (obj) => { setDefaultsV1(obj); viaV2(obj, (v2) => { v2.status = {}; storedShape(v2); }); },
  prepareForUpdate: (obj, old) => { setDefaultsV1(obj); viaV2(obj, (v2) => { v2.status = hpaV1ToV2(old).status; storedShape(v2); }); },
  validate: (obj) => validateHpa(hpaV1ToV2(obj)),
  validateUpdate: (obj, old) => { const v2 = hpaV1ToV2(obj); return [...validateHpaUpdate(v2, hpaV1ToV2(old)), ...validateHpaStatus(v2)]; },
  canonicalize: (obj) => viaV2(obj, canonicalizeHpaV2),
};

/** `/status` at v1: the status the incoming v1 object stands for (annotations included) over the stored one. */
const v1Status: SubresourceDef = {
  name: 'status', kind: KIND, verbs: ['get', 'patch', 'update'],
  applyUpdate: (incoming, current) => {
    const status = normalizeStatusV2(objectOr(hpaV1ToV2(incoming).status) as Json);
    return hpaV2ToV1({ ...hpaV1ToV2(current), status });
  },
};

/** v1 reads convert the stored v2 objects; v1 writes store their v2 form. */
const v1Versioning: ObjectVersioning = {
  fromStorage: async (objects) => objects.map((o) => { const v2 = storedShape(structuredClone(o)); canonicalizeHpaV2(v2); return hpaV2ToV1(v2); }),
  toStorage: async (object) => { const v2 = v2Of(object); canonicalizeHpaV2(v2); return v2; },
  servesStored: () => false,
};

/** autoscaling/v1 HorizontalPodAutoscaler, served over the v2 objects. */
export function horizontalPodAutoscalerV1Resource(): ResourceDef {
  return {
    ...base('v1'), schema: hpaSchemaV1, table: hpaTable(v2Of), subresources: [v1Status], strategy: v1Strategy,
    storageVersion: HPA_STORAGE_VERSION, versioning: v1Versioning,
  };
}
