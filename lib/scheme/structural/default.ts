/**
 * Defaulting (Kubernetes' `defaulting.Default` and `PruneNonNullableNullsWithoutDefaults`):
 * missing properties, and non-nullable nulls, take a deep copy of their schema's default,
 * top-down; map values and list items that are non-nullable nulls take their schema's default;
 * non-nullable nulls without a default are dropped first.
 */
import { Structural, additionalSchema, hasDefaultBelow, isObject } from './structural';

const copy = (v: unknown): unknown => (typeof v === 'object' && v !== null ? structuredClone(v) : v);
const nonNullableNull = (x: unknown, s: Structural | undefined) => x === null && !!s && !s.nullable;

/** Applies the defaults of `s` to `x` in place. Returns whether anything changed. */
export function applyDefaults(x: unknown, s: Structural | undefined): boolean {
  // Nulls are replaced by the default of their own schema, read here from the parent: a subtree
  // without any default has nothing to do.
  if (!s || !hasDefaultBelow(s)) return false;
  let changed = false;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], s.items) && s.items?.hasDefault) { x[i] = copy(s.items.default); changed = true; }
      if (applyDefaults(x[i], s.items)) changed = true;
    }
    return changed;
  }
  if (!isObject(x)) return false;
  if (s.properties) {
    for (const [k, p] of Object.entries(s.properties)) {
      if (!p.hasDefault) continue;
      if (!Object.hasOwn(x, k) || nonNullableNull(x[k], p)) { x[k] = copy(p.default); changed = true; }
    }
  }
  const ap = additionalSchema(s);
  for (const k of Object.keys(x)) {
    const p = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    if (p) {
      if (applyDefaults(x[k], p)) changed = true;
    } else if (ap) {
      if (nonNullableNull(x[k], ap) && ap.hasDefault) { x[k] = copy(ap.default); changed = true; }
      if (applyDefaults(x[k], ap)) changed = true;
    }
  }
  return changed;
}

/** Drops, in place, nulls whose schema is neither nullable nor defaulted. Returns whether anything changed. */
export function pruneNonNullableNulls(x: unknown, s: Structural | undefined): boolean {
  // Without a schema nothing is dropped, at any depth.
  if (!s) return false;
  let changed = false;
  if (Array.isArray(x)) {
    for (const v of x) if (pruneNonNullableNulls(v, s?.items)) changed = true;
    return changed;
  }
  if (!isObject(x)) return false;
  for (const k of Object.keys(x)) {
    const sub = s ? (s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : additionalSchema(s)) : undefined;
    if (x[k] === null && sub && !sub.nullable && !sub.hasDefault) { delete x[k]; changed = true; }
    else if (pruneNonNullableNulls(x[k], sub)) changed = true;
  }
  return changed;
}

/** True when some node of `s` declares a default (read-defaulting can then change stored objects). */
export function hasDefaults(s: Structural | undefined): boolean {
  return s !== undefined && hasDefaultBelow(s);
}
