/**
 * Strategic merge patch (`application/strategic-merge-patch+json`): Kubernetes' merge of a patch
 * into an object, steered by each field's `x-kubernetes-patch-strategy` and
 * `x-kubernetes-patch-merge-key` in the kind's schema. kubectl sends it for `patch`, `edit` and
 * client-side `apply`.
 *
 * Semantics (apimachinery's strategicpatch, server side):
 * - Maps merge recursively; `null` deletes a key. A map field with strategy `replace` is replaced.
 * - Lists replace, unless the field's strategy includes `merge`: then lists of objects merge element
 *   by element on the merge key and lists of primitives are unioned without duplicates. Merged
 *   lists keep server-only elements in their order and patch elements in patch order; where the two
 *   interleave, a server-only element goes first only if it preceded that patch element on the
 *   server (so elements new to the list come before the server-only ones after them).
 * - Directives: `$patch: replace | delete | merge` in a map; `{$patch: delete, <key>: v}` and
 *   `{$patch: replace}` as elements of a merging list; `$retainKeys: [...]` (fields not listed are
 *   cleared); `$setElementOrder/<list>: [...]` (final order of a merging list);
 *   `$deleteFromPrimitiveList/<list>: [...]` (values removed from a list of primitives).
 * - A value new to the object is taken from the patch with its nulls and directives resolved.
 *
 * Errors: a malformed patch (not an object, unknown `$patch`, a directive of the wrong shape or where
 * the schema does not allow it, a merging-list element without its merge key, a `$setElementOrder`
 * that contradicts the patch list) is 400 BadRequest. A patch whose lists cannot merge with the
 * object's (lists of lists, objects mixed with primitives) is 422 Invalid, as Kubernetes answers
 * ErrNoListOfLists.
 */
import { ApiError, errors } from '../meta/api-errors';
import { Schema, childSchema } from '../scheme/schema';
import { JsonObject, cloneJson, isPlainObject } from './json-value';


const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

/**
 * True when strategic merge patch can be applied to the kind: it has a structural schema of
 * its own (properties, not preserve-unknown-fields). The PATCH handler answers 415 otherwise,
 * as Kubernetes does for custom resources.
 */
export function isStrategicMergeSupported(schema: Schema | undefined): boolean {
  return !!schema && !schema['x-kubernetes-preserve-unknown-fields']
    && !!schema.properties && Object.keys(schema.properties).length > 0;
}

/**
 * Applies `patch` to `doc` with the strategies of `schema` (the kind's top-level schema) and
 * returns the result. Never mutates `doc` or `patch`; the result shares no objects with either.
 * Throws ApiError 400 or 422 as described above. A top-level `$patch: delete` yields `{}`.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: Schema): unknown {
  if (!isPlainObject(patch)) throw errors.badRequest('strategic merge patch must be a JSON object');
  const original = isPlainObject(doc) ? cloneJson(doc) : {};
  return mergeObject(original, patch, schema, '') ?? {};
}

/**
 * Merges `patch` into `original` (changed in place; undefined means "nothing there yet").
 * Returns the merged map, or undefined when the patch deletes it.
 */
function mergeObject(original: JsonObject | undefined, patch: JsonObject, schema: Schema | undefined, path: string): JsonObject | undefined {
  if (Object.hasOwn(patch, PATCH)) {
    const directive = patch[PATCH];
    const rest = without(patch, PATCH);
    if (directive === 'delete') return undefined;
    if (directive === 'replace') return mergeObject(undefined, rest, schema, path);
    if (directive !== 'merge') throw bad(path, `unknown $patch directive ${JSON.stringify(directive)} (want replace, delete or merge)`);
    patch = rest;
  }
  const target: JsonObject = original ?? {};
  applyRetainKeys(target, patch, path);
  const ordered = applySetElementOrder(target, patch, schema, path);
  for (const [key, value] of Object.entries(patch)) {
    if (isDirective(key) || ordered.has(key)) continue;
    mergeField(target, key, value, fieldSchema(schema, key), join(path, key));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) deleteFromPrimitiveList(target, key, value, schema, path);
  }
  return target;
}

function mergeField(target: JsonObject, key: string, value: unknown, schema: Schema | undefined, path: string): void {
  if (value === null) {
    delete target[key];
    return;
  }
  const current = own(target, key);
  let next: unknown;
  if (isPlainObject(current) && isPlainObject(value)) {
    next = strategies(schema).includes('replace') ? resolveNew(value, schema, path) : mergeObject(current, value, schema, path);
  } else if (Array.isArray(current) && Array.isArray(value)) {
    next = isMergeList(schema) ? mergeList(current, value, schema, path) : resolveNew(value, schema, path);
  } else {
    next = resolveNew(value, schema, path);
  }
  if (next === undefined) delete target[key];
  else setKey(target, key, next);
}

