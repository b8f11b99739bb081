/**
 * The structural model of a CRD's `openAPIV3Schema` (Kubernetes' `schema.Structural`): the
 * keywords that give a value its shape (type, properties, items, additionalProperties) and the
 * `x-kubernetes-*` extensions, with the JSON node it came from kept in `raw` so the value
 * validations (pattern, minimum, allOf, ...) can be compiled from it. Pruning, defaulting, the
 * CRD-time checks and the bridges to the server's Schema all walk this model.
 */

/** One node of a structural schema. */
export interface Structural {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  nullable?: boolean;
  /** True when the node declares `default` (the value may be any JSON, null excluded). */
  hasDefault?: boolean;
  default?: unknown;
  properties?: Record<string, Structural>;
  /** A schema for map values, or `true`/`false` as written. */
  additionalProperties?: Structural | boolean;
  items?: Structural;
  required?: string[];
  enum?: unknown[];
  xPreserveUnknownFields?: boolean;
  xEmbeddedResource?: boolean;
  xIntOrString?: boolean;
  xListType?: string;
  xListMapKeys?: string[];
  xMapType?: string;
  /** Present when the node carries `x-kubernetes-validations` (CEL rules, compiled and evaluated in lib/apiextensions/cel). */
  xValidations?: unknown[];
  /** The JSON schema node this was built from (never mutated). */
  raw: Record<string, unknown>;
}

/** A plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Keywords Kubernetes' NewStructural refuses outright (validateUnsupportedFields).
const UNSUPPORTED: [string, string][] = [
  ['id', 'id'], ['$schema', 'schema'], ['$ref', '$ref'], ['additionalItems', 'additionalItems'],
  ['patternProperties', 'patternProperties'], ['dependencies', 'dependencies'], ['definitions', 'definitions'],
];

/** The schema of the map values of `s`, when it has one. */
export function additionalSchema(s: Structural | undefined): Structural | undefined {
  const ap = s?.additionalProperties;
  return typeof ap === 'object' ? ap : undefined;
}

/**
 * Whether `s` or a schema below it (properties, additionalProperties, items) satisfies `test`,
 * remembered per schema node: the walks that act only on some nodes (embedded resources, set and
 * map lists, defaults) skip the subtrees that have none, rather than visiting every value there.
 */
function below(s: Structural, memo: WeakMap<Structural, boolean>, test: (n: Structural) => boolean): boolean {
  if (test(s)) return true;
  let has = memo.get(s);
  if (has === undefined) {
    const ap = additionalSchema(s);
    has = (s.properties !== undefined && Object.values(s.properties).some((p) => below(p, memo, test)))
      || (ap !== undefined && below(ap, memo, test)) || (s.items !== undefined && below(s.items, memo, test));
    memo.set(s, has);
  }
  return has;
}

const embeddedBelow = new WeakMap<Structural, boolean>();
const listCheckBelow = new WeakMap<Structural, boolean>();
const defaultBelow = new WeakMap<Structural, boolean>();
const isEmbedded = (n: Structural) => n.xEmbeddedResource === true;
const isSetOrMapList = (n: Structural) => n.xListType === 'set' || n.xListType === 'map';
const isDefaulted = (n: Structural) => n.hasDefault === true;

/** `s` or a schema below it is an embedded resource (x-kubernetes-embedded-resource). */
export function hasEmbeddedResource(s: Structural): boolean {
  return below(s, embeddedBelow, isEmbedded);
}

/** `s` or a schema below it is a list of type set or map (items checked for uniqueness). */
export function hasSetOrMapList(s: Structural): boolean {
  return below(s, listCheckBelow, isSetOrMapList);
}

/** `s` or a schema below it declares a default. */
export function hasDefaultBelow(s: Structural): boolean {
  return below(s, defaultBelow, isDefaulted);
}

/**
 * Builds the structural model from a CRD's `openAPIV3Schema` JSON. Throws an Error with
 * Kubernetes' words when the schema cannot be represented (items given as an array, keywords
 * structural schemas cannot hold); the caller reports it as `openAPIV3Schema: Invalid value`.
 */
