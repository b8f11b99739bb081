/**
 * CustomResourceDefinition between apiextensions v1beta1 and v1 (the storage version), as
 * Kubernetes converts each through its internal type (apiextensions/v1/conversion.go, the
 * generated v1beta1 conversions) and defaults a v1beta1 request (v1beta1/defaults.go):
 * - v1beta1's top-level `validation`, `subresources`, `additionalPrinterColumns` (and
 *   `selectableFields`) are copied into every version at v1; read back, a per-version field
 *   that is the same in every version is lifted to the top and cleared from the versions;
 * - `spec.version` is the first version's name (a v1beta1 spec with only `version` has one
 *   served storage version of that name);
 * - a printer column's `JSONPath` is v1's `jsonPath`;
 * - `conversion.webhookClientConfig` and `conversion.conversionReviewVersions` are v1's
 *   `conversion.webhook.clientConfig` and `.conversionReviewVersions`;
 * - `preserveUnknownFields` is a pointer at v1beta1 (defaulted to true on a request) and a
 *   bool at v1 (absent when false): read at v1beta1 it is always set.
 * Metadata and status have the same shape at both versions.
 */
import { ApiObject } from '../../../scheme/types';
import { semanticEqual } from './view';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null;
const nonEmptyList = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0;
const clone = <T>(v: T): T => structuredClone(v);

