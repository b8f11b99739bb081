/**
 * How Go prints the JSON values of an unstructured object, where Kubernetes turns them into
 * text: `fmt.Sprint` (selectable field values, printer-column cells of scalars) and
 * `json.Marshal` (printer-column cells of maps and lists: sorted keys, HTML characters escaped).
 * Integral numbers are int64 in an unstructured object, the others float64.
 */
import { goFloat } from '../../scheme/structural/go-format';

/** A number as Go prints an int64 or a float64 of an unstructured object. */
export function goNumberText(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

/** `fmt.Sprint` of a scalar JSON value (strings as they are, `true`, `42`, `1.5`, `1e+06`). */
export function goSprint(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumberText(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '<nil>';
  return goMarshal(v);
}

const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** `json.Marshal` of a JSON value: keys sorted, `<`, `>`, `&`, U+2028/2029 escaped, int64 as integers. */
export function goMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c]);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : JSON.stringify(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goMarshal).join(',')}]`;
  const obj = v as Record<string, unknown>;
  // Go sorts map keys by their bytes; for the UTF-16 of JS strings the order matches outside surrogates.
  const keys = Object.keys(obj).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${goMarshal(k)}:${goMarshal(obj[k])}`).join(',')}}`;
}
