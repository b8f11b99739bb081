/**
 * Kubernetes' ValidatePriorityClass / ValidatePriorityClassUpdate (pkg/apis/scheduling/validation,
 * 1.32) and SetDefaults_PriorityClass over a PriorityClass's JSON: a `system-` name must be one
 * of the system classes with its value (and not the global default); any other class's value is
 * at most HighestUserDefinablePriority; preemptionPolicy is PreemptLowerPriority or Never
 * (defaulted to PreemptLowerPriority); on update `value` and `preemptionPolicy` may not change.
 * Metadata is validated by the store.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { ApiObject } from '../../../scheme/types';
import { HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASS_PREFIX, unknownSystemClassReason } from './system-classes';

export const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority';
/** In the order Kubernetes' message lists them. */
const PREEMPTION_POLICIES = [PREEMPT_LOWER_PRIORITY, 'Never'];

/** The fields as Go reads them: value 0, globalDefault false when absent. */
export interface PriorityClassFields { name: string; value: number; globalDefault: boolean; preemptionPolicy?: unknown }

export function priorityClassFields(obj: ApiObject): PriorityClassFields {
  const o = obj as Record<string, unknown>;
  return {
    name: obj.metadata?.name ?? '',
    value: typeof o.value === 'number' ? o.value : 0,
    globalDefault: o.globalDefault === true,
    preemptionPolicy: o.preemptionPolicy,
  };
}

/** SetDefaults_PriorityClass; Go also writes `value` always (no omitempty). */
export function defaultPriorityClass(obj: ApiObject): void {
  const o = obj as Record<string, unknown>;
  if (o.preemptionPolicy === undefined || o.preemptionPolicy === null) o.preemptionPolicy = PREEMPT_LOWER_PRIORITY;
  if (o.value === undefined || o.value === null) o.value = 0;
}

/** ValidatePreemptionPolicy. */
function validatePreemptionPolicy(policy: unknown): FieldError[] {
  if (policy === undefined || policy === null) return [];
  if (PREEMPTION_POLICIES.includes(policy as string)) return [];
  if (policy === '') return [fieldErrors.required('preemptionPolicy')];
  return [fieldErrors.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES)];
}

/** ValidatePriorityClass (less metadata). */
export function validatePriorityClass(obj: ApiObject): FieldError[] {
  const pc = priorityClassFields(obj);
  const errs: FieldError[] = [];
  if (pc.name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const reason = unknownSystemClassReason(pc.name, pc.value, pc.globalDefault);
    if (reason) {
      errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${reason}`));
    }
  } else if (pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  return [...errs, ...validatePreemptionPolicy(pc.preemptionPolicy)];
}

/** ValidatePriorityClassUpdate (less metadata): value and preemptionPolicy are immutable. */
export function validatePriorityClassUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const pc = priorityClassFields(obj);
  const was = priorityClassFields(old);
  const errs: FieldError[] = [];
  if (pc.value !== was.value) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if ((pc.preemptionPolicy ?? null) !== (was.preemptionPolicy ?? null)) errs.push(fieldErrors.immutable('preemptionPolicy', pc.preemptionPolicy ?? null));
  return errs;
}
