/**
 * Go's `%#v` of the few values the batch validation messages print (Kubernetes' field.Invalid
 * prints a bad value that is neither a number, a bool, a string nor a fmt.Stringer that way):
 * a label map, a LabelSelector, an []int32. Tests compare messages exactly, so these follow Go's
 * formatting (map keys sorted, `(nil)` for nil slices and maps).
 */
import { FieldError } from '../../meta/field-errors';
import { Json, isObject } from '../core/json-fields';

const quote = (s: unknown) => JSON.stringify(String(s));

/** map[string]string{"a":"b", ...}, or map[string]string(nil). */
export function goStringMap(m: unknown): string {
  if (!isObject(m)) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${quote(k)}:${quote(m[k])}`).join(', ')}}`;
}

/** []string{"a", "b"} or []string(nil). */
const goStrings = (v: unknown): string => (Array.isArray(v) ? `[]string{${v.map(quote).join(', ')}}` : '[]string(nil)');

/** v1.LabelSelector{MatchLabels:..., MatchExpressions:...}, as a *metav1.LabelSelector prints. */
export function goLabelSelector(sel: unknown): string {
  const s: Json = isObject(sel) ? sel : {};
  const exprs = Array.isArray(s.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${s.matchExpressions.map((e) => {
      const r: Json = isObject(e) ? e : {};
      return `v1.LabelSelectorRequirement{Key:${quote(r.key ?? '')}, Operator:${quote(r.operator ?? '')}, Values:${goStrings(r.values)}}`;
    }).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(s.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** []int32{1, 2} or []int32(nil). */
export function goInt32s(v: unknown): string {
  return Array.isArray(v) ? `[]int32{${v.map((x) => String(x)).join(', ')}}` : '[]int32(nil)';
}

/** field.Invalid with a value already printed the Go way. */
export function invalidGo(field: string, printed: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${printed}: ${detail}` };
}

/** field.Invalid with field.OmitValueType{}: the message has no value. */
export function invalidOmitted(field: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` };
}