export function toStructural(schema: unknown): Structural {
  if (!isObject(schema)) throw new Error('OpenAPIV3Schema must be an object');
  for (const [key, name] of UNSUPPORTED) {
    if (schema[key] !== undefined) throw new Error(`OpenAPIV3Schema '${name}' is not supported`);
  }
  const s: Structural = { raw: schema };
  const str = (k: string): string | undefined => {
    const v = schema[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new Error(`OpenAPIV3Schema '${k}' must be a string`);
    return v;
  };
  const flag = (k: string): boolean | undefined => {
    const v = schema[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw new Error(`OpenAPIV3Schema '${k}' must be a boolean`);
    return v;
  };
  s.type = str('type') || undefined;
  s.format = str('format') || undefined;
  s.description = str('description') || undefined;
  s.title = str('title') || undefined;
  if (flag('nullable')) s.nullable = true;
  if (schema.default !== undefined && schema.default !== null) { s.hasDefault = true; s.default = schema.default; }
  if (flag('x-kubernetes-preserve-unknown-fields')) s.xPreserveUnknownFields = true;
  if (flag('x-kubernetes-embedded-resource')) s.xEmbeddedResource = true;
  if (flag('x-kubernetes-int-or-string')) s.xIntOrString = true;
  const listType = str('x-kubernetes-list-type');
  if (listType !== undefined) s.xListType = listType;
  const mapType = str('x-kubernetes-map-type');
  if (mapType !== undefined) s.xMapType = mapType;
  s.xListMapKeys = stringList(schema['x-kubernetes-list-map-keys'], 'x-kubernetes-list-map-keys');
  s.required = stringList(schema.required, 'required');
  if (schema.enum !== undefined && schema.enum !== null) {
    if (!Array.isArray(schema.enum)) throw new Error("OpenAPIV3Schema 'enum' must be an array");
    s.enum = schema.enum;
  }
  const xv = schema['x-kubernetes-validations'];
  if (Array.isArray(xv) && xv.length) s.xValidations = xv;
  if (schema.items !== undefined && schema.items !== null) {
    if (Array.isArray(schema.items)) throw new Error("OpenAPIV3Schema 'items' must be a schema, but is an array");
    s.items = toStructural(schema.items);
  }
  if (schema.properties !== undefined && schema.properties !== null) {
    if (!isObject(schema.properties)) throw new Error("OpenAPIV3Schema 'properties' must be an object");
    const keys = Object.keys(schema.properties);
    if (keys.length) {
      s.properties = {};
      for (const k of keys) s.properties[k] = toStructural(schema.properties[k]);
    }
  }
  const ap = schema.additionalProperties;
  if (typeof ap === 'boolean') s.additionalProperties = ap;
  else if (ap !== undefined && ap !== null) s.additionalProperties = toStructural(ap);
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    const v = schema[k];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || !v.every(isObject)) throw new Error(`OpenAPIV3Schema '${k}' must be an array of schemas`);
    for (const x of v) checkNested(x);
  }
  if (schema.not !== undefined && schema.not !== null) {
    if (!isObject(schema.not)) throw new Error("OpenAPIV3Schema 'not' must be a schema");
    checkNested(schema.not);
  }
  return s;
}

// Value validations (allOf, anyOf, ...) may not use the refused keywords either.
function checkNested(v: Record<string, unknown>): void {
  for (const [key, name] of UNSUPPORTED) {
    if (v[key] !== undefined) throw new Error(`OpenAPIV3Schema '${name}' is not supported`);
  }
  if (Array.isArray(v.items)) throw new Error("OpenAPIV3Schema 'items' must be a schema, but is an array");
  for (const k of ['items', 'not', 'additionalProperties']) if (isObject(v[k])) checkNested(v[k] as Record<string, unknown>);
  if (isObject(v.properties)) for (const p of Object.values(v.properties)) if (isObject(p)) checkNested(p);
  for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(v[k])) for (const x of v[k] as unknown[]) if (isObject(x)) checkNested(x);
}

function stringList(v: unknown, name: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`OpenAPIV3Schema '${name}' must be an array of strings`);
  return v.length ? v : undefined;
}
