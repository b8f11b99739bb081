/**
 * Schema of autoscaling/v2beta1 HorizontalPodAutoscaler (served over the v2 objects when
 * `--runtime-config` switches it on): the metrics in their older shape (metricName and selector
 * beside targetValue, targetAverageValue, targetAverageUtilization; currentValue,
 * currentAverageValue, currentAverageUtilization), no behavior, conditions in the status. Fields,
 * descriptions and required lists as Kubernetes 1.20's OpenAPI has them (no list types then).
 */
import { Schema, int32, int64, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { quantity } from '../../core/quantity-schema';

const T = 'io.k8s.api.autoscaling.v2beta1';

const withDoc = (s: Schema, description: string): Schema => fieldOfType(s, { description });

const containerResourceMetricSource = goType(`${T}.ContainerResourceMetricSource`, object({
  container: str('container is the name of the container in the pods of the scaling target'),
  name: str('name is the name of the resource in question.'),
  targetAverageUtilization: int32('targetAverageUtilization is the target value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.'),
  targetAverageValue: quantity('targetAverageValue is the target value of the average of the resource metric across all relevant pods, as a raw value (instead of as a percentage of the request), similar to the "pods" metric source type.'),
}, { required: ['name', 'container'], description: 'ContainerResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).  The values will be averaged together before being compared to the target.  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.  Only one "target" type should be set.' }));

const containerResourceMetricStatus = goType(`${T}.ContainerResourceMetricStatus`, object({
  container: str('container is the name of the container in the pods of the scaling target'),
  currentAverageUtilization: int32('currentAverageUtilization is the current value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.  It will only be present if `targetAverageValue` was set in the corresponding metric specification.'),
  currentAverageValue: quantity('currentAverageValue is the current value of the average of the resource metric across all relevant pods, as a raw value (instead of as a percentage of the request), similar to the "pods" metric source type. It will always be set, regardless of the corresponding metric specification.'),
  name: str('name is the name of the resource in question.'),
}, { required: ['name', 'currentAverageValue', 'container'], description: 'ContainerResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing a single container in each pod in the current scale target (e.g. CPU or memory).  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.' }));

const crossVersionObjectReference = goType(`${T}.CrossVersionObjectReference`, object({
  apiVersion: str('API version of the referent'),
  kind: str('Kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"'),
  name: str('Name of the referent; More info: http://kubernetes.io/docs/user-guide/identifiers#names'),
}, { required: ['kind', 'name'], description: 'CrossVersionObjectReference contains enough information to let you identify the referred resource.' }));

const externalMetricSource = goType(`${T}.ExternalMetricSource`, object({
  metricName: str('metricName is the name of the metric in question.'),
  metricSelector: withDoc(labelSelector, 'metricSelector is used to identify a specific time series within a given metric.'),
  targetAverageValue: quantity('targetAverageValue is the target per-pod value of global metric (as a quantity). Mutually exclusive with TargetValue.'),
  targetValue: quantity('targetValue is the target value of the metric (as a quantity). Mutually exclusive with TargetAverageValue.'),
}, { required: ['metricName'], description: 'ExternalMetricSource indicates how to scale on a metric not associated with any Kubernetes object (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster). Exactly one "target" type should be set.' }));

const externalMetricStatus = goType(`${T}.ExternalMetricStatus`, object({
  currentAverageValue: quantity('currentAverageValue is the current value of metric averaged over autoscaled pods.'),
  currentValue: quantity('currentValue is the current value of the metric (as a quantity)'),
  metricName: str('metricName is the name of a metric used for autoscaling in metric system.'),
  metricSelector: withDoc(labelSelector, 'metricSelector is used to identify a specific time series within a given metric.'),
}, { required: ['metricName', 'currentValue'], description: 'ExternalMetricStatus indicates the current value of a global metric not associated with any Kubernetes object.' }));

const horizontalPodAutoscalerCondition = goType(`${T}.HorizontalPodAutoscalerCondition`, object({
  lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another'),
  message: str('message is a human-readable explanation containing details about the transition'),
  reason: str('reason is the reason for the condition\'s last transition.'),
  status: str('status is the status of the condition (True, False, Unknown)'),
  type: str('type describes the current condition'),
}, { required: ['type', 'status'], description: 'HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point.' }));

const objectMetricSource = goType(`${T}.ObjectMetricSource`, object({
  averageValue: quantity('averageValue is the target value of the average of the metric across all relevant pods (as a quantity)'),
  metricName: str('metricName is the name of the metric in question.'),
  selector: withDoc(labelSelector, 'selector is the string-encoded form of a standard kubernetes label selector for the given metric When set, it is passed as an additional parameter to the metrics server for more specific metrics scoping When unset, just the metricName will be used to gather metrics.'),
  target: withDoc(crossVersionObjectReference, 'target is the described Kubernetes object.'),
  targetValue: quantity('targetValue is the target value of the metric (as a quantity).'),
}, { required: ['target', 'metricName', 'targetValue'], description: 'ObjectMetricSource indicates how to scale on a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).' }));

const podsMetricSource = goType(`${T}.PodsMetricSource`, object({
  metricName: str('metricName is the name of the metric in question'),
  selector: withDoc(labelSelector, 'selector is the string-encoded form of a standard kubernetes label selector for the given metric When set, it is passed as an additional parameter to the metrics server for more specific metrics scoping When unset, just the metricName will be used to gather metrics.'),
  targetAverageValue: quantity('targetAverageValue is the target value of the average of the metric across all relevant pods (as a quantity)'),
}, { required: ['metricName', 'targetAverageValue'], description: 'PodsMetricSource indicates how to scale on a metric describing each pod in the current scale target (for example, transactions-processed-per-second). The values will be averaged together before being compared to the target value.' }));

const resourceMetricSource = goType(`${T}.ResourceMetricSource`, object({
  name: str('name is the name of the resource in question.'),
  targetAverageUtilization: int32('targetAverageUtilization is the target value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.'),
  targetAverageValue: quantity('targetAverageValue is the target value of the average of the resource metric across all relevant pods, as a raw value (instead of as a percentage of the request), similar to the "pods" metric source type.'),
}, { required: ['name'], description: 'ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).  The values will be averaged together before being compared to the target.  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.  Only one "target" type should be set.' }));

const metricSpec = goType(`${T}.MetricSpec`, object({
  containerResource: withDoc(containerResourceMetricSource, 'container resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing a single container in each pod of the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source. This is an alpha feature and can be enabled by the HPAContainerMetrics feature flag.'),
  external: withDoc(externalMetricSource, 'external refers to a global metric that is not associated with any Kubernetes object. It allows autoscaling based on information coming from components running outside of cluster (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster).'),
  object: withDoc(objectMetricSource, 'object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object).'),
  pods: withDoc(podsMetricSource, 'pods refers to a metric describing each pod in the current scale target (for example, transactions-processed-per-second).  The values will be averaged together before being compared to the target value.'),
  resource: withDoc(resourceMetricSource, 'resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.'),
  type: str('type is the type of metric source.  It should be one of "ContainerResource", "External", "Object", "Pods" or "Resource", each mapping to a matching field in the object. Note: "ContainerResource" type is available on when the feature-gate HPAContainerMetrics is enabled'),
}, { required: ['type'], description: 'MetricSpec specifies how to scale based on a single metric (only `type` and one other matching field should be set at once).' }));

const horizontalPodAutoscalerSpec = goType(`${T}.HorizontalPodAutoscalerSpec`, object({
  maxReplicas: int32('maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.'),
  metrics: { type: 'array', items: metricSpec, description: 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.' },
  minReplicas: int32('minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.'),
  scaleTargetRef: withDoc(crossVersionObjectReference, 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
}, { required: ['scaleTargetRef', 'maxReplicas'], description: 'HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.' }));

const objectMetricStatus = goType(`${T}.ObjectMetricStatus`, object({
  averageValue: quantity('averageValue is the current value of the average of the metric across all relevant pods (as a quantity)'),
  currentValue: quantity('currentValue is the current value of the metric (as a quantity).'),
  metricName: str('metricName is the name of the metric in question.'),
  selector: withDoc(labelSelector, 'selector is the string-encoded form of a standard kubernetes label selector for the given metric When set in the ObjectMetricSource, it is passed as an additional parameter to the metrics server for more specific metrics scoping. When unset, just the metricName will be used to gather metrics.'),
  target: withDoc(crossVersionObjectReference, 'target is the described Kubernetes object.'),
}, { required: ['target', 'metricName', 'currentValue'], description: 'ObjectMetricStatus indicates the current value of a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).' }));

const podsMetricStatus = goType(`${T}.PodsMetricStatus`, object({
  currentAverageValue: quantity('currentAverageValue is the current value of the average of the metric across all relevant pods (as a quantity)'),
  metricName: str('metricName is the name of the metric in question'),
  selector: withDoc(labelSelector, 'selector is the string-encoded form of a standard kubernetes label selector for the given metric When set in the PodsMetricSource, it is passed as an additional parameter to the metrics server for more specific metrics scoping. When unset, just the metricName will be used to gather metrics.'),
}, { required: ['metricName', 'currentAverageValue'], description: 'PodsMetricStatus indicates the current value of a metric describing each pod in the current scale target (for example, transactions-processed-per-second).' }));

const resourceMetricStatus = goType(`${T}.ResourceMetricStatus`, object({
  currentAverageUtilization: int32('currentAverageUtilization is the current value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.  It will only be present if `targetAverageValue` was set in the corresponding metric specification.'),
  currentAverageValue: quantity('currentAverageValue is the current value of the average of the resource metric across all relevant pods, as a raw value (instead of as a percentage of the request), similar to the "pods" metric source type. It will always be set, regardless of the corresponding metric specification.'),
  name: str('name is the name of the resource in question.'),
}, { required: ['name', 'currentAverageValue'], description: 'ResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).  Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.' }));

const metricStatus = goType(`${T}.MetricStatus`, object({
  containerResource: withDoc(containerResourceMetricStatus, 'container resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing a single container in each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.'),
  external: withDoc(externalMetricStatus, 'external refers to a global metric that is not associated with any Kubernetes object. It allows autoscaling based on information coming from components running outside of cluster (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster).'),
  object: withDoc(objectMetricStatus, 'object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object).'),
  pods: withDoc(podsMetricStatus, 'pods refers to a metric describing each pod in the current scale target (for example, transactions-processed-per-second).  The values will be averaged together before being compared to the target value.'),
  resource: withDoc(resourceMetricStatus, 'resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the "pods" source.'),
  type: str('type is the type of metric source.  It will be one of "ContainerResource", "External", "Object", "Pods" or "Resource", each corresponds to a matching field in the object. Note: "ContainerResource" type is available on when the feature-gate HPAContainerMetrics is enabled'),
}, { required: ['type'], description: 'MetricStatus describes the last-read state of a single metric.' }));

const horizontalPodAutoscalerStatus = goType(`${T}.HorizontalPodAutoscalerStatus`, object({
  conditions: { type: 'array', items: horizontalPodAutoscalerCondition, description: 'conditions is the set of conditions required for this autoscaler to scale its target, and indicates whether or not those conditions are met.' },
  currentMetrics: { type: 'array', items: metricStatus, description: 'currentMetrics is the last read state of the metrics used by this autoscaler.' },
  currentReplicas: int32('currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
  desiredReplicas: int32('desiredReplicas is the desired number of replicas of pods managed by this autoscaler, as last calculated by the autoscaler.'),
  lastScaleTime: time('lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods, used by the autoscaler to control how often the number of pods is changed.'),
  observedGeneration: int64('observedGeneration is the most recent generation observed by this autoscaler.'),
}, { required: ['currentReplicas', 'desiredReplicas', 'conditions'], description: 'HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.' }));

export const hpaSchemaV2beta1: Schema = kindSchema({
  spec: withDoc(horizontalPodAutoscalerSpec, 'spec is the specification for the behaviour of the autoscaler. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.'),
  status: withDoc(horizontalPodAutoscalerStatus, 'status is the current information about the autoscaler.'),
}, 'HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.');
