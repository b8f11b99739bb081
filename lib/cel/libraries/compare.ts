/**
 * Ordering and equality of CEL values as cel-go's Compare and Equal define them, for the library
 * functions that compare list elements (isSorted, min, max, indexOf, sets.*): numbers compare across
 * int, uint and double; strings by code point; bytes bytewise; bools false < true; durations and
 * timestamps by time; lists and maps by content.
 */

import { DurationClass, UintClass, Optional } from './engine';

type Num = { kind: 'num'; v: number | bigint };

function asNumber(v: unknown): Num | undefined {
  if (typeof v === 'bigint') return { kind: 'num', v };
  if (typeof v === 'number') return { kind: 'num', v };
  if (v instanceof UintClass) return { kind: 'num', v: v.valueOf() };
  return undefined;
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x !== y) return x < y ? -1 : 1;
  // equal as doubles: settle int/double exactness with bigints when both are whole
  if (typeof a === 'number' && Number.isInteger(a) && typeof b === 'bigint') return compareNumbers(BigInt(a), b);
  if (typeof b === 'number' && Number.isInteger(b) && typeof a === 'bigint') return compareNumbers(a, BigInt(b));
  return 0;
}

function compareStrings(a: string, b: string): number {
  // code point order (UTF-8 byte order), not UTF-16 unit order
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = (x[i].codePointAt(0) as number) - (y[i].codePointAt(0) as number);
    if (c !== 0) return c < 0 ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

function durationNanos(d: unknown): bigint | undefined {
  if (d instanceof DurationClass) return d.seconds * 1_000_000_000n + BigInt(d.nanos);
  return undefined;
}

/** -1, 0, 1, or undefined when the two values have no order (different kinds, NaN). */
export function celCompare(a: unknown, b: unknown): number | undefined {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na && nb) {
    const c = compareNumbers(na.v, nb.v);
    return Number.isNaN(c) ? undefined : c;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  const da = durationNanos(a);
  const db = durationNanos(b);
  if (da !== undefined && db !== undefined) return da < db ? -1 : da > db ? 1 : 0;
  if (a instanceof Date && b instanceof Date) {
    const x = timestampKey(a);
    const y = timestampKey(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return undefined;
}

function timestampKey(d: Date): bigint {
  const nanos = (d as Date & { nanos?: number }).nanos;
  return BigInt(d.getTime()) * 1_000_000n + BigInt(nanos ?? 0);
}

/** CEL equality (heterogeneous: 1 == 1u == 1.0; different kinds are unequal). */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na && nb) return compareNumbers(na.v, nb.v) === 0;
  if (na || nb) return false;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => celEquals(x, b[i]));
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) return celCompare(a, b) === 0;
  if (a instanceof Date || b instanceof Date || a instanceof DurationClass || b instanceof DurationClass) return celCompare(a, b) === 0;
  if (a instanceof Optional || b instanceof Optional) {
    if (!(a instanceof Optional) || !(b instanceof Optional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  const eq = (a as { celEquals?: (o: unknown) => boolean }).celEquals;
  if (typeof eq === 'function') return eq.call(a, b);
  const ea = entries(a);
  const eb = entries(b);
  if (!ea || !eb || ea.length !== eb.length) return false;
  return ea.every(([k, v]) => {
    const other = eb.find(([k2]) => celEquals(k, k2));
    return other !== undefined && celEquals(v, other[1]);
  });
}

function entries(v: object): Array<[unknown, unknown]> | undefined {
  if (v instanceof Map) return [...v.entries()];
  if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) return Object.entries(v);
  return undefined;
}
