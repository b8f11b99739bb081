/**
 * How Kubernetes prints a resource.Quantity as a field error's bad value: field.Invalid
 * dereferences the *Quantity and, Quantity's String() having a pointer receiver, falls back to
 * Go's %#v of the struct, e.g. `resource.Quantity{i:resource.int64Amount{value:-1, scale:0},
 * d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}`. The fields are
 * what ParseQuantity makes of the string as written (its fast int64 path, which keeps the string
 * in `s` when it is already canonical); quantities beyond that path print as their string.
 */
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const MAX_INT64_FACTORS = 18;
const NANO = -9;

/** parseQuantityString: sign, numerator (leading zeros stripped), denominator, suffix. */
function split(str: string): { positive: boolean; num: string; denom: string; suffix: string } | undefined {
  const m = /^([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(str);
  if (!m) return undefined;
  return { positive: m[1] !== '-', num: m[2] || '0', denom: m[3] ?? '', suffix: m[4] };
}

/** `value` printed as Go's %#v of the Quantity ParseQuantity returns for it, or undefined. */
export function goQuantity(value: unknown): string | undefined {
  const str = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (str === undefined || str === '') return undefined;
  const show = (v: bigint, scale: number, s: string, format: string) =>
    `resource.Quantity{i:resource.int64Amount{value:${v}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(s)}, Format:"${format}"}`;
  if (str === '0') return show(0n, 0, '0', 'DecimalSI');
  const parts = split(str);
  if (!parts) return undefined;
  const { positive, num, denom, suffix } = parts;
  let format: string;
  let exponent: number;
  if (suffix in BINARY) { format = 'BinarySI'; exponent = BINARY[suffix]; }
  else if (suffix in DECIMAL) { format = 'DecimalSI'; exponent = DECIMAL[suffix]; }
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) { format = 'DecimalExponent'; exponent = Number(suffix.slice(1)); }
  else return undefined;
  let scale: number;
  let mantissa = 1n;
  let precision: number;
  if (format === 'BinarySI') {
    scale = 0;
    if (denom.length !== 0) return undefined;
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc(exponent * 3 / 10) - 1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < NANO) return undefined;
  const shifted = num + denom;
  let result = BigInt(shifted) * mantissa;
  if (result > 9223372036854775807n) return undefined;
  if (!positive) result = -result;
  const canonical = format === 'BinarySI'
    ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n
    : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  return show(result, scale, canonical ? str : '', format);
}