/** A patch value with nothing under it in the object: nulls dropped, directives resolved. */
function resolveNew(value: unknown, schema: Schema | undefined, path: string): unknown {
  if (value === null) return undefined;
  if (isPlainObject(value)) return mergeObject(undefined, value, schema, path);
  if (!Array.isArray(value)) return value;
  if (isMergeList(schema)) return mergeList([], value, schema, path);
  const out: unknown[] = [];
  value.forEach((element, i) => {
    // Elements of a replaced list are values, so a null element stays.
    const resolved = element === null ? null : resolveNew(element, schema?.items, `${path}[${i}]`);
    if (resolved !== undefined) out.push(resolved);
  });
  return out;
}

/** Merges the patch list of a field whose strategy includes `merge`. */
function mergeList(original: unknown[], patch: unknown[], schema: Schema | undefined, path: string): unknown[] {
  if (original.length === 0 && patch.length === 0) return [];
  if (elementKind(original, patch, path) === 'primitive') return mergePrimitives(original, patch);
  const mergeKey = schema?.['x-kubernetes-patch-merge-key'];
  if (!mergeKey) throw cannotApply(`cannot merge lists of objects without a merge key at ${path}`);
  let base = original.slice();
  const regular: JsonObject[] = [];
  let replace = false;
  patch.forEach((element, i) => {
    const item = element as JsonObject;
    const at = `${path}[${i}]`;
    if (!Object.hasOwn(item, PATCH)) {
      requireMergeKey(item, mergeKey, at);
      regular.push(item);
      return;
    }
    const directive = item[PATCH];
    if (directive === 'delete') {
      requireMergeKey(item, mergeKey, at);
      base = base.filter((o) => !sameKey(o, item, mergeKey));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw bad(at, '$patch: merge cannot be given for a list element');
    } else {
      throw bad(at, `unknown $patch directive ${JSON.stringify(directive)} (want replace or delete in a list)`);
    }
  });
  if (replace) return regular.map((item, i) => mergeObject(undefined, item, schema?.items, `${path}[${i}]`) as JsonObject);

  const merged = base.slice();
  regular.forEach((item, i) => {
    const index = merged.findIndex((o) => sameKey(o, item, mergeKey));
    // mergeObject changes the element in place, so merged elements keep their identity in `base`.
    if (index >= 0) merged[index] = mergeObject(merged[index] as JsonObject, item, schema?.items, `${path}[${i}]`);
    else merged.push(mergeObject(undefined, item, schema?.items, `${path}[${i}]`));
  });
  const patchIndex = (o: unknown) => regular.findIndex((item) => sameKey(o, item, mergeKey));
  return interleave(merged, patchIndex, base);
}

function mergePrimitives(original: unknown[], patch: unknown[]): unknown[] {
  const merged: unknown[] = [];
  for (const v of [...original, ...patch]) if (!merged.includes(v)) merged.push(v);
  return interleave(merged, (v) => patch.indexOf(v), original);
}

/**
 * Kubernetes' element order for a merged list: `place(e)` >= 0 marks elements the patch orders
 * (sorted by it); the rest keep their order in `server`. The two runs interleave: a server-only
 * element goes first only when it precedes the next ordered element in `server`.
 */
function interleave(merged: unknown[], place: (e: unknown) => number, server: unknown[]): unknown[] {
  const position = (e: unknown) => {
    const i = server.indexOf(e);
    return i < 0 ? Infinity : i;
  };
  const ordered = merged.filter((e) => place(e) >= 0).sort((a, b) => place(a) - place(b));
  const serverOnly = merged.filter((e) => place(e) < 0).sort((a, b) => position(a) - position(b));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < ordered.length) {
    const takeServer = j >= ordered.length
      || (i < serverOnly.length && position(ordered[j]) !== Infinity && position(serverOnly[i]) < position(ordered[j]));
    out.push(takeServer ? serverOnly[i++] : ordered[j++]);
  }
  return out;
}

/** Handles every `$setElementOrder/<list>` of `patch`; returns the lists it merged. */
function applySetElementOrder(target: JsonObject, patch: JsonObject, schema: Schema | undefined, path: string): Set<string> {
  const handled = new Set<string>();
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = directiveField(key, SET_ELEMENT_ORDER, path);
    const at = join(path, field);
    const listSchema = fieldSchema(schema, field);
    if (!Array.isArray(order)) throw bad(at, '$setElementOrder must be a list');
    if (!isMergeList(listSchema)) throw bad(at, '$setElementOrder is only allowed for a list with the merge patch strategy');
    const mergeKey = listSchema?.['x-kubernetes-patch-merge-key'];
    const keyOf = elementKey(mergeKey);
    order.forEach((e, i) => {
      if (mergeKey) requireMergeKey(e, mergeKey, `${at} ($setElementOrder[${i}])`);
      else if (e !== null && typeof e === 'object') throw bad(at, '$setElementOrder of a list of primitives must list primitive values');
    });
    const patchList = own(patch, field);
    if (patchList === null) continue; // the list is deleted; there is nothing to order
    if (patchList !== undefined && !Array.isArray(patchList)) throw bad(at, 'expected a list');
    if (patchList) checkOrderAgreesWithPatch(patchList, order, mergeKey, at);
    const current = own(target, field);
    const server = Array.isArray(current) ? current : [];
    if (!patchList && !Array.isArray(current)) continue;
    const merged = patchList ? mergeList(server, patchList, listSchema, at) : server;
    const place = (e: unknown) => order.findIndex((o) => isPrimitive(keyOf(e)) && keyOf(o) === keyOf(e));
    setKey(target, field, interleave(merged, place, server));
    handled.add(field);
  }
  return handled;
}

