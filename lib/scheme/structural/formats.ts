/**
 * The string formats custom resources may use (Kubernetes' `supportedVersionedFormats` at 1.32,
 * checked with go-openapi's strfmt semantics) and the numeric formats' ranges. Format names are
 * compared with `-` removed (`date-time` = `datetime`); every other format is ignored, as
 * Kubernetes strips unknown formats before validating.
 */
import { isIP, isIPv4, isIPv6 } from 'node:net';

const re = (r: RegExp) => (s: string) => r.test(s);

const uuid = re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);
const uuid3 = re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);
const uuid4 = re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i);
const uuid5 = re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i);
const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const RGB_PART = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const RGB = new RegExp(`^rgb\\(${RGB_PART},${RGB_PART},${RGB_PART}\\)$`);
const CREDIT = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const DURATION_GO = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$/;
const DURATION_SCALA = /^(\d+)\s*(ns|nanos?|nanoseconds?|us|micros?|microseconds?|ms|millis?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?|w|wks?|weeks?)$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1];
}
function date(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return !!m && validDate(+m[1], +m[2], +m[3]);
}
// strfmt.ParseDateTime accepts RFC 3339 with or without fractional seconds, and a few ISO 8601 variants.
function dateTime(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m || !validDate(+m[1], +m[2], +m[3])) return false;
  return +m[4] < 24 && +m[5] < 60 && (m[6] === undefined || +m[6] < 60);
}
function digitsOnly(s: string): string { return s.replace(/[\s-]/g, ''); }
function isbn10(s: string): boolean {
  const d = digitsOnly(s);
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (i + 1) * (d[i] === 'X' ? 10 : +d[i]);
  return sum % 11 === 0;
}
function isbn13(s: string): boolean {
  const d = digitsOnly(s);
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += +d[i] * (i % 2 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === +d[12];
}
function creditCard(s: string): boolean {
  const d = s.replace(/[^0-9]/g, '');
  if (!CREDIT.test(d)) return false;
  let sum = 0;
  let dbl = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = +d[i];
    if (dbl) { n *= 2; if (n > 9) n -= 9; }
    sum += n;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}
function uri(s: string): boolean {
  if (s.startsWith('/')) return !/\s/.test(s);
  try { new URL(s); return !/\s/.test(s); } catch { return false; }
}
function cidr(s: string): boolean {
  const i = s.indexOf('/');
  if (i < 0) return false;
  const ip = s.slice(0, i);
  const bits = s.slice(i + 1);
  if (!/^\d{1,3}$/.test(bits) || ip.includes('%')) return false;
  const v = isIP(ip);
  return v !== 0 && +bits <= (v === 4 ? 32 : 128);
}
function mac(s: string): boolean {
  return /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i.test(s) && new Set(s.replace(/[0-9a-f]/gi, '')).size === 1
    || /^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$/i.test(s) && new Set(s.replace(/[0-9a-f]/gi, '')).size === 1
    || /^([0-9a-f]{2}[:-]){19}[0-9a-f]{2}$/i.test(s) && new Set(s.replace(/[0-9a-f]/gi, '')).size === 1
    || /^([0-9a-f]{4}\.){2,9}[0-9a-f]{4}$/i.test(s) && [3, 4, 10].includes(s.split('.').length);
}

/** Validators of the supported string formats, by normalised name (no `-`). */
export const STRING_FORMATS: Record<string, (s: string) => boolean> = {
  bsonobjectid: re(/^[0-9a-f]{24}$/i),
  uri,
  email: re(/^[^@\s<>]+@[^@\s<>]+$/),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s),
  ipv4: (s) => !s.includes('%') && (isIPv4(s) || (isIPv6(s) && s.includes('.'))),
  ipv6: (s) => !s.includes('%') && isIPv6(s),
  cidr,
  mac,
  uuid, uuid3, uuid4, uuid5,
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10, isbn13,
  creditcard: creditCard,
  ssn: re(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/),
  hexcolor: re(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
  rgbcolor: (s) => RGB.test(s),
  byte: re(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/),
  password: () => true,
  date,
  duration: (s) => DURATION_GO.test(s) || s === '0' || DURATION_SCALA.test(s),
  datetime: dateTime,
};

/** The format Kubernetes keeps for a node of `type` (unsupported formats are stripped), or undefined. */
export function supportedFormat(type: string | undefined, format: string | undefined): string | undefined {
  if (!format) return undefined;
  switch (type ?? '') {
    case '':
    case 'string':
      return Object.hasOwn(STRING_FORMATS, format.replace(/-/g, '')) ? format : undefined;
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : undefined;
    case 'number':
      return format === 'float' || format === 'double' ? format : undefined;
    default:
      return undefined;
  }
}

const MAX_FLOAT32 = 3.4028234663852886e38;
/** Whether a number is within the range of a numeric format (int32, int64, float; double always). */
export function inNumericRange(format: string, v: number): boolean {
  switch (format) {
    case 'int32': return v >= -2147483648 && v <= 2147483647;
    case 'int64': return v >= -9223372036854775808 && v <= 9223372036854775807;
    case 'float': return Math.abs(v) <= MAX_FLOAT32 || !Number.isFinite(v);
    default: return true;
  }
}
