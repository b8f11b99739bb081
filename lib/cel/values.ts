/**
 * JSON values in and out of CEL. Objects arrive from the API as parsed JSON, where 3 and 3.0 are the
 * same JavaScript number; CEL tells int from double. Until a schema says otherwise (lib/cel's typing
 * from OpenAPI replaces this for typed variables), a whole number is an int and anything else a double.
 * CEL results go back to JSON with ints as numbers when they fit.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/**
 * The lists and objects toCel built: already CEL values, passed through when they are bound again
 * (a caller that evaluates several expressions over one object converts it once; nobody else holds
 * or changes these).
 */
const converted = new WeakSet<object>();

/** A JSON value as CEL sees it when nothing types it: whole numbers are ints (bigint). */
export function toCel(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) {
    if (converted.has(value) || value.every(isCelScalar)) return value;
    const list = value.map(toCel);
    converted.add(list);
    return list;
  }
  if (typeof value === 'object') {
    if (converted.has(value)) return value;
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value; // already a CEL value (object type, bytes, timestamp, duration, map)
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = toCel(v);
    converted.add(out);
    return out;
  }
  return value;
}

/** A CEL result as JSON: ints as numbers (as strings past 2^53), maps as objects. */
export function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(fromCel(k))] = fromCel(v);
    return out;
  }
  if (typeof value === 'object' && !(value instanceof Uint8Array) && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = fromCel(v);
    return out;
  }
  return value;
}

function isCelScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint' || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null);
}