/** The patch list must name its elements in the relative order of `$setElementOrder`. */
function checkOrderAgreesWithPatch(patchList: unknown[], order: unknown[], mergeKey: string | undefined, at: string): void {
  const items = mergeKey ? patchList.filter((e) => !(isPlainObject(e) && Object.hasOwn(e, PATCH))) : patchList;
  if (items.length === 0 || order.length === 0) return;
  if (mergeKey) items.forEach((e, i) => requireMergeKey(e, mergeKey, `${at}[${i}]`));
  const keyOf = elementKey(mergeKey);
  let matched = 0;
  for (let i = 0; i < order.length && matched < items.length; i++) {
    if (keyOf(items[matched]) === keyOf(order[i])) matched++;
  }
  if (matched < items.length) throw bad(at, 'the order of the patch list does not match its $setElementOrder list');
}

function applyRetainKeys(target: JsonObject, patch: JsonObject, path: string): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const keep = patch[RETAIN_KEYS];
  if (!Array.isArray(keep) || keep.some((k) => typeof k !== 'string')) throw bad(path, '$retainKeys must be a list of field names');
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || isDirective(key)) continue;
    if (!keep.includes(key)) throw bad(path, `field "${key}" is in the patch but not in $retainKeys`);
  }
  for (const key of Object.keys(target)) if (!keep.includes(key)) delete target[key];
}

function deleteFromPrimitiveList(target: JsonObject, key: string, values: unknown, schema: Schema | undefined, path: string): void {
  const field = directiveField(key, DELETE_FROM_PRIMITIVE_LIST, path);
  const at = join(path, field);
  if (!Array.isArray(values) || !values.every(isPrimitive)) throw bad(at, '$deleteFromPrimitiveList must be a list of primitive values');
  const listSchema = fieldSchema(schema, field);
  if ((listSchema?.type && listSchema.type !== 'array') || listSchema?.items?.type === 'object') {
    throw bad(at, '$deleteFromPrimitiveList is only allowed for a list of primitive values');
  }
  const current = own(target, field);
  if (Array.isArray(current)) setKey(target, field, current.filter((v) => !values.includes(v)));
}

/** `<prefix>/<field>` -> field; anything else under the prefix is a malformed directive. */
function directiveField(key: string, prefix: string, path: string): string {
  if (!key.startsWith(`${prefix}/`) || key.length === prefix.length + 1) {
    throw bad(path, `invalid directive key ${JSON.stringify(key)} (want ${prefix}/<field>)`);
  }
  return key.slice(prefix.length + 1);
}

/** Keys that are directives rather than fields. */
function isDirective(key: string): boolean {
  return key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
}

function elementKind(original: unknown[], patch: unknown[], path: string): 'object' | 'primitive' {
  let kind: 'object' | 'primitive' | undefined;
  for (const e of [...original, ...patch]) {
    if (Array.isArray(e)) throw cannotApply(`lists of lists are not supported (at ${path})`);
    const k = isPlainObject(e) ? 'object' : 'primitive';
    if (kind && kind !== k) throw cannotApply(`list element types are not identical at ${path}: objects mixed with primitive values`);
    kind = k;
  }
  return kind ?? 'primitive';
}

/** What identifies a list element: its merge key's value, or the value itself for primitives. */
function elementKey(mergeKey: string | undefined): (e: unknown) => unknown {
  return mergeKey ? (e) => (isPlainObject(e) ? e[mergeKey] : undefined) : (e) => e;
}

function requireMergeKey(e: unknown, mergeKey: string, at: string): void {
  if (!isPlainObject(e) || !Object.hasOwn(e, mergeKey) || !isPrimitive(e[mergeKey]) || e[mergeKey] === null) {
    throw bad(at, `element does not contain the declared merge key "${mergeKey}"`);
  }
}

function sameKey(a: unknown, b: JsonObject, mergeKey: string): boolean {
  return isPlainObject(a) && Object.hasOwn(a, mergeKey) && a[mergeKey] === b[mergeKey];
}

function strategies(schema: Schema | undefined): string[] {
  return (schema?.['x-kubernetes-patch-strategy'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function isMergeList(schema: Schema | undefined): boolean {
  return strategies(schema).includes('merge');
}

/** childSchema, guarded against keys that name Object.prototype members ("constructor"). */
function fieldSchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (schema?.properties && !Object.hasOwn(schema.properties, key)) return schema.additionalProperties;
  return childSchema(schema, key);
}

function bad(path: string, message: string): ApiError {
  return errors.badRequest(`invalid strategic merge patch${path ? ` at ${path}` : ''}: ${message}`);
}

function cannotApply(reason: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${reason}`);
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function own(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function without(obj: JsonObject, key: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (k !== key) setKey(out, k, v);
  return out;
}

function isPrimitive(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

/** Assignment that keeps a member named "__proto__" an ordinary data member. */
function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