/** Copies the listed keys of `from` that are set, in that order. */
function pick(from: Json, keys: string[]): Json {
  const out: Json = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

const COLUMN_FIELDS = ['name', 'type', 'format', 'description', 'priority'];

function columnToV1(c: unknown): unknown {
  if (!isObject(c)) return c;
  const { JSONPath, ...rest } = c;
  return { ...pick(rest, COLUMN_FIELDS), ...(JSONPath !== undefined ? { jsonPath: JSONPath } : {}) };
}

function columnToV1beta1(c: unknown): unknown {
  if (!isObject(c)) return c;
  const { jsonPath, ...rest } = c;
  return { ...pick(rest, COLUMN_FIELDS), ...(jsonPath !== undefined ? { JSONPath: jsonPath } : {}) };
}

const columnsWith = (convert: (c: unknown) => unknown) => (v: unknown) => (Array.isArray(v) ? v.map(convert) : v);

const VERSION_FIELDS = ['name', 'served', 'storage', 'deprecated', 'deprecationWarning', 'schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'];

function versionWith(v: unknown, convertColumn: (c: unknown) => unknown): unknown {
  if (!isObject(v)) return v;
  const out = pick(v, VERSION_FIELDS);
  if (out.additionalPrinterColumns !== undefined) out.additionalPrinterColumns = columnsWith(convertColumn)(out.additionalPrinterColumns);
  return out;
}

function conversionToV1(c: unknown): unknown {
  if (!isObject(c)) return c;
  const out: Json = pick(c, ['strategy']);
  if (present(c.webhookClientConfig) || present(c.conversionReviewVersions)) {
    out.webhook = {
      ...(present(c.webhookClientConfig) ? { clientConfig: c.webhookClientConfig } : {}),
      ...(present(c.conversionReviewVersions) ? { conversionReviewVersions: c.conversionReviewVersions } : {}),
    };
  }
  return out;
}

function conversionToV1beta1(c: unknown): unknown {
  if (!isObject(c)) return c;
  const out: Json = pick(c, ['strategy']);
  const webhook = isObject(c.webhook) ? c.webhook : undefined;
  if (webhook && present(webhook.clientConfig)) out.webhookClientConfig = webhook.clientConfig;
  if (webhook && present(webhook.conversionReviewVersions)) out.conversionReviewVersions = webhook.conversionReviewVersions;
  return out;
}

/** The per-version fields v1beta1 also has at the top of the spec. */
const LIFTABLE = ['schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'] as const;
const TOP_LEVEL: Record<(typeof LIFTABLE)[number], string> = {
  schema: 'validation', subresources: 'subresources', additionalPrinterColumns: 'additionalPrinterColumns', selectableFields: 'selectableFields',
};

/** A v1beta1 spec as v1 has it (a copy). */
export function crdSpecToV1(spec: Json): Json {
  const out: Json = pick(spec, ['group', 'names', 'scope']);
  let versions = Array.isArray(spec.versions) ? spec.versions.map((v) => versionWith(v, columnToV1)) : spec.versions;
  if (!nonEmptyList(versions) && typeof spec.version === 'string' && spec.version) {
    versions = [{ name: spec.version, served: true, storage: true }];
  }
  if (Array.isArray(versions)) {
    for (const field of LIFTABLE) {
      const top = spec[TOP_LEVEL[field]];
      // Go copies a top-level list when it is non-nil; an empty one is dropped again by omitempty.
      const copies = field === 'additionalPrinterColumns' || field === 'selectableFields' ? nonEmptyList(top) : present(top);
      if (!copies) continue;
      const value = field === 'additionalPrinterColumns' ? columnsWith(columnToV1)(top) : top;
      for (const v of versions) if (isObject(v)) v[field] = clone(value);
    }
    // Back into v1's field order.
    versions = versions.map((v) => (isObject(v) ? pick(v, VERSION_FIELDS) : v));
  }
  if (versions !== undefined) out.versions = versions;
  if (spec.conversion !== undefined) out.conversion = conversionToV1(spec.conversion);
  if (spec.preserveUnknownFields === true) out.preserveUnknownFields = true;
  return out;
}

/** A v1 spec as v1beta1 has it (a copy). */
export function crdSpecToV1beta1(spec: Json): Json {
  const versions = Array.isArray(spec.versions) ? spec.versions.map((v) => versionWith(clone(v), columnToV1beta1)) : undefined;
  const top: Json = {};
  if (versions && versions.length) {
    const entries = versions.map((v) => (isObject(v) ? v : {}));
    for (const field of LIFTABLE) {
      const first = entries[0][field];
      if (!entries.every((v) => semanticEqual(v[field], first))) continue;
      if (present(first) && !(Array.isArray(first) && !first.length)) top[TOP_LEVEL[field]] = first;
      for (const v of entries) delete v[field];
    }
  }
  const out: Json = pick(spec, ['group']);
  const first = versions?.[0];
  if (isObject(first) && typeof first.name === 'string' && first.name) out.version = first.name;
  Object.assign(out, pick(spec, ['names', 'scope']), pick(top, ['validation', 'subresources']));
  if (versions !== undefined) out.versions = versions;
  Object.assign(out, pick(top, ['additionalPrinterColumns', 'selectableFields']));
  if (spec.conversion !== undefined) out.conversion = conversionToV1beta1(spec.conversion);
  out.preserveUnknownFields = spec.preserveUnknownFields === true;
  return out;
}

/** The object with its spec converted by `convert` and the apiVersion's version replaced. */
function withSpec(obj: ApiObject, convert: (spec: Json) => Json, version: string): ApiObject {
  const out: ApiObject = { ...obj };
  if (typeof obj.apiVersion === 'string') out.apiVersion = obj.apiVersion.replace(/\/[^/]*$/, `/${version}`);
  if (isObject(obj.spec)) out.spec = convert(obj.spec);
  return out;
}

/** A v1beta1 CustomResourceDefinition as stored (v1). */
export const crdToV1 = (obj: ApiObject): ApiObject => withSpec(obj, crdSpecToV1, 'v1');

/** A stored (v1) CustomResourceDefinition as v1beta1 serves it. */
export const crdToV1beta1 = (obj: ApiObject): ApiObject => withSpec(obj, crdSpecToV1beta1, 'v1beta1');

/** SetObjectDefaults_CustomResourceDefinition of v1beta1, in place (a request at v1beta1). */
export function defaultCrdV1beta1(obj: ApiObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  if (!spec.scope) spec.scope = 'Namespaced';
  if (isObject(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind) names.listKind = `${kind}List`;
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (!versions.length && typeof spec.version === 'string' && spec.version) {
    spec.versions = [{ name: spec.version, served: true, storage: true }];
  }
  const first = Array.isArray(spec.versions) ? spec.versions[0] : undefined;
  if (!spec.version && isObject(first) && typeof first.name === 'string') spec.version = first.name;
  if (!present(spec.conversion)) spec.conversion = { strategy: 'None' };
  const conversion = spec.conversion;
  if (isObject(conversion)) {
    if (conversion.strategy === 'Webhook' && !nonEmptyList(conversion.conversionReviewVersions)) conversion.conversionReviewVersions = ['v1beta1'];
    const service = isObject(conversion.webhookClientConfig) ? conversion.webhookClientConfig.service : undefined;
    if (isObject(service) && !present(service.port)) service.port = 443;
  }
  if (!present(spec.preserveUnknownFields)) spec.preserveUnknownFields = true;
  if (present(obj.status) && !isObject(obj.status)) return;
  const status = (obj.status ?? {}) as Json;
  if (!nonEmptyList(status.storedVersions)) {
    const storage = (Array.isArray(spec.versions) ? spec.versions : []).find((v) => isObject(v) && v.storage === true) as Json | undefined;
    if (storage) {
      status.storedVersions = [storage.name];
      obj.status = status;
    }
  }
}
