/**
 * managedFields after a create, an update (PUT) or a non-apply patch.
 *
 * Rules, in Kubernetes' order (apimachinery FieldManager.Update + structured-merge-diff Updater):
 * 1. Starting entries: if the request reset managedFields (a list with one empty entry, see
 *    isResetManagedFields), none. Otherwise the entries the request carries, when they are a
 *    non-empty, readable list (Kubernetes lets a client rewrite managedFields this way; a GET-then-
 *    PUT carries the live list back unchanged); else the live object's. Through a subresource the
 *    request's entries are never used (always the live ones).
 * 2. The write is compared with the live object (create: with nothing). Fields it added or changed
 *    leave every other manager's entry and join the writer's Update entry, identified by (manager,
 *    apiVersion, subresource); fields it removed leave every entry, the writer's included.
 * 3. After a reset, the writer also owns every field of `requestBody` the stored object still has
 *    (spec: "the reset runs first, then the other changes, and the sender owns every field in the
 *    request").
 * 4. The writer's entry gets `now` only when the write took some field; a write that changed
 *    nothing leaves its entries (and times) alone.
 * 5. Managers left owning nothing are dropped; then more than 10 Update managers are capped into
 *    `ancient-changes` (see capUpdateManagers). Apply entries are never created here.
 *
 * Unlike Kubernetes, an update of an object that has no entries is tracked too (Kubernetes skips
 * tracking then, which would contradict rule 3).
 */
import { Schema } from '../scheme/schema';
import { ApiObject } from '../scheme/types';
import { capUpdateManagers } from './ancient-changes';
import { compareObjects } from './compare';
import { FieldSet } from './field-set';
import {
  ManagedFieldsEntry, ManagerTable, dropEmptyManagers, encodeManagedFields, isResetManagedFields,
  managerIdentifier, tryDecodeManagedFields,
} from './manager-table';
import { toFieldSet } from './to-field-set';
import { stripUntracked } from './untracked-fields';

export { ManagedFieldsEntry, setManagedFields } from './manager-table';

export interface UpdateManagedFieldsArgs {
  schema: Schema;
  /** The stored object; undefined for a create. */
  live?: ApiObject;
  /** The object about to be stored. Its own metadata.managedFields are ignored (see incoming). */
  next: ApiObject;
  /**
   * metadata.managedFields as the request left them: the body's for POST/PUT, the patched
   * object's for a patch. Undefined: taken from `next.metadata.managedFields`.
   */
  incomingManagedFields?: unknown;
  /**
   * The request body as an object (the object for POST/PUT, the patch document for a merge or
   * strategic merge patch). Used only after a reset (rule 3); without it the writer owns only
   * what it added or changed.
   */
  requestBody?: unknown;
  /** The fieldManager (or the default derived from the user agent). */
  manager: string;
  /** group/version of the request, e.g. `v1` or `apps/v1`. */
  apiVersion: string;
  /** RFC 3339 time of the write, whole seconds. */
  now: string;
  /** `status` etc. when written through a subresource. */
  subresource?: string;
  /** Built-in kind (default) or custom resource; see compareObjects. */
  builtinKind?: boolean;
}

/**
 * The managedFields list to store with `next` (empty: store none). Pure: neither object is
 * modified; set the result with setManagedFields.
 */
export function updateManagedFields(args: UpdateManagedFieldsArgs): ManagedFieldsEntry[] {
  const incoming = args.incomingManagedFields !== undefined ? args.incomingManagedFields : args.next.metadata?.managedFields;
  const reset = !args.subresource && isResetManagedFields(incoming);
  const table = startingManagers(args, incoming, reset);

  const after = withoutManagedFields(args.next);
  let owned: FieldSet;
  if (args.live === undefined && table.size === 0) {
    // A create with no entries to carry: the writer owns what the object sets (rule 2 with nothing before).
    owned = createdFields(after, args.schema, args.builtinKind !== false);
  } else {
    const cmp = compareObjects(withoutManagedFields(args.live), after, args.schema, { builtinKind: args.builtinKind });
    // The comparison's sets are built path by path (no empty branches), so one that is empty can be
    // left out rather than copied around.
    const taken = cmp.modified.isEmpty() ? cmp.added : cmp.added.union(cmp.modified);
    const removedNone = cmp.removed.isEmpty();
    for (const rec of table.values()) {
      rec.fields = rec.fields.difference(taken);
      if (!removedNone) rec.fields = rec.fields.difference(cmp.removed);
    }
    owned = stripUntracked(taken);
  }
  if (reset && args.requestBody !== undefined) {
    owned = owned.union(stripUntracked(toFieldSet(args.requestBody, args.schema).intersection(toFieldSet(after, args.schema))));
  }
  if (!owned.isEmpty()) {
    const id = managerIdentifier({ manager: args.manager, operation: 'Update', apiVersion: args.apiVersion, subresource: args.subresource });
    const prev = table.get(id);
    table.set(id, {
      manager: args.manager,
      operation: 'Update',
      apiVersion: args.apiVersion,
      ...(args.subresource ? { subresource: args.subresource } : {}),
      time: args.now,
      fields: prev ? prev.fields.union(owned) : owned,
    });
  }
  dropEmptyManagers(table);
  capUpdateManagers(table);
  return encodeManagedFields(table);
}

