/**
 * Kubernetes' defaults of HorizontalPodAutoscaler (pkg/apis/autoscaling/v2/defaults.go and
 * v1/defaults.go), and the stored shape of the v2 status. v2: minReplicas 1; no metrics means
 * one metric of 80% average CPU utilization; a behavior that is set gets every unset rule field
 * (scale up: no stabilization, Max, 4 pods or 100% per 15s; scale down: Max, 100% per 15s, its
 * stabilization window left unset for the controller's --horizontal-pod-autoscaler-downscale-
 * stabilization).
 */
import { ApiObject } from '../../../scheme/types';
import { canonicalQuantity } from '../../../meta/quantity';
import { Json, arrayOr, isObject, objectOr, present } from './types';

/** autoscaling.DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

export const defaultCpuMetric = (utilization: unknown = DEFAULT_CPU_UTILIZATION): Json => ({
  type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } },
});

const scaleUpDefaults = (): Json => ({
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});
const scaleDownDefaults = (): Json => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules over the defaults: the given non-nil fields win. */
function scalingRules(given: unknown, defaults: Json): Json {
  if (!isObject(given)) return defaults;
  const out: Json = {};
  const window = present(given.stabilizationWindowSeconds) ? given.stabilizationWindowSeconds : defaults.stabilizationWindowSeconds;
  if (present(window)) out.stabilizationWindowSeconds = window;
  out.selectPolicy = present(given.selectPolicy) ? given.selectPolicy : defaults.selectPolicy;
  out.policies = present(given.policies) ? given.policies : defaults.policies;
  return out;
}

/** The canonical string of each quantity field of a MetricTarget or MetricValueStatus. */
function canonicalValues(v: unknown): void {
  if (!isObject(v)) return;
  for (const f of ['value', 'averageValue']) {
    if (!present(v[f])) continue;
    const c = canonicalQuantity(v[f]);
    if (c !== undefined) v[f] = c;
  }
}

const SOURCES = ['object', 'pods', 'resource', 'containerResource', 'external'];

/** Canonical quantities in every metric spec (`target`) or status (`current`). */
export function canonicalMetricQuantities(metrics: unknown, field: 'target' | 'current'): void {
  for (const m of arrayOr(metrics)) {
    if (!isObject(m)) continue;
    for (const s of SOURCES) if (isObject(m[s])) canonicalValues((m[s] as Json)[field]);
  }
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v2. */
export function setDefaultsV2(obj: ApiObject): void {
  const spec = (obj.spec = objectOr(obj.spec));
  if (!present(spec.minReplicas)) spec.minReplicas = 1;
  if (arrayOr(spec.metrics).length === 0) spec.metrics = [defaultCpuMetric()];
  if (isObject(spec.behavior)) {
    spec.behavior = { scaleUp: scalingRules(spec.behavior.scaleUp, scaleUpDefaults()), scaleDown: scalingRules(spec.behavior.scaleDown, scaleDownDefaults()) };
  }
}

/**
 * The quantities of the spec's targets and the status's current values in canonical form, as Go
 * re-encodes them; done after validation, which sees them as written (Canonicalize).
 */
export function canonicalizeHpaV2(obj: ApiObject): void {
  if (isObject(obj.spec)) canonicalMetricQuantities(obj.spec.metrics, 'target');
  if (isObject(obj.status)) canonicalMetricQuantities(obj.status.currentMetrics, 'current');
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v1 (the CPU target is defaulted by conversion). */
export function setDefaultsV1(obj: ApiObject): void {
  const spec = (obj.spec = objectOr(obj.spec));
  if (!present(spec.minReplicas)) spec.minReplicas = 1;
}

/**
 * The v2 status as Go writes it: currentReplicas, observedGeneration and lastScaleTime omitted
 * when empty, desiredReplicas always, currentMetrics always (null when there are none: its JSON
 * tag has no omitempty), conditions omitted when empty.
 */
export function normalizeStatusV2(status: Json): Json {
  const out: Json = {};
  if (status.observedGeneration) out.observedGeneration = status.observedGeneration;
  if (present(status.lastScaleTime)) out.lastScaleTime = status.lastScaleTime;
  if (status.currentReplicas) out.currentReplicas = status.currentReplicas;
  out.desiredReplicas = status.desiredReplicas ?? 0;
  const metrics = arrayOr(status.currentMetrics);
  out.currentMetrics = metrics.length ? metrics : null;
  canonicalMetricQuantities(out.currentMetrics, 'current');
  if (arrayOr(status.conditions).length) out.conditions = status.conditions;
  return out;
}
