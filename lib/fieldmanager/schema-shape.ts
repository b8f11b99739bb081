/**
 * How field management sees a schema node: the merge-strategy markers of the spec read into one
 * of five shapes. Every walker of the field manager (field sets, comparison, apply merge, pruning)
 * asks this module and nothing else, so the marker rules live in one place:
 *
 * - `x-kubernetes-list-type`: `atomic` | `set` | `map` (keys from `x-kubernetes-list-map-keys`);
 *   without it, `x-kubernetes-patch-strategy: merge` reads as `map` keyed by the patch merge key,
 *   or `set` when there is no key; otherwise the list is atomic.
 * - `x-kubernetes-map-type: atomic` makes a map or struct one leaf; `granular` is the default.
 * - No schema, or `x-kubernetes-preserve-unknown-fields` without a shape of its own: unstructured,
 *   where objects are granular and lists atomic.
 */
import { Schema } from '../scheme/schema';
import { isPlainObject } from './json-value';

export type Shape =
  /** A scalar, or a value whose type does not match its schema: one leaf. */
  | { kind: 'scalar' }
  /** An atomic list, map or struct: one leaf owned whole. */
  | { kind: 'atomic' }
  /** A granular struct or map: every key is its own path (`f:<key>`). */
  | { kind: 'object' }
  /** A list of unique scalars: every item is its own path (`v:<value>`). */
  | { kind: 'set' }
  /** A list of objects merged by key: every item is its own path (`k:{...}`). */
  | { kind: 'map-list'; keys: string[] };

const isObjectSchema = (s: Schema) => s.type === 'object' || s.properties !== undefined || s.additionalProperties !== undefined;
const isArraySchema = (s: Schema) => s.type === 'array' || s.items !== undefined;

/** Whether the schema says nothing about shape, so the value is read as unstructured. */
function isUnstructured(s: Schema | undefined): boolean {
  if (!s) return true;
  if (s['x-kubernetes-int-or-string']) return false;
  return s.type === undefined && !isObjectSchema(s) && !isArraySchema(s);
}

/** The shape of `value` under `schema` (the value decides only for unstructured data). */
export function shapeOf(schema: Schema | undefined, value: unknown): Shape {
  if (isUnstructured(schema) || (schema?.['x-kubernetes-preserve-unknown-fields'] && !schema.properties && !schema.additionalProperties && !schema.items)) {
    if (Array.isArray(value)) return { kind: 'atomic' };
    if (isPlainObject(value)) return schema?.['x-kubernetes-map-type'] === 'atomic' ? { kind: 'atomic' } : { kind: 'object' };
    return { kind: 'scalar' };
  }
  const s = schema as Schema;
  if (isArraySchema(s)) return listShape(s);
  if (isObjectSchema(s)) return s['x-kubernetes-map-type'] === 'atomic' ? { kind: 'atomic' } : { kind: 'object' };
  return { kind: 'scalar' };
}

function listShape(s: Schema): Shape {
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'atomic') return { kind: 'atomic' };
  if (listType === 'set') return { kind: 'set' };
  if (listType === 'map') return { kind: 'map-list', keys: s['x-kubernetes-list-map-keys'] ?? [] };
  const strategy = (s['x-kubernetes-patch-strategy'] ?? '').split(',');
  if (strategy.includes('merge')) {
    const key = s['x-kubernetes-patch-merge-key'];
    return key ? { kind: 'map-list', keys: [key] } : { kind: 'set' };
  }
  return { kind: 'atomic' };
}

export interface ChildSchema {
  schema: Schema | undefined;
  /**
   * A field declared in `properties` (a struct field). Structured merge tracks named fields only
   * through their contents; map keys and unstructured keys are paths of their own as well.
   */
  named: boolean;
  /** The key is neither declared nor allowed by `additionalProperties` or preserve-unknown-fields. */
  undeclared: boolean;
}

/** Schema of the value under `key` of an object node. */
export function childOf(schema: Schema | undefined, key: string): ChildSchema {
  const named = schema?.properties?.[key];
  if (named) return { schema: named, named: true, undeclared: false };
  if (schema?.additionalProperties) return { schema: schema.additionalProperties, named: false, undeclared: false };
  const open = !schema || isUnstructured(schema) || !!schema['x-kubernetes-preserve-unknown-fields'] || !schema.properties;
  return { schema: undefined, named: false, undeclared: !open };
}

/** Schema of the items of a list node. */
export function itemsOf(schema: Schema | undefined): Schema | undefined {
  return schema?.items;
}

/** A struct schema (declared properties, no free-form keys), whose Go type is a struct. */
export function isStructSchema(s: Schema | undefined): boolean {
  return !!s && !!s.properties && !s.additionalProperties && shapeOf(s, {}).kind === 'object';
}
