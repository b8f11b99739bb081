/**
 * HorizontalPodAutoscaler between autoscaling/v2 (stored) and autoscaling/v2beta1, as Kubernetes
 * converts it (pkg/apis/autoscaling/v2beta1/conversion.go through the internal type). v2beta1
 * holds the metrics in the older shape autoscaling/v1's annotations also use (metricName and
 * selector beside the target; targetAverageUtilization, targetAverageValue, targetValue;
 * currentAverageUtilization...: metric-conversion.ts) and has no `behavior`, which travels in the
 * annotation `autoscaling.alpha.kubernetes.io/behavior` (json.Marshal of Go's internal type).
 * Conditions are v2beta1 status fields. On the way in the behavior annotation is read back when it
 * holds a well-formed behavior (Kubernetes ignores one that does not) and every round-trip
 * annotation is removed; on the way out round-trip annotations already on the object are dropped.
 */
import { ApiObject } from '../../../scheme/types';
import {
  BEHAVIOR_ANNOTATION, behaviorFromGoJson, behaviorToGoJson, conditionFromV1, conditionToV1, withoutRoundTripAnnotations,
} from './conversion';
import { crossVersionRef, metricSpecFromV1, metricSpecToV1, metricStatusFromV1, metricStatusToV1 } from './metric-conversion';
import { Json, arrayOr, isObject, objectOr, present } from './types';

/** A stored (v2) HorizontalPodAutoscaler as autoscaling/v2beta1 serves it. */
export function hpaV2ToV2beta1(obj: ApiObject): ApiObject {
  const spec = objectOr(obj.spec);
  const status = objectOr(obj.status);
  const out: Json = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  if (present(spec.minReplicas)) out.minReplicas = spec.minReplicas;
  out.maxReplicas = spec.maxReplicas ?? 0;
  const metrics = arrayOr(spec.metrics);
  if (metrics.length) out.metrics = metrics.map((m) => metricSpecToV1(objectOr(m)));

  // currentReplicas, desiredReplicas, currentMetrics and conditions have no omitempty at v2beta1.
  const outStatus: Json = {};
  if (status.observedGeneration) outStatus.observedGeneration = status.observedGeneration;
  if (present(status.lastScaleTime)) outStatus.lastScaleTime = status.lastScaleTime;
  outStatus.currentReplicas = status.currentReplicas ?? 0;
  outStatus.desiredReplicas = status.desiredReplicas ?? 0;
  const current = arrayOr(status.currentMetrics);
  outStatus.currentMetrics = current.length ? current.map((m) => metricStatusToV1(objectOr(m))) : null;
  const conditions = arrayOr(status.conditions);
  outStatus.conditions = conditions.length ? conditions.map(conditionToV1) : null;

  let metadata = withoutRoundTripAnnotations(obj.metadata);
  if (isObject(spec.behavior)) {
    metadata = { ...metadata, annotations: { ...metadata?.annotations, [BEHAVIOR_ANNOTATION]: JSON.stringify(behaviorToGoJson(spec.behavior)) } };
  }
  const result: ApiObject = { ...obj, apiVersion: 'autoscaling/v2beta1', metadata, spec: out, status: outStatus };
  if (!metadata) delete result.metadata;
  return result;
}

/** The behavior a v2beta1 object's annotation holds, when it is well-formed JSON of one. */
function behaviorOf(annotations: Record<string, string>): Json | undefined {
  if (!(BEHAVIOR_ANNOTATION in annotations)) return undefined;
  try {
    return behaviorFromGoJson(JSON.parse(annotations[BEHAVIOR_ANNOTATION]));
  } catch {
    return undefined;
  }
}

/** An autoscaling/v2beta1 HorizontalPodAutoscaler as the v2 object it stands for. */
export function hpaV2beta1ToV2(obj: ApiObject): ApiObject {
  const spec = objectOr(obj.spec);
  const status = objectOr(obj.status);
  const out: Json = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  if (present(spec.minReplicas)) out.minReplicas = spec.minReplicas;
  out.maxReplicas = spec.maxReplicas ?? 0;
  const metrics = arrayOr(spec.metrics);
  if (metrics.length) out.metrics = metrics.map((m) => metricSpecFromV1(objectOr(m)));
  const behavior = behaviorOf(obj.metadata?.annotations ?? {});
  if (behavior) out.behavior = behavior;

  const outStatus: Json = {};
  if (status.observedGeneration) outStatus.observedGeneration = status.observedGeneration;
  if (present(status.lastScaleTime)) outStatus.lastScaleTime = status.lastScaleTime;
  if (status.currentReplicas) outStatus.currentReplicas = status.currentReplicas;
  outStatus.desiredReplicas = status.desiredReplicas ?? 0;
  const current = arrayOr(status.currentMetrics);
  outStatus.currentMetrics = current.length ? current.map((m) => metricStatusFromV1(objectOr(m))) : null;
  const conditions = arrayOr(status.conditions);
  if (conditions.length) outStatus.conditions = conditions.map(conditionFromV1);

  const metadata = withoutRoundTripAnnotations(obj.metadata);
  const result: ApiObject = { ...obj, apiVersion: 'autoscaling/v2', metadata, spec: out, status: outStatus };
  if (!metadata) delete result.metadata;
  return result;
}
