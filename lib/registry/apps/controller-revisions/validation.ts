/**
 * Kubernetes' ValidateControllerRevision and ValidateControllerRevisionUpdate
 * (pkg/apis/apps/validation), over the object's JSON; metadata is the store's.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { ApiObject } from '../../../scheme/types';

/** `data` as Go decodes it: absent and `null` both leave the RawExtension empty (a nil Object). */
const hasData = (obj: ApiObject): boolean => obj.data !== undefined && obj.data !== null;

/** data is required, revision is not negative. */
export function validateControllerRevision(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!hasData(obj)) errs.push(fieldErrors.required('data', 'data is mandatory'));
  const revision = obj.revision;
  if (typeof revision === 'number' && revision < 0) {
    errs.push(fieldErrors.invalid('revision', revision, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** The raw JSON bytes Kubernetes holds for `data` (compact, in the client's key order). */
const rawBytes = (data: unknown): Buffer => Buffer.from(JSON.stringify(data), 'utf8');

/**
 * How Go's `%#v` prints the *runtime.Unknown that the internal type holds for `data`, the value
 * Kubernetes' immutability error shows (the pointer is followed; Unknown is no Stringer).
 */
export function goUnknownValue(data: unknown): string {
  if (data === undefined || data === null) return 'null';
  const bytes = [...rawBytes(data)].map((b) => `0x${b.toString(16)}`).join(', ');
  return `runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{${bytes}}, ContentEncoding:"", ContentType:"application/json"}`;
}

/**
 * The update: everything the create checks, and `data` unchanged. Go compares the raw bytes, so
 * the same object with its keys in another order is a change; `revision` may change.
 */
export function validateControllerRevisionUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs = validateControllerRevision(obj);
  const same = hasData(obj) === hasData(old) && (!hasData(obj) || rawBytes(obj.data).equals(rawBytes(old.data)));
  if (!same) {
    errs.push({ type: 'FieldValueInvalid', field: 'data', message: `Invalid value: ${goUnknownValue(obj.data)}: field is immutable` });
  }
  return errs;
}
