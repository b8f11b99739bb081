/**
 * Kubernetes' ValidatePodDisruptionBudget / ValidatePodDisruptionBudgetSpec and
 * ValidatePodDisruptionBudgetStatusUpdate (pkg/apis/policy/validation) at policy/v1, over the
 * budget's JSON. The spec is mutable (since 1.15), so an update validates as a create does,
 * except that selector values stored before label values were checked stay accepted.
 */
import { validateNonNegative } from '../../../meta/validation';
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { labelSelectorFromObject } from '../../../meta/label-selector';
import { MetaCondition, validateConditions } from '../../../meta/conditions';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from '../../../meta/int-or-percent';
import { ApiObject } from '../../../scheme/types';

export const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export interface PodDisruptionBudgetSpec {
  minAvailable?: number | string | null;
  selector?: Record<string, unknown> | null;
  maxUnavailable?: number | string | null;
  unhealthyPodEvictionPolicy?: string | null;
}

export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string> | null;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  conditions?: MetaCondition[] | null;
}

export const specOf = (obj: ApiObject): PodDisruptionBudgetSpec => (obj.spec ?? {}) as PodDisruptionBudgetSpec;
export const statusOf = (obj: ApiObject): PodDisruptionBudgetStatus => (obj.status ?? {}) as PodDisruptionBudgetStatus;

const set = (v: unknown): boolean => v !== undefined && v !== null;
const SET_POINTER = '0xc000000000';
const goPointer = (type: string, v: unknown) => `(*${type})(${set(v) ? SET_POINTER : 'nil'})`;

/**
 * Go's %#v of the internal spec, the bad value of "cannot be both set". Set pointers print as an
 * address that differs from run to run in Kubernetes; here it is a fixed one.
 */
function goSpec(spec: PodDisruptionBudgetSpec): string {
  return `policy.PodDisruptionBudgetSpec{MinAvailable:${goPointer('intstr.IntOrString', spec.minAvailable)}, `
    + `Selector:${goPointer('v1.LabelSelector', spec.selector)}, MaxUnavailable:${goPointer('intstr.IntOrString', spec.maxUnavailable)}, `
    + `UnhealthyPodEvictionPolicy:${goPointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy)}}`;
}

/** Whether the stored selector fails label-value checks (Kubernetes then keeps accepting it on update). */
export function hasInvalidLabelValueInSelector(spec: PodDisruptionBudgetSpec): boolean {
  return set(spec.selector) && labelSelectorFromObject(spec.selector).errors.length > 0;
}

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudgetSpec(spec: PodDisruptionBudgetSpec, path = 'spec',
  opts: { allowInvalidLabelValueInSelector?: boolean } = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (set(spec.minAvailable) && set(spec.maxUnavailable)) {
    errs.push({ type: 'FieldValueInvalid', field: path, message: `Invalid value: ${goSpec(spec)}: minAvailable and maxUnavailable cannot be both set` });
  }
  for (const f of ['minAvailable', 'maxUnavailable'] as const) {
    if (!set(spec[f])) continue;
    errs.push(...validatePositiveIntOrPercent(spec[f], child(path, f)), ...isNotMoreThan100Percent(spec[f], child(path, f)));
  }
  if (set(spec.selector)) {
    errs.push(...labelSelectorFromObject(spec.selector, child(path, 'selector'),
      { allowInvalidExpressionValues: opts.allowInvalidLabelValueInSelector }).errors);
  }
  const policy = spec.unhealthyPodEvictionPolicy;
  if (set(policy) && !UNHEALTHY_POD_EVICTION_POLICIES.includes(String(policy))) {
    errs.push(fieldErrors.notSupported(child(path, 'unhealthyPodEvictionPolicy'), policy, UNHEALTHY_POD_EVICTION_POLICIES));
  }
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate at policy/v1: valid conditions, no negative counts. */
export function validatePodDisruptionBudgetStatus(status: PodDisruptionBudgetStatus, path = 'status'): FieldError[] {
  const errs = validateConditions(status.conditions, child(path, 'conditions'));
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) {
    errs.push(...validateNonNegative(status[f], child(path, f)));
  }
  return errs;
}
