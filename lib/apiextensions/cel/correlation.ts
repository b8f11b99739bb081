/**
 * Old/new correlation for validation ratcheting (Kubernetes' apiserver/pkg/cel/common
 * CorrelatedObject and the CRD validator's ratchetingOptions): a node of the new object is paired
 * with the old value at the same place (object properties and map values by key,
 * `x-kubernetes-list-type: map` items by their keys, `set` items by value; atomic lists do not
 * correlate). An error at a node is ratcheted (not reported) when the node, or its nearest
 * correlated ancestor when it has none, equals its old value: unchanged invalid data may stay.
 */
import { Structural, additionalSchema, isObject } from '../../scheme/structural/structural';
import { FieldError } from '../../meta/field-errors';

/** Kubernetes' semantic DeepEqual on JSON values (null and an empty list or map are equal). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const empty = (v: unknown) => v === null || v === undefined;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (empty(a) || empty(b)) return ((a ?? []) as unknown[]).length === 0 && ((b ?? []) as unknown[]).length === 0;
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (empty(a) || empty(b)) return Object.keys(a ?? b ?? {}).length === 0;
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A new value paired with its old value, with the deep-equality computed once. */
class CorrelatedObject {
  private eq?: boolean;
  constructor(readonly value: unknown, readonly old: unknown, readonly schema: Structural | undefined) {}
  equal(): boolean {
    this.eq ??= deepEqual(this.value, this.old);
    return this.eq;
  }
  key(k: string): CorrelatedObject | undefined {
    if (!isObject(this.value) || !isObject(this.old) || !Object.hasOwn(this.value, k) || !Object.hasOwn(this.old, k)) return undefined;
    const s = this.schema?.properties ? this.schema.properties[k] : additionalSchema(this.schema);
    return new CorrelatedObject(this.value[k], this.old[k], s);
  }
  index(i: number): CorrelatedObject | undefined {
    if (!Array.isArray(this.value) || !Array.isArray(this.old) || i >= this.value.length) return undefined;
    const item = this.value[i];
    let old: unknown;
    if (this.schema?.xListType === 'map') {
      const keys = this.schema.xListMapKeys ?? [];
      if (!isObject(item) || !keys.length) return undefined;
      old = this.old.find((o) => isObject(o) && keys.every((k) => deepEqual(o[k], item[k])));
    } else if (this.schema?.xListType === 'set') {
      old = this.old.find((o) => deepEqual(o, item));
    }
    return old === undefined ? undefined : new CorrelatedObject(item, old, this.schema?.items);
  }
}

/** Where a validation walk is: the node's correlation and its parent's. Absent on create. */
export interface Correlation { current?: CorrelatedObject; parent?: CorrelatedObject }

export function rootCorrelation(obj: unknown, old: unknown, s: Structural): Correlation {
  return { current: new CorrelatedObject(obj, old, s) };
}

export function correlateKey(c: Correlation | undefined, k: string, isRoot: boolean): Correlation | undefined {
  if (!c?.current) return c;
  // apiVersion and kind are not ratcheted: both objects are converted to the same version.
  if (isRoot && (k === 'apiVersion' || k === 'kind')) return {};
  return { current: c.current.key(k), parent: c.current };
}

export function correlateIndex(c: Correlation | undefined, i: number): Correlation | undefined {
  if (!c?.current) return c;
  return { current: c.current.index(i), parent: c.current };
}

/** Whether an error at this node is ratcheted. */
export function shouldRatchet(c: Correlation | undefined): boolean {
  if (!c) return false;
  if (c.current) return c.current.equal();
  return c.parent?.equal() ?? false;
}

// `spec.list[2].name`, `spec.labels[a.b]` → ['spec', 'list', '[2]', 'name'] (brackets kept whole).
function segments(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  let cur = '';
  while (i < path.length) {
    const c = path[i];
    if (c === '.') { if (cur) out.push(cur); cur = ''; i++; continue; }
    if (c === '[') {
      if (cur) out.push(cur);
      cur = '';
      const end = path.indexOf(']', i);
      out.push(path.slice(i, end < 0 ? path.length : end + 1));
      i = end < 0 ? path.length : end + 1;
      continue;
    }
    cur += c;
    i++;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Schema-validation ratcheting (CRDValidationRatcheting, on in 1.32): drops the errors of an
 * update whose value is unchanged from the old object (Required errors: whose parent is
 * unchanged). Errors at paths that cannot be followed are kept.
 */
export function ratchetSchemaErrors(errors: FieldError[], obj: unknown, old: unknown, s: Structural): FieldError[] {
  if (!errors.length) return errors;
  return errors.filter((e) => {
    if (!e.field || e.field === '<nil>') return true;
    const segs = segments(e.field);
    if (e.type === 'FieldValueRequired') segs.pop();
    let c: Correlation | undefined = rootCorrelation(obj, old, s);
    let isRoot = true;
    for (const seg of segs) {
      const sch: Structural | undefined = c?.current?.schema;
      if (seg.startsWith('[')) {
        const inner = seg.slice(1, -1);
        c = Array.isArray(c?.current?.value) && /^\d+$/.test(inner) && sch?.items !== undefined
          ? correlateIndex(c, Number(inner)) : correlateKey(c, inner, false);
      } else {
        if (isRoot && seg === 'metadata') return true;
        c = correlateKey(c, seg, isRoot);
      }
      isRoot = false;
    }
    return !shouldRatchet(c);
  });
}
