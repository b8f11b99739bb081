/**
 * corev1.ResourceList arithmetic as Kubernetes' pkg/quota/v1 resources.go does it, over parsed
 * quantities: Add (the first operand's format wins, as Quantity.Add keeps its receiver's),
 * SubtractWithNonNegativeResult, Mask, LessThanOrEqual, RemoveZeros, and prettyPrint for the
 * admission messages ("name=value,..." sorted by name).
 */
import { Quantity, compareQuantities, formatQuantity, quantitySign, tryParseQuantity } from '../../meta/quantity';

export type ResourceList = Map<string, Quantity>;

const ZERO: Quantity = { value: 0n, scale: 0, format: 'DecimalSI' };

/** A ResourceList from JSON; entries that are no quantity are left out. */
export function parseResourceList(json: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!json || typeof json !== 'object' || Array.isArray(json)) return out;
  for (const [k, v] of Object.entries(json)) {
    const q = tryParseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
}

/** The JSON form, keys sorted. */
export function toJson(list: ResourceList): Record<string, string> {
  return Object.fromEntries([...list.keys()].sort().map((k) => [k, formatQuantity(list.get(k)!)]));
}

const align = (a: Quantity, b: Quantity): [bigint, bigint, number] => {
  const scale = Math.min(a.scale, b.scale);
  return [a.value * 10n ** BigInt(a.scale - scale), b.value * 10n ** BigInt(b.scale - scale), scale];
};

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const [av, bv, scale] = align(a, b);
  return { value: av + bv, scale, format: a.format };
}

export function subQuantity(a: Quantity, b: Quantity): Quantity {
  const [av, bv, scale] = align(a, b);
  return { value: av - bv, scale, format: a.format };
}

export const quantity = (n: number | bigint): Quantity => ({ value: BigInt(n), scale: 0, format: 'DecimalSI' });

/** quota.Add: every key of either, summed. */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? addQuantity(out.get(k)!, v) : v);
  return out;
}

/** quota.SubtractWithNonNegativeResult: a - b per key of a, never below zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const d = b.has(k) ? subQuantity(v, b.get(k)!) : v;
    out.set(k, quantitySign(d) < 0 ? { ...ZERO, format: v.format } : d);
  }
  return out;
}

/** quota.Mask: only the named keys. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) if (list.has(n)) out.set(n, list.get(n)!);
  return out;
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, v]) => quantitySign(v) !== 0));
}

/** quota.IsNegative: the names with a negative amount. */
export const negativeNames = (list: ResourceList): string[] => [...list].filter(([, v]) => quantitySign(v) < 0).map(([k]) => k);

/** quota.LessThanOrEqual: whether a <= b for every key of a that b has, and the names that are not. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [k, v] of a) {
    const limit = b.get(k);
    if (limit && compareQuantities(v, limit) > 0) exceeded.push(k);
  }
  return { allowed: exceeded.length === 0, exceeded };
}

/** prettyPrint: `a=1,b=2` sorted by name. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${formatQuantity(list.get(k)!)}`).join(',');
}

/** Two lists hold the same amounts (quota.Equals). */
export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || compareQuantities(v, w) !== 0) return false;
  }
  return true;
}

/** The max per key of both lists (quota.Max). */
export function max(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) if (!out.has(k) || compareQuantities(v, out.get(k)!) > 0) out.set(k, v);
  return out;
}
