/**
 * Go's `%#v` of the values Kubernetes' field errors print that are neither numbers, booleans,
 * strings nor fmt.Stringers: label maps, label selectors, string and int32 slices. field.Invalid
 * prints a bad value so, and clients (and tests) compare messages exactly, so these follow Go's
 * formatting: map keys sorted, `(nil)` for nil maps and slices, a *LabelSelector dereferenced.
 */
import { FieldError } from './field-errors';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's %q of a string (JSON's escapes cover the usual characters). */
export const goQuote = (s: unknown): string => JSON.stringify(String(s));

/** `map[string]string{"a":"b", ...}`, or `map[string]string(nil)` when absent. */
export function goStringMap(m: unknown): string {
  if (!isObject(m)) return 'map[string]string(nil)';
  return `map[string]string{${Object.keys(m).sort().map((k) => `${goQuote(k)}:${goQuote(m[k])}`).join(', ')}}`;
}

/** `[]string{"a", "b"}`, or `[]string(nil)` when absent. */
export function goStrings(v: unknown): string {
  return Array.isArray(v) ? `[]string{${v.map(goQuote).join(', ')}}` : '[]string(nil)';
}

/** `[]int32{1, 2}`, or `[]int32(nil)` when absent. */
export function goInt32s(v: unknown): string {
  return Array.isArray(v) ? `[]int32{${v.map((x) => String(x)).join(', ')}}` : '[]int32(nil)';
}

/** `v1.LabelSelector{MatchLabels:..., MatchExpressions:...}`; `null` for an absent selector. */
export function goLabelSelector(sel: unknown): string {
  if (!isObject(sel)) return 'null';
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions.map((e) => {
      const r: Json = isObject(e) ? e : {};
      return `v1.LabelSelectorRequirement{Key:${goQuote(r.key ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${goStrings(r.values)}}`;
    }).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** field.Invalid with a value already printed the Go way. */
export function invalidGo(field: string, printed: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${printed}: ${detail}` };
}

/** field.Invalid with field.OmitValueType{}: the message has no value. */
export function invalidOmitted(field: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` };
}
