/**
 * The arithmetic LimitRanger does on resource lists (plugin/pkg/admission/limitranger of
 * Kubernetes 1.32): lists of parsed quantities, Quantity.Add and the max of two lists as the pod
 * totals need them, and the comparison at a common precision (requestLimitEnforcedValues: milli
 * units unless a value would overflow them, whole units then; both rounded up).
 */
import { Quantity, compareQuantities, formatQuantity, quantityValue, tryParseQuantity } from '../../meta/quantity';

export type ResourceList = Map<string, Quantity>;

/** resource.MaxMilliValue. */
export const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

/** A JSON ResourceList as parsed quantities (values that do not parse are left out). */
export function parseList(raw: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw)) {
    const q = tryParseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
}

/** Quantity.MilliValue(): thousandths, rounded up. */
export const milliValue = (q: Quantity): bigint => quantityValue({ ...q, scale: q.scale + 3 });

/** Quantity.String(). */
export const show = (q: Quantity): string => formatQuantity(q);

const ZERO: Quantity = { value: 0n, scale: 0, format: 'DecimalSI' };

/** requestLimitEnforcedValues: the three amounts at one precision (absent ones are zero). */
export function enforcedValues(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const all = [req ?? ZERO, lim ?? ZERO, enforced];
  const values = all.map(quantityValue);
  if (values.every((v) => v <= MAX_MILLI_VALUE)) return all.map(milliValue) as [bigint, bigint, bigint];
  return values as [bigint, bigint, bigint];
}

/** Quantity.Add: exact; the sum keeps the receiver's format unless the receiver is zero. */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const scale = Math.min(a.scale, b.scale);
  const value = a.value * 10n ** BigInt(a.scale - scale) + b.value * 10n ** BigInt(b.scale - scale);
  return { value, scale, format: a.value === 0n ? b.format : a.format };
}

/** addResourceList: adds every quantity of `more` into `list`. */
export function addList(list: ResourceList, more: ResourceList): void {
  for (const [k, q] of more) {
    const have = list.get(k);
    list.set(k, have ? addQuantity(have, q) : q);
  }
}

/** maxResourceList: `list` keeps the greater of its own and `other`'s quantity for each of `other`'s names. */
export function maxList(list: ResourceList, other: ResourceList): void {
  for (const [k, q] of other) {
    const have = list.get(k);
    if (!have || compareQuantities(q, have) > 0) list.set(k, q);
  }
}