/**
 * Created objects' owned fields, by schema (and kind of kind) and then by skeleton (skeletonOf):
 * what a create owns depends on nothing else, and most creates of a resource share a few
 * skeletons. The sets are sealed: their fieldsV1, built once, is shared by the entries written.
 */
const createdMemo = new WeakMap<Schema, Map<string, FieldSet>>();
const CREATED_MEMO_LIMIT = 256;

/**
 * The fields a create of `after` takes: what the comparison with nothing finds added or changed
 * (a struct field holding a scalar counts as changed), without the untracked paths.
 */
function createdFields(after: ApiObject | undefined, schema: Schema, builtinKind: boolean): FieldSet {
  const compute = () => {
    const cmp = compareObjects(undefined, after, schema, { builtinKind });
    return stripUntracked(cmp.modified.isEmpty() ? cmp.added : cmp.added.union(cmp.modified));
  };
  const skeleton = skeletonOf(after);
  if (skeleton === undefined) return compute();
  let bySkeleton = createdMemo.get(schema);
  if (!bySkeleton) createdMemo.set(schema, (bySkeleton = new Map()));
  const key = builtinKind ? skeleton : `!${skeleton}`;
  let fields = bySkeleton.get(key);
  if (!fields) {
    if (bySkeleton.size >= CREATED_MEMO_LIMIT) bySkeleton.clear();
    bySkeleton.set(key, (fields = compute().seal()));
  }
  return fields;
}

/** Characters of array contents a skeleton may hold (a memo key is kept; past this, no memo). */
const ARRAY_BUDGET = 2048;

/**
 * What the comparison of a new object reads of it: every key, and of every value only whether it
 * is undefined, null, a scalar, an empty object or an object to descend into (the schema decides
 * the rest). Arrays are kept whole (every key and every scalar, with its type), since their items
 * are read too (set values, map-list keys); past ARRAY_BUDGET characters of them, undefined: such
 * objects are compared every time rather than remembered by a long key.
 */
export function skeletonOf(value: unknown): string | undefined {
  const budget = { left: ARRAY_BUDGET };
  return skeleton(value, budget);
}

function skeleton(value: unknown, budget: { left: number }): string | undefined {
  if (value === undefined) return 'u';
  if (value === null) return 'n';
  if (typeof value !== 'object') return 's';
  if (Array.isArray(value)) return exact(value, budget);
  let out = '{';
  for (const k in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
    const inner = skeleton((value as Record<string, unknown>)[k], budget);
    if (inner === undefined) return undefined;
    // The key's length first: no key can be mistaken for another's end.
    out += `${k.length}:${k}${inner}`;
  }
  return out === '{' ? 'e' : `${out}}`;
}

/** A value inside an array, whole: keys, and scalars with their type (so 1 and "1" differ). */
function exact(value: unknown, budget: { left: number }): string | undefined {
  let out: string;
  if (value === undefined) out = 'u';
  else if (value === null) out = 'n';
  else if (typeof value === 'string') out = JSON.stringify(value);
  else if (typeof value !== 'object') out = `${typeof value}:${String(value)};`;
  else if (Array.isArray(value)) {
    out = '[';
    for (const item of value) {
      const inner = exact(item, budget);
      if (inner === undefined) return undefined;
      out += `${inner},`;
    }
    return `${out}]`;
  } else {
    out = '{';
    for (const k in value as Record<string, unknown>) {
      if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
      budget.left -= k.length;
      const inner = exact((value as Record<string, unknown>)[k], budget);
      if (inner === undefined) return undefined;
      out += `${k.length}:${k}${inner}`;
    }
    return `${out}}`;
  }
  // Scalars and keys count against the budget; a container's brackets are few beside them.
  budget.left -= out.length;
  return budget.left < 0 ? undefined : out;
}

function startingManagers(args: UpdateManagedFieldsArgs, incoming: unknown, reset: boolean): ManagerTable {
  if (reset) return new Map();
  if (!args.subresource) {
    const fromRequest = tryDecodeManagedFields(incoming);
    if (fromRequest && fromRequest.size > 0) return fromRequest;
  }
  return tryDecodeManagedFields(args.live?.metadata?.managedFields) ?? new Map();
}

/** A shallow view of `obj` without metadata.managedFields (undefined stays undefined). */
export function withoutManagedFields(obj: ApiObject | undefined): ApiObject | undefined {
  if (!obj) return undefined;
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
