/**
 * Runtime uniqueness of `x-kubernetes-list-type: set` items and `map` keys (Kubernetes'
 * `listtype.ValidateListSetsAndMaps`): duplicates are `Duplicate value` errors at the repeated
 * item, map items must be objects.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { Structural, additionalSchema, hasSetOrMapList, isObject } from './structural';

const UNSPECIFIED = '\u0000unspecified';

/** Errors of every set/map list under `obj` (an object validated by `s`), paths prefixed with `path`. */
export function validateListSetsAndMaps(path: string, s: Structural | undefined, obj: unknown): FieldError[] {
  if (!s || !isObject(obj) || !hasSetOrMapList(s)) return [];
  const errs: FieldError[] = [];
  const ap = additionalSchema(s);
  for (const k of Object.keys(obj)) {
    const sub = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : ap;
    // Checked before the path is built: most fields hold no set or map list.
    if (sub && hasSetOrMapList(sub)) errs.push(...value(path ? `${path}.${k}` : k, sub, obj[k]));
  }
  return errs;
}

function value(path: string, s: Structural, v: unknown): FieldError[] {
  if (!hasSetOrMapList(s)) return [];
  if (Array.isArray(v)) return array(path, s, v);
  if (isObject(v)) return validateListSetsAndMaps(path, s, v);
  return [];
}

// The canonical JSON of a value with sorted keys, so equal objects compare equal (Go marshals sorted).
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

// Indexes of the second occurrence of each repeated value.
function duplicates(keys: string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const n = seen.get(k) ?? 0;
    if (n === 1) out.push(i);
    seen.set(k, n + 1);
  });
  return out;
}

function array(path: string, s: Structural, items: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  if (s.xListType === 'set' && items.length > 1) {
    for (const i of duplicates(items.map(canonical))) errs.push(fieldErrors.duplicate(`${path}[${i}]`, items[i]));
  } else if (s.xListType === 'map') {
    const bad = items.findIndex((x) => x !== null && !isObject(x));
    if (bad >= 0) return [fieldErrors.invalid(`${path}[${bad}]`, items[bad], 'must be an object for an array of list-type map')];
    if (items.length > 1) {
      const keys = s.xListMapKeys ?? [];
      const keyOf = (x: unknown): Record<string, unknown> => {
        const out: Record<string, unknown> = {};
        if (isObject(x)) for (const k of keys) if (Object.hasOwn(x, k)) out[k] = x[k];
        return out;
      };
      const canon = items.map((x) => {
        const k = keyOf(x);
        return keys.length === 1 && !Object.hasOwn(k, keys[0]) ? UNSPECIFIED : canonical(k);
      });
      for (const i of duplicates(canon)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, keyOf(items[i])));
    }
  }
  if (s.items) items.forEach((x, i) => errs.push(...value(`${path}[${i}]`, s.items!, x)));
  return errs;
}
