/**
 * Removal of what an applier stopped applying (structured-merge-diff's prune): a path the manager
 * applied last time, does not apply now and no other manager (Apply or Update) owns is removed from
 * the object. A struct field counts as applied when something inside it was (so a struct whose
 * every owned field went away goes with them); map keys and list items count on their own.
 */
import { Schema } from '../scheme/schema';
import { FieldSet } from './field-set';
import { isEmptyContainer, isPlainObject } from './json-value';
import { listItemKey } from './list-item-key';
import { childOf, itemsOf, shapeOf } from './schema-shape';
import { untrackedFields } from './untracked-fields';

/**
 * `set` plus every declared struct field that some path of `set` passes through (Kubernetes'
 * EnsureNamedFieldsAreMembers: owning `.spec.replicas` also makes `.spec` a member, not a map key).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: Schema | undefined): FieldSet {
  const out = FieldSet.empty();
  const walk = (s: FieldSet, sch: Schema | undefined, prefix: string[]) => {
    for (const key of s.keys()) {
      const path = [...prefix, key];
      if (s.hasMember(key)) out.insert(path);
      let childSchema: Schema | undefined;
      if (key.startsWith('f:')) {
        const child = childOf(sch, key.slice(2));
        if (child.named) out.insert(path);
        childSchema = child.schema;
      } else {
        childSchema = itemsOf(sch);
      }
      const below = s.child(key);
      if (below) walk(below, childSchema, path);
    }
  };
  walk(set, schema, []);
  return out;
}

/**
 * Fields of `obj` to remove after an apply: `lastApplied` minus what anyone owns now
 * (`ownedNow`, which includes the applier's new configuration), never the untracked metadata.
 */
export function prunableFields(lastApplied: FieldSet, ownedNow: FieldSet, schema: Schema | undefined): FieldSet {
  return ensureNamedFieldsAreMembers(lastApplied, schema)
    .difference(ensureNamedFieldsAreMembers(ownedNow, schema))
    .difference(untrackedFields());
}

/**
 * A copy of `value` without the member paths of `remove` (a member removes the whole value below
 * it). A map, struct or list left empty by the removal is removed as well. `value` is not modified.
 */
export function removeFields(value: unknown, remove: FieldSet, schema: Schema | undefined): unknown {
  const shape = shapeOf(schema, value);
  if (shape.kind === 'object' && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = `f:${k}`;
      if (remove.hasMember(key)) continue;
      const below = remove.child(key);
      if (!below) {
        out[k] = v;
        continue;
      }
      const nv = removeFields(v, below, childOf(schema, k).schema);
      if (isEmptyContainer(nv) && !isEmptyContainer(v)) continue;
      out[k] = nv;
    }
    return out;
  }
  if ((shape.kind === 'set' || shape.kind === 'map-list') && Array.isArray(value)) {
    const items = itemsOf(schema);
    const out: unknown[] = [];
    for (const item of value) {
      const key = listItemKey(shape, item, items);
      if ('error' in key) {
        out.push(item);
        continue;
      }
      if (remove.hasMember(key.key)) continue;
      const below = remove.child(key.key);
      out.push(below ? removeFields(item, below, items) : item);
    }
    return out;
  }
  return value;
}
