/**
 * The set of fields an object (or an apply configuration) sets, as structured-merge-diff's
 * ToFieldSet computes it:
 *
 * - a scalar, an atomic list, an atomic map/struct: its own path (owned whole);
 * - a granular struct: only what is inside (a named field is not a path by itself);
 * - a granular map or unstructured object: every key is a path, plus what is inside it;
 * - a `set` list: every item `v:<value>`; a `map` list: every item `k:{...}` plus its contents;
 * - empty granular maps and lists contribute nothing; a null scalar is still a path.
 *
 * Items that cannot be keyed (missing key fields) are skipped here; apply validates them first.
 */
import { Schema } from '../scheme/schema';
import { FieldSet } from './field-set';
import { isPlainObject } from './json-value';
import { listItemKey } from './list-item-key';
import { childOf, itemsOf, shapeOf } from './schema-shape';
import { stripUntracked } from './untracked-fields';

/** Every path `value` sets, including the metadata paths Kubernetes never records. */
export function toFieldSet(value: unknown, schema: Schema | undefined): FieldSet {
  const out = FieldSet.empty();
  walk(value, schema, [], out);
  return out;
}

/**
 * The paths `obj` sets that field management tracks: `toFieldSet` without apiVersion, kind,
 * metadata itself and the server-owned metadata fields (name, namespace, uid, resourceVersion,
 * creationTimestamp, generation, managedFields, ...). Labels, annotations, finalizers,
 * ownerReferences and generateName stay.
 */
export function fieldsOf(obj: unknown, schema: Schema | undefined): FieldSet {
  return stripUntracked(toFieldSet(obj, schema));
}

function walk(value: unknown, schema: Schema | undefined, path: string[], out: FieldSet): void {
  const shape = shapeOf(schema, value);
  switch (shape.kind) {
    case 'scalar':
    case 'atomic':
      out.insert(path);
      return;
    case 'object':
      if (value === null || value === undefined) return;
      if (!isPlainObject(value)) {
        out.insert(path);
        return;
      }
      for (const [k, v] of Object.entries(value)) {
        const child = childOf(schema, k);
        const childPath = [...path, `f:${k}`];
        walk(v, child.schema, childPath, out);
        if (!child.named) out.insert(childPath);
      }
      return;
    case 'set':
    case 'map-list': {
      if (value === null || value === undefined) return;
      if (!Array.isArray(value)) {
        out.insert(path);
        return;
      }
      const items = itemsOf(schema);
      for (const item of value) {
        const key = listItemKey(shape, item, items);
        if ('error' in key) continue;
        const itemPath = [...path, key.key];
        if (shape.kind === 'map-list') walk(item, items, itemPath, out);
        out.insert(itemPath);
      }
    }
  }
}
