/**
 * `"...".format([args])` as cel-go v0.22's strings extension (Kubernetes 1.32) implements it: clauses
 * %s, %d, %f, %e, %b, %x, %X, %o and %%, a precision for %f (`%.2f`), the en_US number printer for
 * %f and %e (thousands grouping, ∞ and NaN), lists and maps printed as CEL literals (map entries
 * sorted by key), and cel-go's error texts ("could not parse formatting clause: ...", "error during
 * formatting: ...", "index 1 out of range").
 */

import { celError, DurationClass, Optional, UintClass, type DurationValue } from './engine';

const DEFAULT_PRECISION = 6;

/** The CEL type name cel-go puts in its formatting errors. */
function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof UintClass) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof DurationClass) return 'google.protobuf.Duration';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Optional) return 'optional_type';
  if (v instanceof Map || Object.getPrototypeOf(v) === Object.prototype) return 'map';
  const ctor = (v as object).constructor as { name?: string } | undefined;
  return ctor?.name ?? 'object';
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which CEL's string(double) uses: shortest digits, %e past 1e6 and below 1e-4. */
export function goFloatString(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const sign = f < 0 ? '-' : '';
  const [mant, ex] = Math.abs(f).toExponential().split('e');
  const exp = Number(ex);
  if (exp < -4 || exp >= 6) return `${sign}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const digits = mant.replace('.', '');
  const intPart = exp >= 0 ? digits.slice(0, exp + 1).padEnd(exp + 1, '0') : '0';
  const frac = exp >= 0 ? digits.slice(exp + 1) : '0'.repeat(-exp - 1) + digits;
  return sign + intPart + (frac ? '.' + frac : '');
}

export function durationString(d: DurationValue): string {
  const nanos = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const neg = nanos < 0n;
  const abs = neg ? -nanos : nanos;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? '.' + frac : ''}s`;
}

export function timestampString(t: Date): string {
  return t.toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}

/** Go's %q of a string. */
function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0) as number;
    if (c === '"' || c === '\\') out += '\\' + c;
    else if (c === '\x07') out += '\\a';
    else if (c === '\b') out += '\\b';
    else if (c === '\f') out += '\\f';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else out += c;
  }
  return out + '"';
}

function bytesToString(b: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    throw celError('invalid UTF-8 in bytes, cannot convert to string');
  }
}

/** %s: CEL's string() of scalars, lists and maps as CEL literals. */
function formatString(v: unknown): string {
  if (Array.isArray(v)) return formatList(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean' || v instanceof UintClass) return String(v);
  if (typeof v === 'number') return goFloatString(v);
  if (v instanceof Uint8Array) return bytesToString(v);
  if (v instanceof Date) return timestampString(v);
  if (v instanceof DurationClass) return durationString(v);
  if (v instanceof Map || (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)) return formatMap(v as object);
  if (typeof v === 'object' && (v as object).constructor?.name === 'Type') return String((v as { name: unknown }).name);
  throw celError(`error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeName(v)}`);
}

/** An element of a list or map printed inside %s: as a CEL literal. */
function literal(v: unknown): string {
  if (typeof v === 'bigint' || v instanceof UintClass) return String(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return goQuote(fixed(v, DEFAULT_PRECISION, false));
    return fixed(v, DEFAULT_PRECISION, false);
  }
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof Uint8Array) return 'b' + goQuote(bytesToString(v));
  if (v instanceof Date) return `timestamp(${goQuote(timestampString(v))})`;
  if (v instanceof DurationClass) return `duration(${goQuote(durationString(v))})`;
  return formatString(v);
}

function formatList(list: unknown[]): string {
  return '[' + list.map(literal).join(', ') + ']';
}

