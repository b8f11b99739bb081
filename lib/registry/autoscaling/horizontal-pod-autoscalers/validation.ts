/**
 * Kubernetes' ValidateHorizontalPodAutoscaler, ValidateHorizontalPodAutoscalerUpdate and
 * ValidateHorizontalPodAutoscalerStatusUpdate (pkg/apis/autoscaling/validation) over the v2
 * object (the internal type's shape; a v1 object is converted first, so its errors name the
 * v2 paths as Kubernetes' do). HPAScaleToZero is off: minReplicas must be at least 1, unless the
 * stored object already has 0.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isPathSegmentName, validateNonNegative } from '../../../meta/validation';
import { quantitySign, tryParseQuantity } from '../../../meta/quantity';
import { goQuantity } from './go-quantity';
import { validateResourceName } from '../../core/pod-spec/resources';
import { ApiObject } from '../../../scheme/types';
import { Json, arrayOr, isObject, objectOr, present, specOf, statusOf } from './types';

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_FIELD: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** ValidateCrossVersionObjectReference. */
export function validateCrossVersionObjectReference(ref: unknown, path: string): FieldError[] {
  const r = objectOr(ref);
  const errs: FieldError[] = [];
  for (const f of ['kind', 'name'] as const) {
    const v = str(r[f]);
    if (!v) errs.push(fieldErrors.required(child(path, f), ''));
    else for (const m of isPathSegmentName(v)) errs.push(fieldErrors.invalid(child(path, f), v, m));
  }
  return errs;
}

/** A quantity's sign, or undefined when absent or not a quantity (decoding refuses those). */
const signOf = (v: unknown): number | undefined => { const q = tryParseQuantity(v); return q ? quantitySign(q) : undefined; };

