/**
 * HorizontalPodAutoscaler between autoscaling/v2 (stored) and autoscaling/v1, as Kubernetes
 * converts it (pkg/apis/autoscaling/v1/conversion.go through the internal type). v1 holds one
 * CPU utilization target (spec.targetCPUUtilizationPercentage) and one current CPU utilization;
 * everything else of v2 travels in annotations of the v1 object so that a v1 client that reads
 * and writes an object back loses nothing:
 *
 * - `autoscaling.alpha.kubernetes.io/metrics`: the metrics other than CPU utilization, as JSON of
 *   v1's MetricSpec type;
 * - `autoscaling.alpha.kubernetes.io/current-metrics`: every current metric, as v1 MetricStatus;
 * - `autoscaling.alpha.kubernetes.io/behavior`: the behavior, as json.Marshal of Go's internal
 *   type writes it (no JSON tags: `ScaleUp`, `StabilizationWindowSeconds`...);
 * - `autoscaling.alpha.kubernetes.io/conditions`: the conditions.
 *
 * On the way in the annotations are read back and removed; a v1 object with no metric at all
 * gets the 80% CPU default metric. Annotations of those names on a v2 object are dropped on the
 * way to v1 (DropRoundTripHorizontalPodAutoscalerAnnotations).
 */
import { ApiObject } from '../../../scheme/types';
import { DEFAULT_CPU_UTILIZATION, defaultCpuMetric } from './defaults';
import { crossVersionRef, metricSpecFromV1, metricSpecToV1, metricStatusFromV1, metricStatusToV1 } from './metric-conversion';
import { Json, arrayOr, isObject, objectOr, present } from './types';

export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const ROUND_TRIP = [METRICS_ANNOTATION, BEHAVIOR_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION];

/** The metadata without the round-trip annotations (and without an annotations map left empty). */
export function withoutRoundTripAnnotations(meta: ApiObject['metadata']): ApiObject['metadata'] {
  const annotations = meta?.annotations;
  if (!meta || !annotations || !ROUND_TRIP.some((k) => k in annotations)) return meta;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !ROUND_TRIP.includes(k)));
  const { annotations: _dropped, ...rest } = meta;
  return Object.keys(kept).length ? { ...rest, annotations: kept } : rest;
}

const isCpuUtilization = (m: unknown): boolean => isObject(m) && m.type === 'Resource' && isObject(m.resource)
  && m.resource.name === 'cpu' && present(objectOr(m.resource.target).averageUtilization);

/** The internal behavior as Go's json.Marshal writes it without JSON tags. */
export function behaviorToGoJson(behavior: Json): Json {
  const rules = (r: unknown) => {
    if (!isObject(r)) return null;
    const policies = Array.isArray(r.policies)
      ? r.policies.map((p) => { const q = objectOr(p); return { Type: q.type ?? '', Value: q.value ?? 0, PeriodSeconds: q.periodSeconds ?? 0 }; })
      : null;
    return { StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null, SelectPolicy: r.selectPolicy ?? null, Policies: policies };
  };
  return { ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) };
}