function formatMap(m: object): string {
  const entries: Array<[unknown, unknown]> = m instanceof Map ? [...m.entries()] : Object.entries(m);
  const pairs = entries.map(([k, v]) => {
    if (!(typeof k === 'string' || typeof k === 'boolean' || typeof k === 'bigint' || k instanceof UintClass)) {
      throw celError(`no formatting function for map key of type ${typeName(k)}`);
    }
    return [literal(k), literal(v)] as [string, string];
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return '{' + pairs.map(([k, v]) => `${k}:${v}`).join(', ') + '}';
}

/**
 * Go's %.Nf of a non-negative finite double: the exact binary value rounded to N digits, a tie to
 * even (JavaScript's toFixed rounds a tie up: 2.5 gives "3" where Go gives "2").
 */
function goToFixed(x: number, precision: number): string {
  const exact = x.toFixed(100);
  const [intPart, frac] = exact.split('.');
  const kept = frac.slice(0, precision);
  const rest = frac.slice(precision);
  const tie = rest[0] === '5' && /^0*$/.test(rest.slice(1));
  if (!tie) return x.toFixed(precision);
  const digits = intPart + kept;
  const odd = Number(digits[digits.length - 1]) % 2 === 1;
  if (!odd) return precision === 0 ? intPart : `${intPart}.${kept}`;
  return x.toFixed(precision);
}

function group(intPart: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** %f: fixed point; with the en_US printer (`localized`) integer digits are grouped and infinities print as ∞. */
function fixed(f: number, precision: number, localized: boolean): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return localized ? (f > 0 ? '∞' : '-∞') : f > 0 ? '+Inf' : '-Inf';
  const s = goToFixed(Math.abs(f), Math.min(precision, 100));
  const [i, frac] = s.split('.');
  const sign = f < 0 || Object.is(f, -0) ? '-' : '';
  return sign + (localized ? group(i) : i) + (frac !== undefined ? '.' + frac : '');
}

function scientific(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '∞' : '-∞';
  const [m, x] = Math.abs(f).toExponential(DEFAULT_PRECISION).split('e');
  const n = Number(x);
  return `${f < 0 ? '-' : ''}${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

function doubleArg(v: unknown, clause: 'fixed-point' | 'scientific'): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw celError(`error during formatting: ${clause} clause can only be used on doubles, was given ${typeName(v)}`);
}

function integer(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (v instanceof UintClass) return v.valueOf();
  return undefined;
}

function signed(n: bigint, radix: number): string {
  return (n < 0n ? '-' : '') + (n < 0n ? -n : n).toString(radix);
}

function hex(v: unknown, upper: boolean): string {
  let out: string;
  const n = integer(v);
  if (n !== undefined) out = signed(n, 16);
  else if (typeof v === 'string') out = Buffer.from(v, 'utf8').toString('hex');
  else if (v instanceof Uint8Array) out = Buffer.from(v).toString('hex');
  else throw celError(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`);
  return upper ? out.toUpperCase() : out;
}

function clause(verb: string, precision: number | undefined, v: unknown): string {
  switch (verb) {
    case 's':
      return formatString(v);
    case 'd': {
      const n = integer(v);
      if (n === undefined) throw celError(`error during formatting: decimal clause can only be used on integers, was given ${typeName(v)}`);
      return n.toString();
    }
    case 'f':
      return fixed(doubleArg(v, 'fixed-point'), precision ?? DEFAULT_PRECISION, true);
    case 'e':
      return scientific(doubleArg(v, 'scientific'));
    case 'b': {
      if (typeof v === 'boolean') return v ? '1' : '0';
      const n = integer(v);
      if (n === undefined) throw celError(`error during formatting: only integers and bools can be formatted as binary, was given ${typeName(v)}`);
      return signed(n, 2);
    }
    case 'x':
    case 'X':
      return hex(v, verb === 'X');
    default: {
      const n = integer(v);
      if (n === undefined) throw celError(`error during formatting: octal clause can only be used on integers, was given ${typeName(v)}`);
      return signed(n, 8);
    }
  }
}

/** The string.format(list) function. */
export function formatStringList(format: string, args: unknown[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    if (format[i] !== '%') {
      out += format[i++];
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw celError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw celError('unexpected end of string');
    let j = i + 1;
    let precision: number | undefined;
    if (format[j] === '.') {
      j++;
      let digits = '';
      for (;;) {
        if (j >= format.length) throw celError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
        if (!/[0-9]/.test(format[j])) break;
        digits += format[j++];
      }
      if (digits === '') throw celError('could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax');
      precision = Number(digits);
    }
    const verb = format[j];
    if (!'sdfebxXo'.includes(verb)) throw celError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    out += clause(verb, precision, args[argIndex]);
    argIndex++;
    i = j + 1;
  }
  return out;
}
