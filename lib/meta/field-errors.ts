/**
 * Field errors: one per offending field, with Kubernetes' reason words. They become the
 * `details.causes` of a 422 Invalid Status (see api-errors.ts `invalid`).
 */

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotFound';

export interface FieldError {
  type: FieldErrorType;
  /** Dotted path with indices and keys, e.g. `metadata.labels` or `data[bad key]`. */
  field: string;
  /** The text after the field path, e.g. `Required value` or `Invalid value: "x": detail`. */
  message: string;
}

/** JSON-ish rendering of a bad value as Kubernetes prints it (strings quoted, others as JSON). */
export function renderValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'object') {
    const s = JSON.stringify(value);
    return s.length > 200 ? `${s.slice(0, 200)}...` : s;
  }
  return String(value);
}

const withDetail = (head: string, detail?: string) => (detail ? `${head}: ${detail}` : head);

export const fieldErrors = {
  required: (field: string, detail?: string): FieldError => ({
    type: 'FieldValueRequired', field, message: withDetail('Required value', detail),
  }),
  invalid: (field: string, value: unknown, detail?: string): FieldError => ({
    type: 'FieldValueInvalid', field, message: withDetail(`Invalid value: ${renderValue(value)}`, detail),
  }),
  notSupported: (field: string, value: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${renderValue(value)}${supported.length ? `: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : ''}`,
  }),
  forbidden: (field: string, detail: string): FieldError => ({
    type: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail),
  }),
  tooLong: (field: string, max: number): FieldError => ({
    type: 'FieldValueTooLong', field, message: `Too long: may not be more than ${max} bytes`,
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} items`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueDuplicate', field, message: `Duplicate value: ${renderValue(value)}`,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid', field, message: withDetail(`Invalid value: ${renderValue(value)}`, detail),
  }),
  notFound: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueNotFound', field, message: `Not found: ${renderValue(value)}`,
  }),
  immutable: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueInvalid', field, message: `Invalid value: ${renderValue(value)}: field is immutable`,
  }),
};

/** `field: message`, the form used in a Status message. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** Joins child paths the way Kubernetes' field.Path does: `a.b`, `a[0]`, `a[key]`. */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}
export function index(path: string, i: number | string): string {
  return `${path}[${i}]`;
}
