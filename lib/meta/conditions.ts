/**
 * metav1.Condition lists (`status.conditions` of newer kinds): Kubernetes' ValidateConditions
 * and ValidateCondition (apimachinery pkg/apis/meta/v1/validation), with its paths and messages.
 */
import { FieldError, child, fieldErrors, index } from './field-errors';
import { isQualifiedName } from './validation';

/** A condition as clients write it. */
export interface MetaCondition {
  type?: string;
  status?: string;
  observedGeneration?: number;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

const STATUSES = ['False', 'True', 'Unknown'];
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const reasonRe = new RegExp(`^${REASON_FMT}$`);
const REASON_MSG = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
  + ` (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '${REASON_FMT}')`;
const ZERO_TIME = '0001-01-01T00:00:00Z';

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** ValidateCondition: a qualified-name type, a known status, a set time and a well-formed reason. */
export function validateCondition(c: MetaCondition, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = String(c.type ?? '');
  errs.push(...isQualifiedName(type).map((m) => fieldErrors.invalid(child(path, 'type'), type, m)));
  const status = String(c.status ?? '');
  if (!STATUSES.includes(status)) errs.push(fieldErrors.notSupported(child(path, 'status'), status, STATUSES));
  if (typeof c.observedGeneration === 'number' && c.observedGeneration < 0) {
    errs.push(fieldErrors.invalid(child(path, 'observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'));
  }
  if (!c.lastTransitionTime || c.lastTransitionTime === ZERO_TIME) errs.push(fieldErrors.required(child(path, 'lastTransitionTime'), 'must be set'));
  const reason = String(c.reason ?? '');
  if (!reason) errs.push(fieldErrors.required(child(path, 'reason'), 'must be set'));
  else {
    if (!reasonRe.test(reason)) errs.push(fieldErrors.invalid(child(path, 'reason'), reason, REASON_MSG));
    if (byteLength(reason) > MAX_REASON) errs.push(fieldErrors.tooLong(child(path, 'reason'), MAX_REASON));
  }
  if (byteLength(String(c.message ?? '')) > MAX_MESSAGE) errs.push(fieldErrors.tooLong(child(path, 'message'), MAX_MESSAGE));
  return errs;
}

/** ValidateConditions: each condition, and a type named twice is a duplicate at its later index. */
export function validateConditions(conditions: MetaCondition[] | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const type = String(c?.type ?? '');
    if (seen.has(type)) errs.push(fieldErrors.duplicate(child(index(path, i), 'type'), type));
    else seen.add(type);
    errs.push(...validateCondition(c ?? {}, index(path, i)));
  });
  return errs;
}
