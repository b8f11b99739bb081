/**
 * resource.Quantity: Kubernetes' fixed-point numbers with suffixes (`1Gi`, `500m`, `1e3`).
 * Parsing, comparison and the canonical form follow apimachinery's resource package, since
 * clients compare the strings the server returns (`1.5Gi` is stored and returned as `1536Mi`).
 * Amounts are exact: `value * 10^scale` with a bigint value.
 */

/** How a quantity was written, which decides how it is printed again. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact amount: `value * 10^scale`, with the format it is printed in. */
export interface Quantity {
  value: bigint;
  scale: number;
  format: QuantityFormat;
}

/** Kubernetes' ErrFormatWrong text: the decode error for a string that is no quantity. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";

/** A string (or JSON number) that is not a quantity; `message` is Kubernetes' text. */
export class QuantityError extends Error {
  readonly code = 'InvalidQuantity';
}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXPONENT = new Map<number, string>(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map<number, string>([[0, ''], ...Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s] as [number, string])]);

const NUMBER_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/;
const EXPONENT_RE = /^[eE]([+-]?[0-9]+)$/;
const NANO = -9;

const pow = (base: bigint, n: number): bigint => base ** BigInt(n);

/** `q` with at most `-scale` fractional digits, rounding away from zero (inf.RoundUp). */
export function roundUp(q: Quantity, scale: number): Quantity {
  if (q.scale >= scale) return q;
  // Every digit is dropped (1e-999999999): ±1 unit, without computing 10^(huge).
  if (scale - q.scale > digitCount(q.value)) return { ...q, value: q.value === 0n ? 0n : q.value < 0n ? -1n : 1n, scale };
  const div = pow(10n, scale - q.scale);
  let v = q.value / div;
  if (v * div !== q.value) v += q.value < 0n ? -1n : 1n;
  return { ...q, value: v, scale };
}

/**
 * ParseQuantity: an optional sign, a decimal number and a suffix (SI, binary or exponent).
 * Throws QuantityError with Kubernetes' message. More precision than nano is rounded up.
 */
export function parseQuantity(input: string | number): Quantity {
  const s = typeof input === 'number' ? String(input) : input;
  const m = NUMBER_RE.exec(s);
  if (!s || !m || (!m[2] && !m[3])) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const [, sign, whole, fraction = '', suffix] = m;
  let value = BigInt(`${whole}${fraction}` || '0');
  let scale = -fraction.length;
  let format: QuantityFormat;
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    format = 'DecimalSI';
    scale += DECIMAL_SUFFIXES[suffix];
  } else if (Object.hasOwn(BINARY_SUFFIXES, suffix)) {
    format = 'BinarySI';
    value *= pow(1024n, BINARY_SUFFIXES[suffix]);
  } else if (EXPONENT_RE.test(suffix)) {
    format = 'DecimalExponent';
    scale += Number((EXPONENT_RE.exec(suffix) as RegExpExecArray)[1]);
  } else if (/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) {
    throw new QuantityError(SUFFIX_ERROR);
  } else {
    throw new QuantityError(QUANTITY_FORMAT_ERROR);
  }
  if (sign === '-') value = -value;
  const q: Quantity = { value, scale, format };
  return value === 0n ? { value: 0n, scale: 0, format } : roundUp(q, NANO);
}

/** The amount when it is a whole number, else undefined. */
function integerAmount(q: Quantity): bigint | undefined {
  if (q.scale >= 0) return q.value * pow(10n, q.scale);
  const div = pow(10n, -q.scale);
  return q.value % div === 0n ? q.value / div : undefined;
}

/** Moves factors of `base` from `v` into a count (v != 0). */
function removeFactors(v: bigint, base: bigint, max = Infinity): [bigint, number] {
  let n = 0;
  while (n < max && v % base === 0n) {
    v /= base;
    n++;
  }
  return [v, n];
}

/** Quantity.String(): the canonical form, the one Kubernetes serializes. */
export function formatQuantity(q: Quantity): string {
  if (q.value === 0n) return '0';
  if (q.format === 'BinarySI' && compare(q, { value: 1024n, scale: 0 }) < 0 && compare(q, { value: -1024n, scale: 0 }) > 0) {
    return formatQuantity({ ...q, format: 'DecimalSI' });
  }
  if (q.format === 'BinarySI') {
    const whole = integerAmount(q);
    if (whole === undefined) return formatQuantity({ ...q, format: 'DecimalSI' });
    const [amount, exp] = removeFactors(whole, 1024n, 6);
    return `${amount}${BINARY_BY_EXPONENT.get(exp)}`;
  }
  let [amount, times] = removeFactors(q.value, 10n);
  let exponent = q.scale + times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  const suffix = q.format === 'DecimalSI' && DECIMAL_BY_EXPONENT.has(exponent)
    ? DECIMAL_BY_EXPONENT.get(exponent) : (exponent === 0 ? '' : `e${exponent}`);
  return `${amount}${suffix}`;
}

/** The number of decimal digits of |v|. */
function digitCount(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

function compare(a: Pick<Quantity, 'value' | 'scale'>, b: Pick<Quantity, 'value' | 'scale'>): number {
  // Different signs or orders of magnitude decide without aligning scales (1e999999999 vs 1m would
  // otherwise compute 10^(huge)); with equal magnitudes the scales differ by at most the digit counts.
  const sa = a.value < 0n ? -1 : a.value > 0n ? 1 : 0;
  const sb = b.value < 0n ? -1 : b.value > 0n ? 1 : 0;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const ma = digitCount(a.value) + a.scale;
  const mb = digitCount(b.value) + b.scale;
  if (ma !== mb) return (ma < mb ? -1 : 1) * sa;
  const scale = Math.min(a.scale, b.scale);
  const av = a.value * pow(10n, a.scale - scale);
  const bv = b.value * pow(10n, b.scale - scale);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b` (Quantity.Cmp). */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return compare(a, b);
}

/** -1, 0 or 1: the sign of `q` (Quantity.Sign). */
export function quantitySign(q: Quantity): number {
  return q.value < 0n ? -1 : q.value > 0n ? 1 : 0;
}

/** Quantity.Value(): the amount rounded up to an integer (ceiling). */
export function quantityValue(q: Quantity): bigint {
  if (q.scale >= 0) return q.value * pow(10n, q.scale);
  const div = pow(10n, -q.scale);
  const v = q.value / div;
  return q.value > 0n && v * div !== q.value ? v + 1n : v;
}

/**
 * The canonical string of a stored quantity, or undefined when `raw` is no quantity (left for
 * validation to report). `milli`: round up to milli units first, as Kubernetes defaults every
 * ResourceList (claim requests, volume capacity).
 */
export function canonicalQuantity(raw: unknown, milli = false): string | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  try {
    const q = parseQuantity(raw);
    return formatQuantity(milli ? roundUp(q, -3) : q);
  } catch {
    return undefined;
  }
}

/** The parsed quantity, or undefined when `raw` is not one. */
export function tryParseQuantity(raw: unknown): Quantity | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  try {
    return parseQuantity(raw);
  } catch {
    return undefined;
  }
}
