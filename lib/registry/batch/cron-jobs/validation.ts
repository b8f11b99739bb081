/**
 * Kubernetes 1.32's CronJob validation (pkg/apis/batch/validation ValidateCronJobCreate and
 * ValidateCronJobUpdate) over the CronJob's JSON: the schedule as robfig/cron parses it (no TZ
 * or CRON_TZ in it: the timeZone field says that), the time zone, the concurrency policy, the
 * history limits and starting deadline, the jobTemplate as a JobSpec without a selector, and a
 * name of at most 52 characters on create (the controller appends an 11-character suffix).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { ApiObject } from '../../../scheme/types';
import { Json, isObject } from '../../core/json-fields';
import { VolumeRules } from '../../core/volumes/volume-list';
import { nonNegative, validateJobTemplateSpec } from '../job-spec-validation';
import { cronParseError, loadLocationError } from './schedule';

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
const MAX_NAME_LENGTH = 52;
const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

export const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
export const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});

/** validateScheduleFormat: `allowTZ` when the stored schedule had TZ in it already. */
function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const parseError = cronParseError(schedule);
  if (parseError !== undefined) errs.push(fieldErrors.invalid(path, schedule, parseError));
  if (allowTZ && schedule.includes('TZ') && typeof timeZone === 'string') {
    errs.push(fieldErrors.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && schedule.includes('TZ')) {
    errs.push(fieldErrors.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

/** validateTimeZone. */
function validateTimeZone(timeZone: unknown, path: string): FieldError[] {
  if (typeof timeZone !== 'string') return [];
  if (timeZone === '') return [fieldErrors.invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !validTimeZoneCharacters.test(part)) {
      return [fieldErrors.invalid(path, timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const errs: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') {
    errs.push(fieldErrors.invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  }
  const loadError = loadLocationError(timeZone);
  if (loadError) errs.push(fieldErrors.invalid(path, timeZone, loadError));
  return errs;
}

/** validateCronJobSpec; `oldSpec` on update. */
function validateCronJobSpec(spec: Json, oldSpec: Json | undefined, volumes: VolumeRules): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (!schedule) errs.push(fieldErrors.required('spec.schedule'));
  else {
    const allowTZ = typeof oldSpec?.schedule === 'string' && oldSpec.schedule.includes('TZ');
    errs.push(...validateSchedule(schedule, allowTZ, spec.timeZone, 'spec.schedule'));
  }
  errs.push(...nonNegative(spec, 'startingDeadlineSeconds', 'spec'));
  if (!oldSpec || oldSpec.timeZone !== spec.timeZone) errs.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  const policy = typeof spec.concurrencyPolicy === 'string' ? spec.concurrencyPolicy : '';
  if (!policy) errs.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  errs.push(...validateJobTemplateSpec(spec.jobTemplate, 'spec.jobTemplate', volumes));
  errs.push(...nonNegative(spec, 'successfulJobsHistoryLimit', 'spec'), ...nonNegative(spec, 'failedJobsHistoryLimit', 'spec'));
  return errs;
}

/** ValidateCronJobCreate's own rules (metadata is the store's). */
export function validateCronJobCreate(obj: ApiObject, volumes: VolumeRules): FieldError[] {
  const errs = validateCronJobSpec(specOf(obj), undefined, volumes);
  const name = obj.metadata?.name ?? '';
  if (name.length > MAX_NAME_LENGTH) errs.push(fieldErrors.invalid(child('metadata', 'name'), name, `must be no more than ${MAX_NAME_LENGTH} characters`));
  return errs;
}

/** ValidateCronJobUpdate's own rules: the spec against the stored one; longer names stay allowed. */
export function validateCronJobUpdate(obj: ApiObject, old: ApiObject, volumes: VolumeRules): FieldError[] {
  return validateCronJobSpec(specOf(obj), specOf(old), volumes);
}

/** ValidateCronJobStatusUpdate has nothing of its own beyond metadata. */
