/**
 * Writes the server's structural schemas (lib/scheme/schema.ts) as OpenAPI schema objects, for
 * the v3 document (`#/components/schemas/...`) or the v2 one (`#/definitions/...`).
 *
 * Shared schema objects (ObjectMeta, OwnerReference, ...) are written once as definitions and
 * referenced by identity; date-time strings reference `Time`, as in Kubernetes. Stored
 * `x-kubernetes-*` extensions are written under the flavor's prefixes (extensions.ts).
 */
import { Naming } from '../../naming';
import { Schema } from '../../scheme/schema';
import { namedTypeOf } from '../../scheme/type-names';
import { STORED_PREFIX, vendorExtensions } from './extensions';
import { metaNames } from './schema-names';
import { runAtOnce } from './time-slice';

export type Dialect = 'v2' | 'v3';

/** A JSON object of the document being built. */
export type Json = Record<string, unknown>;

export interface SchemaWriter {
  dialect: Dialect;
  naming: Naming;
  /** Schema objects written as a reference to the named definition wherever they appear inside another schema. */
  named: Map<Schema, string>;
  /**
   * Named Go types (lib/scheme/type-names.ts) referred to so far, by definition name: the
   * document adds their definitions (`typeDefinitions`).
   */
  used?: Map<string, Schema>;
}

export function refPath(dialect: Dialect, name: string): string {
  return dialect === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}`;
}

/**
 * A reference to a definition. With siblings, v3 wraps it in `allOf` (OpenAPI 3.0 ignores the
 * siblings of a `$ref`) as kube-apiserver does; v2 keeps `$ref` beside the description.
 */
export function ref(w: Pick<SchemaWriter, 'dialect'>, name: string, siblings: { description?: string; default?: unknown; extensions?: Json } = {}): Json {
  const $ref = refPath(w.dialect, name);
  const description = siblings.description ? { description: siblings.description } : {};
  const extensions = siblings.extensions ?? {};
  if (w.dialect === 'v2') return { $ref, ...description, ...extensions };
  if (siblings.default === undefined && !siblings.description && !Object.keys(extensions).length) return { $ref };
  return { allOf: [{ $ref }], ...(siblings.default !== undefined ? { default: siblings.default } : {}), ...description, ...extensions };
}

const isTime = (s: Schema): boolean => s.type === 'string' && s.format === 'date-time';

/** The schema's `x-kubernetes-*` keys without their prefix. */
function storedExtensions(s: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (key.startsWith(STORED_PREFIX) && value !== undefined) out[key.slice(STORED_PREFIX.length)] = value;
  }
  return out;
}

/**
 * `s` as an OpenAPI schema object. `root` writes a named schema's own body (its definition)
 * instead of a reference to it.
 */
export function writeSchema(w: SchemaWriter, s: Schema, root = false): Json {
  if (!root) {
    const name = w.named.get(s);
    // Struct-valued fields default to {} in Kubernetes' documents; an embedded object of any
    // kind (RawExtension, FieldsV1) has no zero value to default to.
    if (name) return ref(w, name, { default: s.type === 'object' && !s['x-kubernetes-preserve-unknown-fields'] ? {} : undefined });
    if (isTime(s)) return ref(w, metaNames.time, { description: s.description });
    const typed = namedTypeOf(s);
    if (typed) return typeRef(w, s, typed.name, typed.type);
  }
  const out: Json = {};
  if (s.description) out.description = s.description;
  if (s.type) out.type = s.type;
  if (s.format) out.format = s.format;
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, writeSchema(w, v)]));
  if (s.additionalProperties) out.additionalProperties = writeSchema(w, s.additionalProperties);
  if (s.items) out.items = writeSchema(w, s.items);
  if (s.required?.length) out.required = [...s.required];
  if (s.enum) out.enum = [...s.enum];
  if (s.default !== undefined) out.default = s.default;
  Object.assign(out, vendorExtensions(w.naming, storedExtensions(s)));
  return out;
}

/** A reference to the named Go type `type` from the field `field` (the type itself or a field of it). */
function typeRef(w: SchemaWriter, field: Schema, name: string, type: Schema): Json {
  w.used ??= new Map();
  w.used.set(name, type);
  const own = storedExtensions(field);
  const base = storedExtensions(type);
  const extensions = Object.fromEntries(Object.entries(own).filter(([k, v]) => JSON.stringify(base[k]) !== JSON.stringify(v)));
  return ref(w, name, {
    default: type.type === 'object' && !type['x-kubernetes-preserve-unknown-fields'] ? {} : undefined,
    description: field !== type && field.description !== type.description ? field.description : undefined,
    extensions: vendorExtensions(w.naming, extensions),
  });
}

/**
 * The definitions of the named Go types the document refers to, each written once; a type's
 * definition may refer to more types, which are written too.
 */
export function typeDefinitions(w: SchemaWriter): Record<string, Json> {
  return runAtOnce(typeDefinitionSteps(w));
}

/** typeDefinitions in steps (./time-slice.ts), one per type written. */
export function* typeDefinitionSteps(w: SchemaWriter): Generator<void, Record<string, Json>> {
  const out: Record<string, Json> = {};
  for (let pending = [...(w.used ?? new Map<string, Schema>())].filter(([n]) => !(n in out)); pending.length;
    pending = [...(w.used ?? new Map<string, Schema>())].filter(([n]) => !(n in out))) {
    for (const [name, type] of pending) {
      out[name] = writeSchema(w, type, true);
      yield;
    }
  }
  return out;
}