function validateMetricTarget(target: unknown, path: string): FieldError[] {
  const t = objectOr(target);
  const errs: FieldError[] = [];
  if (!str(t.type)) errs.push(fieldErrors.required(child(path, 'type'), 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(str(t.type))) {
    errs.push(fieldErrors.invalid(child(path, 'type'), t.type ?? '', 'must be either Utilization, Value, or AverageValue'));
  }
  for (const f of ['value', 'averageValue']) {
    const sign = signOf(t[f]);
    if (!present(t[f]) || sign === 1) continue;
    const go = goQuantity(t[f]);
    errs.push(go ? { type: 'FieldValueInvalid', field: child(path, f), message: `Invalid value: ${go}: must be positive` } : fieldErrors.invalid(child(path, f), t[f], 'must be positive'));
  }
  if (typeof t.averageUtilization === 'number' && t.averageUtilization < 1) {
    errs.push(fieldErrors.invalid(child(path, 'averageUtilization'), t.averageUtilization, 'must be greater than 0'));
  }
  return errs;
}

function validateMetricIdentifier(id: unknown, path: string): FieldError[] {
  const name = str(objectOr(id).name);
  if (!name) return [fieldErrors.required(child(path, 'name'), 'must specify a metric name')];
  return isPathSegmentName(name).map((m) => fieldErrors.invalid(child(path, 'name'), name, m));
}

function validateObjectSource(src: Json, path: string): FieldError[] {
  const target = objectOr(src.target);
  const errs = [
    ...validateCrossVersionObjectReference(src.describedObject, child(path, 'describedObject')),
    ...validateMetricIdentifier(src.metric, child(path, 'metric')),
    ...validateMetricTarget(src.target, child(path, 'target')),
  ];
  if (!present(target.value) && !present(target.averageValue)) {
    errs.push(fieldErrors.required(child(child(path, 'target'), 'averageValue'), 'must set either a target value or averageValue'));
  }
  return errs;
}

function validateExternalSource(src: Json, path: string): FieldError[] {
  const target = objectOr(src.target);
  const errs = [...validateMetricIdentifier(src.metric, child(path, 'metric')), ...validateMetricTarget(src.target, child(path, 'target'))];
  if (!present(target.value) && !present(target.averageValue)) {
    errs.push(fieldErrors.required(child(child(path, 'target'), 'averageValue'), 'must set either a target value for metric or a per-pod target'));
  }
  if (present(target.value) && present(target.averageValue)) {
    errs.push(fieldErrors.forbidden(child(child(path, 'target'), 'value'), 'may not set both a target value for metric and a per-pod target'));
  }
  return errs;
}

function validatePodsSource(src: Json, path: string): FieldError[] {
  const errs = [...validateMetricIdentifier(src.metric, child(path, 'metric')), ...validateMetricTarget(src.target, child(path, 'target'))];
  if (!present(objectOr(src.target).averageValue)) {
    errs.push(fieldErrors.required(child(child(path, 'target'), 'averageValue'), 'must specify a positive target averageValue'));
  }
  return errs;
}

/** validateResourceSource and validateContainerResourceSource. */
function validateResourceSource(src: Json, path: string, container: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(src.name);
  if (!name) errs.push(fieldErrors.required(child(path, 'name'), 'must specify a resource name'));
  else if (container) errs.push(...validateResourceName(name, child(path, 'name')));
  if (container) {
    const c = str(src.container);
    if (!c) errs.push(fieldErrors.required(child(path, 'container'), 'must specify a container'));
    else errs.push(...isDns1123Label(c).map((m) => fieldErrors.invalid(child(path, 'container'), c, m)));
  }
  errs.push(...validateMetricTarget(src.target, child(path, 'target')));
  const target = objectOr(src.target);
  if (!present(target.averageUtilization) && !present(target.averageValue)) {
    errs.push(fieldErrors.required(child(child(path, 'target'), 'averageUtilization'), 'must set either a target raw value or a target utilization'));
  }
  if (present(target.averageUtilization) && present(target.averageValue)) {
    errs.push(fieldErrors.forbidden(child(child(path, 'target'), 'averageValue'), 'may not set both a target raw value and a target utilization'));
  }
  return errs;
}

/** validateMetricSpec: a known type, its source set, and no other. */
function validateMetricSpec(spec: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if (!type) errs.push(fieldErrors.required(child(path, 'type'), 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(fieldErrors.notSupported(child(path, 'type'), type, METRIC_SOURCE_TYPES));
  // Kubernetes validates only the first source set, in this order, and forbids the others.
  const present_: string[] = [];
  const checks: [string, (s: Json, p: string) => FieldError[]][] = [
    ['object', validateObjectSource], ['external', validateExternalSource], ['pods', validatePodsSource],
    ['resource', (s, p) => validateResourceSource(s, p, false)], ['containerResource', (s, p) => validateResourceSource(s, p, true)],
  ];
  for (const [field, check] of checks) {
    if (!isObject(spec[field])) continue;
    present_.push(field);
    if (present_.length === 1) errs.push(...check(spec[field] as Json, child(path, field)));
  }
  const expected = SOURCE_FIELD[type];
  if (expected) {
    if (!isObject(spec[expected])) errs.push(fieldErrors.required(child(path, expected), 'must populate information for the given metric source'));
  } else {
    errs.push(fieldErrors.notSupported(child(path, 'type'), type, METRIC_SOURCE_TYPES));
  }
  if (present_.length !== 1) {
    // Go ranges over a set here (no fixed order); sorted for a stable answer.
    for (const f of present_.filter((f) => f !== expected).sort()) errs.push(fieldErrors.forbidden(child(path, f), 'must populate the given metric source only'));
  }
  return errs;
}

function validateMetrics(metrics: unknown, path: string, minReplicas: unknown): FieldError[] {
  const errs: FieldError[] = [];
  let objectOrExternal = false;
  arrayOr(metrics).forEach((m, i) => {
    const spec = objectOr(m);
    errs.push(...validateMetricSpec(spec, index(path, i)));
    if (spec.type === 'Object' || spec.type === 'External') objectOrExternal = true;
  });
  if (minReplicas === 0 && !objectOrExternal) {
    errs.push(fieldErrors.forbidden(path, 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  return errs;
}

function validateScalingRules(rules: unknown, path: string): FieldError[] {
  if (!isObject(rules)) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) errs.push(fieldErrors.invalid(child(path, 'stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(fieldErrors.invalid(child(path, 'stabilizationWindowSeconds'), window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (present(rules.selectPolicy) && !SELECT_POLICIES.includes(str(rules.selectPolicy))) {
    errs.push(fieldErrors.notSupported(child(path, 'selectPolicy'), rules.selectPolicy, SELECT_POLICIES));
  }
  const policiesPath = child(path, 'policies');
  const policies = arrayOr(rules.policies);
  if (policies.length === 0) errs.push(fieldErrors.required(policiesPath, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const policy = objectOr(p);
    const at = index(policiesPath, i);
    if (!POLICY_TYPES.includes(str(policy.type))) errs.push(fieldErrors.notSupported(child(at, 'type'), policy.type ?? '', POLICY_TYPES));
    const value = typeof policy.value === 'number' ? policy.value : 0;
    if (value <= 0) errs.push(fieldErrors.invalid(child(at, 'value'), value, 'must be greater than zero'));
    const period = typeof policy.periodSeconds === 'number' ? policy.periodSeconds : 0;
    if (period <= 0) errs.push(fieldErrors.invalid(child(at, 'periodSeconds'), period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS) errs.push(fieldErrors.invalid(child(at, 'periodSeconds'), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec. */
function validateSpec(spec: Json, path: string, minReplicasLowerBound: number): FieldError[] {
  const errs: FieldError[] = [];
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (typeof min === 'number' && min < minReplicasLowerBound) {
    errs.push(fieldErrors.invalid(child(path, 'minReplicas'), min, `must be greater than or equal to ${minReplicasLowerBound}`));
  }
  if (max < 1) errs.push(fieldErrors.invalid(child(path, 'maxReplicas'), max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) errs.push(fieldErrors.invalid(child(path, 'maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec.scaleTargetRef, child(path, 'scaleTargetRef')));
  errs.push(...validateMetrics(spec.metrics, child(path, 'metrics'), min));
  if (isObject(spec.behavior)) {
    errs.push(...validateScalingRules(spec.behavior.scaleUp, child(child(path, 'behavior'), 'scaleUp')));
    errs.push(...validateScalingRules(spec.behavior.scaleDown, child(child(path, 'behavior'), 'scaleDown')));
  }
  return errs;
}

/** ValidateHorizontalPodAutoscaler (create). */
export function validateHpa(obj: ApiObject): FieldError[] {
  return validateSpec(specOf(obj), 'spec', 1);
}

/** ValidateHorizontalPodAutoscalerUpdate: as create, but a stored minReplicas of 0 may stay 0. */
export function validateHpaUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  return validateSpec(specOf(obj), 'spec', specOf(old).minReplicas === 0 ? 0 : 1);
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: no negative replica counts. */
export function validateHpaStatus(obj: ApiObject): FieldError[] {
  const status = statusOf(obj);
  const errs: FieldError[] = [];
  for (const f of ['currentReplicas', 'desiredReplicas']) {
    errs.push(...validateNonNegative(status[f], child('status', f)));
  }
  return errs;
}
