/**
 * Typed access to a CustomResourceDefinition's JSON, and the view Kubernetes validates: its
 * internal type, where a per-version field (schema, subresources, printer columns, selectable
 * fields) that is the same in every version moves to the top of the spec. That move decides the
 * field paths of errors (`spec.validation.openAPIV3Schema...` for one version).
 */
import { ApiObject } from '../../../scheme/types';

export interface CrdNames {
  plural?: string; singular?: string; shortNames?: string[]; kind?: string; listKind?: string; categories?: string[];
}
export interface CrdScale { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string }
export interface CrdSubresources { status?: unknown; scale?: CrdScale }
export interface CrdColumn {
  name?: string; type?: string; format?: string; description?: string; priority?: number; jsonPath?: string;
}
export interface CrdVersion {
  name?: string; served?: boolean; storage?: boolean; deprecated?: boolean; deprecationWarning?: string;
  schema?: { openAPIV3Schema?: unknown }; subresources?: CrdSubresources;
  additionalPrinterColumns?: CrdColumn[]; selectableFields?: { jsonPath?: string }[];
}
export interface CrdServiceReference { namespace?: string; name?: string; path?: string; port?: number }
export interface CrdClientConfig { url?: string; service?: CrdServiceReference; caBundle?: string }
export interface CrdConversion {
  strategy?: string; webhook?: { clientConfig?: CrdClientConfig; conversionReviewVersions?: string[] };
}
export interface CrdSpec {
  group?: string; names?: CrdNames; scope?: string; versions?: CrdVersion[]; conversion?: CrdConversion;
  preserveUnknownFields?: boolean;
}
export interface CrdCondition {
  type?: string; status?: string; lastTransitionTime?: string; reason?: string; message?: string;
}
export interface CrdStatus { conditions?: CrdCondition[]; acceptedNames?: CrdNames; storedVersions?: string[] }

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const objectOr = <T>(v: unknown): T => (isObject(v) ? v : {}) as T;

/** The spec (an empty one when absent or not an object). */
export const crdSpec = (obj: ApiObject): CrdSpec => objectOr<CrdSpec>(obj.spec);
export const crdStatus = (obj: ApiObject): CrdStatus => objectOr<CrdStatus>(obj.status);
export const crdNames = (spec: CrdSpec): CrdNames => objectOr<CrdNames>(spec.names);
/** The versions, a non-object entry read as an empty version (reported, never a crash). */
export const crdVersions = (spec: CrdSpec): CrdVersion[] =>
  (Array.isArray(spec.versions) ? spec.versions : []).map((v) => objectOr<CrdVersion>(v));

/** The name of the version marked as storage (the first one, as Kubernetes reads it). */
export function storageVersionOf(obj: ApiObject): string | undefined {
  return crdVersions(crdSpec(obj)).find((v) => v.storage === true)?.name;
}

const isEmpty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

/** Kubernetes' semantic equality on JSON: absent, null and empty lists are the same value. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => semanticEqual(a[k], b[k]));
  }
  return a === b;
}

type PerVersionField = 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields';

/** The internal type's view of the per-version fields: which are lifted to the top of the spec. */
export interface CrdInternalView {
  versions: CrdVersion[];
  /** Set when the field is the same in every version: its value, lifted (maybe empty). */
  lifted: Partial<Record<PerVersionField, { value: unknown }>>;
}

/** Kubernetes' v1-to-internal conversion of the per-version fields. */
export function internalView(spec: CrdSpec): CrdInternalView {
  const versions = crdVersions(spec);
  const lifted: CrdInternalView['lifted'] = {};
  if (versions.length) {
    for (const f of ['schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'] as PerVersionField[]) {
      const first = versions[0][f];
      if (versions.every((v) => semanticEqual(v[f], first))) lifted[f] = { value: first };
    }
  }
  return { versions, lifted };
}
