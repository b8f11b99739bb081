/**
 * Schema of autoscaling/v2 HorizontalPodAutoscaler (the storage version): the scale target, the
 * replica bounds, the metrics (Resource, ContainerResource, Pods, Object, External, each with a
 * MetricTarget), the scaling behavior, and the status the HPA controller writes (current metrics,
 * conditions merged by type). Structs carry their Go definition names so OpenAPI names them as
 * Kubernetes does.
 */
import { Schema, atomicList, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { quantity } from '../../core/quantity-schema';
import { schemaAtVersion } from '../../../scheme/versioned-schema';

const V2 = 'io.k8s.api.autoscaling.v2';

export const crossVersionObjectReferenceV2 = goType(`${V2}.CrossVersionObjectReference`, object({
  kind: str('kind is the kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds'),
  name: str('name is the name of the referent; More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names'),
  apiVersion: str('apiVersion is the API version of the referent'),
}, { required: ['kind', 'name'], description: 'CrossVersionObjectReference contains enough information to let you identify the referred resource.' }));

const metricIdentifier = goType(`${V2}.MetricIdentifier`, object({
  name: str('name is the name of the given metric'),
  selector: fieldOfType(labelSelector, { description: 'selector is the string-encoded form of a standard kubernetes label selector for the given metric When set, it is passed as an additional parameter to the metrics server for more specific metrics scoping. When unset, just the metricName will be used to gather metrics.' }),
}, { required: ['name'], description: 'MetricIdentifier defines the name and optionally selector for a metric' }));

const metricTarget = goType(`${V2}.MetricTarget`, object({
  type: str('type represents whether the metric type is Utilization, Value, or AverageValue'),
  value: quantity('value is the target value of the metric (as a quantity).'),
  averageValue: quantity('averageValue is the target value of the average of the metric across all relevant pods (as a quantity)'),
  averageUtilization: int32('averageUtilization is the target value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods. Currently only valid for Resource metric source type'),
}, { required: ['type'], description: 'MetricTarget defines the target value, average value, or average utilization of a specific metric' }));

const metricValueStatus = goType(`${V2}.MetricValueStatus`, object({
  value: quantity('value is the current value of the metric (as a quantity).'),
  averageValue: quantity('averageValue is the current value of the average of the metric across all relevant pods (as a quantity)'),
  averageUtilization: int32('currentAverageUtilization is the current value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.'),
}, { description: 'MetricValueStatus holds the current value for a metric' }));

const TARGET = 'target specifies the target value for the given metric';
const CURRENT = 'current contains the current value for the given metric';
const METRIC = 'metric identifies the target metric by name and selector';
const DESCRIBED = 'describedObject specifies the descriptions of a object,such as kind,name apiVersion';
const RESOURCE_NAME = 'name is the name of the resource in question.';
const CONTAINER = 'container is the name of the container in the pods of the scaling target';
const sourceDoc = {
  object: 'object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object).',
  pods: 'pods refers to a metric describing each pod in the current scale target (for example, transactions-processed-per-second).  The values will be averaged together before being compared to the target value.',
  resource: 'resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.',
  containerResource: 'containerResource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing a single container in each pod of the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.',
  external: 'external refers to a global metric that is not associated with any Kubernetes object. It allows autoscaling based on information coming from components running outside of cluster (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster).',
};

const withDoc = (s: Schema, description: string): Schema => fieldOfType(s, { description });

const objectMetricSource = goType(`${V2}.ObjectMetricSource`, object({
  describedObject: withDoc(crossVersionObjectReferenceV2, DESCRIBED),
  target: withDoc(metricTarget, TARGET),
  metric: withDoc(metricIdentifier, METRIC),
}, { required: ['describedObject', 'target', 'metric'], description: 'ObjectMetricSource indicates how to scale on a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).' }));
const podsMetricSource = goType(`${V2}.PodsMetricSource`, object({
  metric: withDoc(metricIdentifier, METRIC),
  target: withDoc(metricTarget, TARGET),
}, { required: ['metric', 'target'], description: 'PodsMetricSource indicates how to scale on a metric describing each pod in the current scale target (for example, transactions-processed-per-second). The values will be averaged together before being compared to the target value.' }));
const resourceMetricSource = goType(`${V2}.ResourceMetricSource`, object({
  name: str(RESOURCE_NAME),
  target: withDoc(metricTarget, TARGET),
}, { required: ['name', 'target'], description: 'ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).  The values will be averaged together before being compared to the target.  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.  Only one "target" type should be set.' }));
const containerResourceMetricSource = goType(`${V2}.ContainerResourceMetricSource`, object({
  name: str(RESOURCE_NAME),
  target: withDoc(metricTarget, TARGET),
  container: str(CONTAINER),
}, { required: ['name', 'target', 'container'], description: 'ContainerResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).  The values will be averaged together before being compared to the target.  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.  Only one "target" type should be set.' }));
const externalMetricSource = goType(`${V2}.ExternalMetricSource`, object({
  metric: withDoc(metricIdentifier, METRIC),
  target: withDoc(metricTarget, TARGET),
}, { required: ['metric', 'target'], description: 'ExternalMetricSource indicates how to scale on a metric not associated with any Kubernetes object (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster).' }));

export const metricSpecV2 = goType(`${V2}.MetricSpec`, object({
  type: str('type is the type of metric source.  It should be one of "ContainerResource", "External", "Object", "Pods" or "Resource", each mapping to a matching field in the object.'),
  object: withDoc(objectMetricSource, sourceDoc.object),
  pods: withDoc(podsMetricSource, sourceDoc.pods),
  resource: withDoc(resourceMetricSource, sourceDoc.resource),
  containerResource: withDoc(containerResourceMetricSource, sourceDoc.containerResource),
  external: withDoc(externalMetricSource, sourceDoc.external),
}, { required: ['type'], description: 'MetricSpec specifies how to scale based on a single metric (only `type` and one other matching field should be set at once).' }));

const objectMetricStatus = goType(`${V2}.ObjectMetricStatus`, object({
  metric: withDoc(metricIdentifier, METRIC),
  current: withDoc(metricValueStatus, CURRENT),
  describedObject: withDoc(crossVersionObjectReferenceV2, DESCRIBED),
}, { required: ['metric', 'current', 'describedObject'], description: 'ObjectMetricStatus indicates the current value of a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).' }));
const podsMetricStatus = goType(`${V2}.PodsMetricStatus`, object({
  metric: withDoc(metricIdentifier, METRIC),
  current: withDoc(metricValueStatus, CURRENT),
}, { required: ['metric', 'current'], description: 'PodsMetricStatus indicates the current value of a metric describing each pod in the current scale target (for example, transactions-processed-per-second).' }));
const resourceMetricStatus = goType(`${V2}.ResourceMetricStatus`, object({
  name: str(RESOURCE_NAME),
  current: withDoc(metricValueStatus, CURRENT),
}, { required: ['name', 'current'], description: 'ResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.' }));
const containerResourceMetricStatus = goType(`${V2}.ContainerResourceMetricStatus`, object({
  name: str(RESOURCE_NAME),
  current: withDoc(metricValueStatus, CURRENT),
  container: str(CONTAINER),
}, { required: ['name', 'current', 'container'], description: 'ContainerResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing a single container in each pod in the current scale target (e.g. CPU or memory).  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.' }));
const externalMetricStatus = goType(`${V2}.ExternalMetricStatus`, object({
  metric: withDoc(metricIdentifier, METRIC),
  current: withDoc(metricValueStatus, CURRENT),
}, { required: ['metric', 'current'], description: 'ExternalMetricStatus indicates the current value of a global metric not associated with any Kubernetes object.' }));

export const metricStatusV2 = goType(`${V2}.MetricStatus`, object({
  type: str('type is the type of metric source.  It will be one of "ContainerResource", "External", "Object", "Pods" or "Resource", each corresponds to a matching field in the object.'),
  object: withDoc(objectMetricStatus, sourceDoc.object),
  pods: withDoc(podsMetricStatus, sourceDoc.pods),
  resource: withDoc(resourceMetricStatus, sourceDoc.resource),
  containerResource: withDoc(containerResourceMetricStatus, 'container resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing a single container in each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.'),
  external: withDoc(externalMetricStatus, sourceDoc.external),
}, { required: ['type'], description: 'MetricStatus describes the last-read state of a single metric.' }));

const hpaScalingPolicy = goType(`${V2}.HPAScalingPolicy`, object({
  type: str('type is used to specify the scaling policy.'),
  value: int32('value contains the amount of change which is permitted by the policy. It must be greater than zero'),
  periodSeconds: int32('periodSeconds specifies the window of time for which the policy should hold true. PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).'),
}, { required: ['type', 'value', 'periodSeconds'], description: 'HPAScalingPolicy is a single policy which must hold true for a specified past interval.' }));

const hpaScalingRules = goType(`${V2}.HPAScalingRules`, object({
  stabilizationWindowSeconds: int32('stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down. StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour). If not set, use the default values: - For scale up: 0 (i.e. no stabilization is done). - For scale down: 300 (i.e. the stabilization window is 300 seconds long).'),
  selectPolicy: str('selectPolicy is used to specify which policy should be used. If not set, the default value Max is used.'),
  policies: atomicList(hpaScalingPolicy, 'policies is a list of potential scaling polices which can be used during scaling. At least one policy must be specified, otherwise the HPAScalingRules will be discarded as invalid'),
}, { description: 'HPAScalingRules configures the scaling behavior for one direction. These Rules are applied after calculating DesiredReplicas from metrics for the HPA. They can limit the scaling velocity by specifying scaling policies. They can prevent flapping by specifying the stabilization window, so that the number of replicas is not set instantly, instead, the safest value from the stabilization window is chosen.' }));

const hpaBehavior = goType(`${V2}.HorizontalPodAutoscalerBehavior`, object({
  scaleUp: withDoc(hpaScalingRules, 'scaleUp is scaling policy for scaling Up. If not set, the default value is the higher of:\n  * increase no more than 4 pods per 60 seconds\n  * double the number of pods per 60 seconds\nNo stabilization is used.'),
  scaleDown: withDoc(hpaScalingRules, 'scaleDown is scaling policy for scaling Down. If not set, the default value is to allow to scale down to minReplicas pods, with a 300 second stabilization window (i.e., the highest recommendation for the last 300sec is used).'),
}, { description: 'HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).' }));

const hpaCondition = goType(`${V2}.HorizontalPodAutoscalerCondition`, object({
  type: str('type describes the current condition'),
  status: str('status is the status of the condition (True, False, Unknown)'),
  lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another'),
  reason: str('reason is the reason for the condition\'s last transition.'),
  message: str('message is a human-readable explanation containing details about the transition'),
}, { required: ['type', 'status'], description: 'HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point.' }));

export const hpaSpecV2 = goType(`${V2}.HorizontalPodAutoscalerSpec`, object({
  scaleTargetRef: withDoc(crossVersionObjectReferenceV2, 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
  minReplicas: int32('minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.'),
  maxReplicas: int32('maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.'),
  metrics: atomicList(metricSpecV2, 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.'),
  behavior: withDoc(hpaBehavior, 'behavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively). If not set, the default HPAScalingRules for scale up and scale down are used.'),
}, { required: ['scaleTargetRef', 'maxReplicas'], description: 'HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.' }));

export const hpaStatusV2 = goType(`${V2}.HorizontalPodAutoscalerStatus`, object({
  observedGeneration: int64('observedGeneration is the most recent generation observed by this autoscaler.'),
  lastScaleTime: time('lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods, used by the autoscaler to control how often the number of pods is changed.'),
  currentReplicas: int32('currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
  desiredReplicas: int32('desiredReplicas is the desired number of replicas of pods managed by this autoscaler, as last calculated by the autoscaler.'),
  currentMetrics: atomicList(metricStatusV2, 'currentMetrics is the last read state of the metrics used by this autoscaler.'),
  conditions: mapList(hpaCondition, ['type'], 'conditions is the set of conditions required for this autoscaler to scale its target, and indicates whether or not those conditions are met.'),
}, { required: ['desiredReplicas'], description: 'HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.' }));

export const hpaSchemaV2: Schema = kindSchema({
  spec: withDoc(hpaSpecV2, 'spec is the specification for the behaviour of the autoscaler. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.'),
  status: withDoc(hpaStatusV2, 'status is the current information about the autoscaler.'),
}, 'HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.');

/** autoscaling/v2beta2 (served over the v2 objects): v2's fields under v2beta2's type names. */
export const hpaSchemaV2beta2: Schema = schemaAtVersion(hpaSchemaV2, V2, 'io.k8s.api.autoscaling.v2beta2');
