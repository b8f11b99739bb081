/**
 * Kubernetes' quantity library (library/quantity.go, in the base environment since 1.28):
 * `quantity(string)` (lib/meta's resource.Quantity parser, Kubernetes' parse errors), `isQuantity`,
 * and on a kubernetes.Quantity: sign, isInteger, asInteger ("cannot convert value to integer" when
 * fractional or past int64), asApproximateFloat, add and sub (of a quantity or an int), compareTo,
 * isGreaterThan, isLessThan; equality compares amounts (1 == 1000m).
 *
 * Cost (library/cost.go): quantity and isQuantity cost ceil(size * 0.1); the rest 1 (QUANTITY_COSTS).
 */

import { registerLibrary } from '../environment';
import { compareQuantities, parseQuantity, quantitySign, type Quantity } from '../../meta/quantity';
import { celError, INT64_MAX, INT64_MIN } from './engine';
import { STRING_TRAVERSAL, type CostTable } from './cost-table';

/** The CEL kubernetes.Quantity value. */
export class KubernetesQuantity {
  constructor(readonly q: Quantity) {}
  celEquals(other: unknown): boolean {
    return other instanceof KubernetesQuantity && compareQuantities(this.q, other.q) === 0;
  }
}

function toQuantity(s: string): KubernetesQuantity {
  try {
    return new KubernetesQuantity(parseQuantity(s));
  } catch (e) {
    throw celError((e as Error).message);
  }
}

function isQuantity(s: string): boolean {
  try {
    parseQuantity(s);
    return true;
  } catch {
    return false;
  }
}

const digitCount = (v: bigint): number => (v < 0n ? -v : v).toString().length;

/** Exponents this far apart are not aligned for exact sums (10^(difference) digits); the result errors. */
const MAX_SCALE_DIFFERENCE = 10_000;

/** The amount when it is a whole number within int64 (Quantity.AsInt64's ok), else undefined. */
function asInt64(q: Quantity): bigint | undefined {
  if (q.value === 0n) return 0n;
  let v: bigint;
  if (q.scale >= 0) {
    if (digitCount(q.value) + q.scale > 19) return undefined;
    v = q.value * 10n ** BigInt(q.scale);
  } else {
    if (-q.scale >= digitCount(q.value)) return undefined;
    const div = 10n ** BigInt(-q.scale);
    if (q.value % div !== 0n) return undefined;
    v = q.value / div;
  }
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

function addQuantities(a: Quantity, b: Quantity, negate: boolean): KubernetesQuantity {
  if (b.value === 0n) return new KubernetesQuantity(a);
  if (a.value === 0n) return new KubernetesQuantity(negate ? { ...b, value: -b.value } : b);
  if (Math.abs(a.scale - b.scale) > MAX_SCALE_DIFFERENCE) throw celError('quantity arithmetic out of range');
  const scale = Math.min(a.scale, b.scale);
  const av = a.value * 10n ** BigInt(a.scale - scale);
  const bv = b.value * 10n ** BigInt(b.scale - scale);
  const value = negate ? av - bv : av + bv;
  return new KubernetesQuantity({ value, scale, format: a.value === 0n ? b.format : a.format });
}

const fromInt = (i: bigint): Quantity => ({ value: i, scale: 0, format: 'DecimalExponent' });

export const QUANTITY_COSTS: CostTable = {
  quantity: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  isQuantity: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
};

registerLibrary((env) => {
  const T = 'kubernetes.Quantity';
  env.registerType(T, KubernetesQuantity);
  env.registerOperator(`${T} == ${T}`, (a: KubernetesQuantity, b: KubernetesQuantity) => a.celEquals(b));
  env.registerFunction(`quantity(string): ${T}`, toQuantity);
  env.registerFunction('isQuantity(string): bool', isQuantity);
  env.registerFunction(`${T}.sign(): int`, (a: KubernetesQuantity) => BigInt(quantitySign(a.q)));
  env.registerFunction(`${T}.isInteger(): bool`, (a: KubernetesQuantity) => asInt64(a.q) !== undefined);
  env.registerFunction(`${T}.asInteger(): int`, (a: KubernetesQuantity) => {
    const v = asInt64(a.q);
    if (v === undefined) throw celError('cannot convert value to integer');
    return v;
  });
  env.registerFunction(`${T}.asApproximateFloat(): double`, (a: KubernetesQuantity) => Number(a.q.value) * 10 ** a.q.scale);
  env.registerFunction(`${T}.add(${T}): ${T}`, (a: KubernetesQuantity, b: KubernetesQuantity) => addQuantities(a.q, b.q, false));
  env.registerFunction(`${T}.add(int): ${T}`, (a: KubernetesQuantity, b: bigint) => addQuantities(a.q, fromInt(b), false));
  env.registerFunction(`${T}.sub(${T}): ${T}`, (a: KubernetesQuantity, b: KubernetesQuantity) => addQuantities(a.q, b.q, true));
  env.registerFunction(`${T}.sub(int): ${T}`, (a: KubernetesQuantity, b: bigint) => addQuantities(a.q, fromInt(b), true));
  env.registerFunction(`${T}.compareTo(${T}): int`, (a: KubernetesQuantity, b: KubernetesQuantity) => BigInt(compareQuantities(a.q, b.q)));
  env.registerFunction(`${T}.isGreaterThan(${T}): bool`, (a: KubernetesQuantity, b: KubernetesQuantity) => compareQuantities(a.q, b.q) > 0);
  env.registerFunction(`${T}.isLessThan(${T}): bool`, (a: KubernetesQuantity, b: KubernetesQuantity) => compareQuantities(a.q, b.q) < 0);
});
