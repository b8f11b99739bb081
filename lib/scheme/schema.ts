/**
 * Structural schemas of the served kinds, in OpenAPI v3 form. One source for everything that
 * needs to know a kind's shape: strategic merge patch (patch strategy and merge key), server-side
 * apply (list and map types), field validation (unknown fields), the OpenAPI documents and ajv.
 *
 * Extensions are stored under Kubernetes' names (`x-kubernetes-*`); the OpenAPI writer renames
 * them to the flavor's prefix (`x-orch-*`) on output.
 */

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  /** A map: the schema of every value. */
  additionalProperties?: Schema;
  items?: Schema;
  required?: string[];
  enum?: (string | number | boolean)[];
  default?: unknown;
  /** Any JSON value (e.g. a RawExtension or fieldsV1). */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** `atomic` | `set` | `map` (lists). */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  /** `atomic` | `granular` (maps and structs). */
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** Strategic merge patch: `merge`, `replace`, `retainKeys`, or `merge,retainKeys`. */
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  /** A string that may also be given as an integer (IntOrString), or a Quantity. */
  'x-kubernetes-int-or-string'?: boolean;
  /** The value may be null (custom resource schemas). */
  nullable?: boolean;
  /** A whole Kubernetes object with apiVersion, kind and metadata (custom resource schemas). */
  'x-kubernetes-embedded-resource'?: boolean;
}

export const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const int32 = (description?: string): Schema => ({ type: 'integer', format: 'int32', ...(description ? { description } : {}) });
export const int64 = (description?: string): Schema => ({ type: 'integer', format: 'int64', ...(description ? { description } : {}) });
export const time = (description?: string): Schema => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
export const bytes = (description?: string): Schema => ({ type: 'string', format: 'byte', ...(description ? { description } : {}) });
export const stringMap = (description?: string): Schema => ({ type: 'object', additionalProperties: { type: 'string' }, ...(description ? { description } : {}) });
export const object = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });
export const atomicList = (items: Schema, description?: string): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic', ...(description ? { description } : {}) });
export const setList = (items: Schema, description?: string): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'set', ...(description ? { description } : {}) });
/** A list of objects merged by key (listType=map and, for strategic merge patch, patchMergeKey). */
export const mapList = (items: Schema, keys: string[], description?: string): Schema => ({
  type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys,
  'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': keys[0],
  ...(description ? { description } : {}),
});

/** Schema of the child at `name` of an object schema (map values included), or undefined. */
export function childSchema(s: Schema | undefined, name: string): Schema | undefined {
  if (!s) return undefined;
  if (s.properties && Object.hasOwn(s.properties, name)) return s.properties[name];
  return s.additionalProperties;
}