/** A key of Go's tagless JSON, matched as encoding/json does: exactly, else ignoring case. */
function goField(obj: Json, name: string): unknown {
  if (name in obj) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

/** The v2 behavior from the annotation's JSON (undefined when it holds neither direction). */
export function behaviorFromGoJson(raw: unknown): Json | undefined {
  if (!isObject(raw)) return undefined;
  const rules = (r: unknown): Json | undefined => {
    if (!isObject(r)) return undefined;
    const out: Json = {};
    const window = goField(r, 'StabilizationWindowSeconds');
    if (present(window)) out.stabilizationWindowSeconds = window;
    const select = goField(r, 'SelectPolicy');
    if (present(select)) out.selectPolicy = select;
    const policies = goField(r, 'Policies');
    if (Array.isArray(policies)) {
      out.policies = policies.map((p) => {
        const q = objectOr(p);
        return { type: goField(q, 'Type') ?? '', value: goField(q, 'Value') ?? 0, periodSeconds: goField(q, 'PeriodSeconds') ?? 0 };
      });
    }
    return out;
  };
  const out: Json = {};
  const up = rules(goField(raw, 'ScaleUp'));
  const down = rules(goField(raw, 'ScaleDown'));
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return Object.keys(out).length ? out : undefined;
}

/** A v2 condition as v1's HorizontalPodAutoscalerCondition marshals (a zero time is null). */
export function conditionToV1(c: unknown): Json {
  const cond = objectOr(c);
  const out: Json = { type: cond.type ?? '', status: cond.status ?? '', lastTransitionTime: cond.lastTransitionTime ?? null };
  if (cond.reason) out.reason = cond.reason;
  if (cond.message) out.message = cond.message;
  return out;
}

export function conditionFromV1(c: unknown): Json {
  const cond = objectOr(c);
  const out: Json = { type: cond.type ?? '', status: cond.status ?? '' };
  if (present(cond.lastTransitionTime)) out.lastTransitionTime = cond.lastTransitionTime;
  if (cond.reason) out.reason = cond.reason;
  if (cond.message) out.message = cond.message;
  return out;
}

/** A stored (v2) HorizontalPodAutoscaler as autoscaling/v1 serves it. */
export function hpaV2ToV1(obj: ApiObject): ApiObject {
  const spec = objectOr(obj.spec);
  const status = objectOr(obj.status);
  const metrics = arrayOr(spec.metrics);
  const currentMetrics = arrayOr(status.currentMetrics);
  const conditions = arrayOr(status.conditions);

  const v1Spec: Json = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  if (present(spec.minReplicas)) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas ?? 0;
  const cpu = metrics.find((m) => isObject(m) && m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu') as Json | undefined;
  const cpuTarget = cpu ? objectOr(objectOr(cpu.resource).target).averageUtilization : undefined;
  if (present(cpuTarget)) v1Spec.targetCPUUtilizationPercentage = cpuTarget;

  const v1Status: Json = {};
  if (status.observedGeneration) v1Status.observedGeneration = status.observedGeneration;
  if (present(status.lastScaleTime)) v1Status.lastScaleTime = status.lastScaleTime;
  v1Status.currentReplicas = status.currentReplicas ?? 0;
  v1Status.desiredReplicas = status.desiredReplicas ?? 0;
  // No break in Kubernetes' loop: the last CPU metric with a utilization wins.
  for (const m of currentMetrics) {
    if (isObject(m) && m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu') {
      const u = objectOr(m.resource.current).averageUtilization;
      if (present(u)) v1Status.currentCPUUtilizationPercentage = u;
    }
  }

  const annotations: Record<string, string> = {};
  const others = metrics.filter((m) => !isCpuUtilization(m)).map((m) => metricSpecToV1(objectOr(m)));
  if (others.length) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (currentMetrics.length) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(currentMetrics.map((m) => metricStatusToV1(objectOr(m))));
  if (isObject(spec.behavior)) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(behaviorToGoJson(spec.behavior));
  if (conditions.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions.map(conditionToV1));

  let metadata = withoutRoundTripAnnotations(obj.metadata);
  if (Object.keys(annotations).length) metadata = { ...metadata, annotations: { ...metadata?.annotations, ...annotations } };
  const out: ApiObject = { ...obj, apiVersion: 'autoscaling/v1', metadata, spec: v1Spec, status: v1Status };
  if (!metadata) delete out.metadata;
  return out;
}

/** Parses an annotation's JSON; throws a message saying which annotation does not decode. */
function annotationJson(annotations: Record<string, string>, key: string): unknown {
  try {
    return JSON.parse(annotations[key]);
  } catch {
    throw new Error(`annotation ${key} is not valid JSON`);
  }
}

/** Why a v1 object's round-trip annotations cannot be read back, or undefined when they can. */
export function annotationProblem(obj: ApiObject): string | undefined {
  try {
    hpaV1ToV2(obj);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const arrayAnnotation = (annotations: Record<string, string>, key: string): Json[] => {
  const v = annotationJson(annotations, key);
  if (v === null) return [];
  if (!Array.isArray(v) || !v.every(isObject)) throw new Error(`annotation ${key} must be a JSON array of objects`);
  return v;
};

/** An autoscaling/v1 HorizontalPodAutoscaler as the v2 object it stands for (stored as is). */
export function hpaV1ToV2(obj: ApiObject): ApiObject {
  const spec = objectOr(obj.spec);
  const status = objectOr(obj.status);
  const annotations = obj.metadata?.annotations ?? {};

  const v2Spec: Json = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  if (present(spec.minReplicas)) v2Spec.minReplicas = spec.minReplicas;
  v2Spec.maxReplicas = spec.maxReplicas ?? 0;
  let metrics: Json[] = present(spec.targetCPUUtilizationPercentage) ? [defaultCpuMetric(spec.targetCPUUtilizationPercentage)] : [];
  // The normal spec conversion's CPU metric goes after the annotation's metrics.
  if (METRICS_ANNOTATION in annotations) metrics = [...arrayAnnotation(annotations, METRICS_ANNOTATION).map(metricSpecFromV1), ...metrics];
  if (metrics.length === 0) metrics = [defaultCpuMetric(DEFAULT_CPU_UTILIZATION)];
  v2Spec.metrics = metrics;
  if (BEHAVIOR_ANNOTATION in annotations) {
    const behavior = behaviorFromGoJson(annotationJson(annotations, BEHAVIOR_ANNOTATION));
    if (behavior) v2Spec.behavior = behavior;
  }

  const v2Status: Json = {};
  if (status.observedGeneration) v2Status.observedGeneration = status.observedGeneration;
  if (present(status.lastScaleTime)) v2Status.lastScaleTime = status.lastScaleTime;
  if (status.currentReplicas) v2Status.currentReplicas = status.currentReplicas;
  v2Status.desiredReplicas = status.desiredReplicas ?? 0;
  let currentMetrics: Json[] = present(status.currentCPUUtilizationPercentage)
    ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }]
    : [];
  // "ignore any existing status values -- the ones here have more information"
  if (CURRENT_METRICS_ANNOTATION in annotations) currentMetrics = arrayAnnotation(annotations, CURRENT_METRICS_ANNOTATION).map(metricStatusFromV1);
  v2Status.currentMetrics = currentMetrics.length ? currentMetrics : null;
  if (CONDITIONS_ANNOTATION in annotations) {
    const conditions = arrayAnnotation(annotations, CONDITIONS_ANNOTATION).map(conditionFromV1);
    if (conditions.length) v2Status.conditions = conditions;
  }

  const metadata = withoutRoundTripAnnotations(obj.metadata);
  const out: ApiObject = { ...obj, apiVersion: 'autoscaling/v2', metadata, spec: v2Spec, status: v2Status };
  if (!metadata) delete out.metadata;
  return out;
}
