/**
 * IntOrString fields that hold a count or a percentage (a budget's minAvailable, a rolling
 * update's maxSurge): Kubernetes' ValidatePositiveIntOrPercent and IsNotMoreThan100Percent (apps
 * validation), over the JSON value, a number or a string. Their bad values print as Go prints
 * them, the internal struct with %#v where Kubernetes passes the struct.
 */
import { FieldError, fieldErrors } from './field-errors';

const PERCENT_FMT = '[0-9]+%';
const percentRe = new RegExp(`^${PERCENT_FMT}$`);
/** IsValidPercent's message, RegexError's double space included. */
export const PERCENT_MSG = `a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '${PERCENT_FMT}')`;

/** Go's %#v of an intstr.IntOrString value (Type 0: int, 1: string). */
export function goIntOrString(value: unknown): string {
  return typeof value === 'string'
    ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(value)}}`
    : `intstr.IntOrString{Type:0, IntVal:${Number(value)}, StrVal:""}`;
}

/** IntOrString.String(): the integer in decimal, or the string. */
export function intOrStringText(value: unknown): string {
  return typeof value === 'number' ? String(Math.trunc(value)) : String(value ?? '');
}

/** ValidatePositiveIntOrPercent: a non-negative integer, or a string in `<digits>%` form. */
export function validatePositiveIntOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') {
    return percentRe.test(value) ? [] : [{ type: 'FieldValueInvalid', field: path, message: `Invalid value: ${goIntOrString(value)}: ${PERCENT_MSG}` }];
  }
  if (typeof value === 'number') {
    return value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
  }
  return [{ type: 'FieldValueInvalid', field: path, message: `Invalid value: ${goIntOrString(value)}: must be an integer or percentage (e.g '5%')` }];
}

/** IsNotMoreThan100Percent: a valid percentage above 100 is refused (integers are not checked). */
export function isNotMoreThan100Percent(value: unknown, path: string): FieldError[] {
  if (typeof value !== 'string' || !percentRe.test(value)) return [];
  return Number(value.slice(0, -1)) <= 100 ? [] : [fieldErrors.invalid(path, value, 'must not be greater than 100%')];
}
