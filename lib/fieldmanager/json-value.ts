/**
 * Plain-JSON helpers the field manager's walkers share: type tests, deep equality and copying.
 * Objects here are decoded JSON (no class instances, no cycles).
 */

export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON object with no keys, an empty array, or null: what structured merge calls "empty". */
export function isEmptyContainer(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** Structural equality of two JSON values; key order of objects does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Deep copy of a JSON value (undefined stays undefined). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}
