/**
 * What a write changed, as three field sets (structured-merge-diff's Comparison): leaves and
 * atomic values that appeared (`added`), changed value (`modified`) or disappeared (`removed`);
 * plus every granular container (map, map key, list, list item) that appeared or disappeared as a
 * whole. That last rule is where the `"."` entries of Update managers come from: creating
 * `data` or `metadata.labels` records the container too, changing a key of an existing one does not.
 *
 * Built-in kinds are Go structs in Kubernetes, whose zero value carries every nested struct as
 * `{}`: a struct field reached from the root through struct fields is therefore never "added" or
 * "removed" itself (no `"."` on `f:spec` of a Namespace), only its contents. Pass
 * `builtinKind: false` for custom resources, where every object is plain JSON.
 */
import { Schema } from '../scheme/schema';
import { FieldSet } from './field-set';
import { deepEqual, isEmptyContainer, isPlainObject } from './json-value';
import { listItemKey } from './list-item-key';
import { Shape, childOf, isStructSchema, itemsOf, shapeOf } from './schema-shape';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export interface CompareOptions {
  /** The kind is built in (a Go struct in Kubernetes); default true. See the module comment. */
  builtinKind?: boolean;
}

/** Compares `before` (undefined: nothing) with `after`; neither is modified. */
export function compareObjects(before: unknown, after: unknown, schema: Schema | undefined, opts: CompareOptions = {}): Comparison {
  const c: Comparison = { added: FieldSet.empty(), modified: FieldSet.empty(), removed: FieldSet.empty() };
  walk(before ?? {}, after ?? {}, schema, [], c, opts.builtinKind !== false);
  return c;
}

function leaf(l: unknown, r: unknown, path: string[], c: Comparison): void {
  if (l === undefined && r !== undefined) c.added.insert(path);
  else if (r === undefined && l !== undefined) c.removed.insert(path);
  else if (!deepEqual(l, r)) c.modified.insert(path);
}

/**
 * `typedChain`: the node is the root or a struct field reached through struct fields only.
 * `path` is the node's path, extended and restored on the way down (FieldSet.insert copies what
 * it keeps), so that no array is made per node.
 */
function walk(l: unknown, r: unknown, schema: Schema | undefined, path: string[], c: Comparison, typedChain: boolean): void {
  const shape = shapeOf(schema, r !== undefined ? r : l);
  if (!descends(shape, l, r)) {
    leaf(l, r, path, c);
    return;
  }
  if (shape.kind === 'object') {
    const lo = isPlainObject(l) ? l : {};
    const ro = isPlainObject(r) ? r : {};
    for (const k of unionOfKeys(lo, ro)) {
      const child = childOf(schema, k);
      const zero = typedChain && child.named && isStructSchema(child.schema);
      const lv = zero && lo[k] === undefined ? {} : lo[k];
      const rv = zero && ro[k] === undefined ? {} : ro[k];
      path.push(`f:${k}`);
      walk(lv, rv, child.schema, path, c, zero);
      path.pop();
    }
  } else {
    const items = itemsOf(schema);
    const lm = indexItems(shape, l, items);
    const rm = indexItems(shape, r, items);
    for (const k of lm.size === 0 ? rm.keys() : new Set([...lm.keys(), ...rm.keys()])) {
      path.push(k);
      walk(lm.get(k), rm.get(k), items, path, c, false);
      path.pop();
    }
  }
  // A granular container that appeared or disappeared is a path of its own.
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

/** The keys of both objects, each once, in the order of `l` then `r`'s own (a create has no `l`). */
function unionOfKeys(l: Record<string, unknown>, r: Record<string, unknown>): Iterable<string> {
  const lk = Object.keys(l);
  if (lk.length === 0) return Object.keys(r);
  const rk = Object.keys(r);
  if (rk.length === 0) return lk;
  return new Set([...lk, ...rk]);
}

/** Whether to look inside (granular, right JSON types, not both empty) rather than compare whole. */
function descends(shape: Shape, l: unknown, r: unknown): boolean {
  if (shape.kind === 'scalar' || shape.kind === 'atomic') return false;
  const fits = shape.kind === 'object'
    ? (v: unknown) => v === undefined || v === null || isPlainObject(v)
    : (v: unknown) => v === undefined || v === null || Array.isArray(v);
  if (!fits(l) || !fits(r)) return false;
  // Both empty: compared as a leaf, which keeps `{}` apart from null (as structured merge does).
  return !(isEmptyContainer(l) && isEmptyContainer(r));
}

/** Items of a granular list by their path element; the first of duplicate keys wins. */
export function indexItems(shape: Shape, list: unknown, items: Schema | undefined): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const key = listItemKey(shape, item, items);
    if ('error' in key || out.has(key.key)) continue;
    out.set(key.key, item);
  }
  return out;
}
