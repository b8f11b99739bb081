/**
 * The path element that names one item of a granular list: `k:{...}` for a `map` list (the item's
 * key fields, a missing one taken from the schema default as structured-merge-diff does), `v:<json>`
 * for a `set` (the item itself). Items that cannot be named produce the error text Kubernetes uses.
 */
import { Schema } from '../scheme/schema';
import { serializeElement } from './field-path';
import { isPlainObject } from './json-value';
import { Shape } from './schema-shape';

export type ItemKey = { key: string } | { error: string };

export function listItemKey(shape: Shape, item: unknown, itemSchema: Schema | undefined): ItemKey {
  const keys = shape.kind === 'map-list' ? shape.keys : [];
  if (keys.length === 0) {
    if (isPlainObject(item)) return { error: "associative list without keys has an element that's a map type" };
    if (Array.isArray(item)) return { error: "associative list without keys has an element that's a list type" };
    return { key: serializeElement({ value: item === undefined ? null : item }) };
  }
  if (!isPlainObject(item)) return { error: 'associative list with keys has an element that is not a map type' };
  const key: Record<string, unknown> = {};
  for (const k of keys) {
    let v = item[k];
    if (v === undefined) v = itemSchema?.properties?.[k]?.default;
    if (v === undefined) return { error: `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)` };
    key[k] = v;
  }
  return { key: serializeElement({ key }) };
}
