/**
 * Schema of autoscaling/v1 HorizontalPodAutoscaler: the v1 shape served over the v2 objects
 * (scale target, replica bounds, one CPU utilization target; what v1 cannot hold travels in the
 * `autoscaling.alpha.kubernetes.io/*` annotations, see conversion.ts).
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, int32, int64, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const V1 = 'io.k8s.api.autoscaling.v1';

const crossVersionObjectReferenceV1 = goType(`${V1}.CrossVersionObjectReference`, object({
  kind: str('kind is the kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds'),
  name: str('name is the name of the referent; More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names'),
  apiVersion: str('apiVersion is the API version of the referent'),
}, { required: ['kind', 'name'], description: 'CrossVersionObjectReference contains enough information to let you identify the referred resource.' }));

const hpaSpecV1 = goType(`${V1}.HorizontalPodAutoscalerSpec`, object({
  scaleTargetRef: fieldOfType(crossVersionObjectReferenceV1, { description: 'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.' }),
  minReplicas: int32('minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.'),
  maxReplicas: int32('maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.'),
  targetCPUUtilizationPercentage: int32('targetCPUUtilizationPercentage is the target average CPU utilization (represented as a percentage of requested CPU) over all the pods; if not specified the default autoscaling policy will be used.'),
}, { required: ['scaleTargetRef', 'maxReplicas'], description: 'specification of a horizontal pod autoscaler.' }));

const hpaStatusV1 = goType(`${V1}.HorizontalPodAutoscalerStatus`, object({
  observedGeneration: int64('observedGeneration is the most recent generation observed by this autoscaler.'),
  lastScaleTime: time('lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods; used by the autoscaler to control how often the number of pods is changed.'),
  currentReplicas: int32('currentReplicas is the current number of replicas of pods managed by this autoscaler.'),
  desiredReplicas: int32('desiredReplicas is the  desired number of replicas of pods managed by this autoscaler.'),
  currentCPUUtilizationPercentage: int32('currentCPUUtilizationPercentage is the current average CPU utilization over all pods, represented as a percentage of requested CPU, e.g. 70 means that an average pod is using now 70% of its requested CPU.'),
}, { required: ['currentReplicas', 'desiredReplicas'], description: 'current status of a horizontal pod autoscaler' }));

export const hpaSchemaV1: Schema = kindSchema({
  spec: fieldOfType(hpaSpecV1, { description: 'spec defines the behaviour of autoscaler. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.' }),
  status: fieldOfType(hpaStatusV1, { description: 'status is the current information about the autoscaler.' }),
}, 'configuration of a horizontal pod autoscaler.');
