/**
 * Schema of core/v1 ReplicationController: desired replicas, a map selector and the shared pod
 * template (../pod-template.ts) in spec; the replica counts and conditions (merged by type) the
 * replication manager writes in status. Descriptions are Kubernetes' OpenAPI's.
 */
import { Schema, int32, int64, mapList, object, str, stringMap, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { podTemplateSpecSchema } from '../pod-template';

const WHAT_IS = 'More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller';

export const replicationControllerSpec: Schema = goType('io.k8s.api.core.v1.ReplicationControllerSpec', object({
  replicas: int32(`Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. ${WHAT_IS}`),
  minReadySeconds: int32('Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready)'),
  selector: {
    ...stringMap('Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors'),
    'x-kubernetes-map-type': 'atomic',
  },
  template: fieldOfType(podTemplateSpecSchema, {
    description: 'Template is the object that describes the pod that will be created if insufficient replicas are detected. This takes precedence over a TemplateRef. The only allowed template.spec.restartPolicy value is "Always". More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template',
  }),
}, { description: 'ReplicationControllerSpec is the specification of a replication controller.' }));

export const replicationControllerCondition: Schema = goType('io.k8s.api.core.v1.ReplicationControllerCondition', object({
  type: str('Type of replication controller condition.'),
  status: str('Status of the condition, one of True, False, Unknown.'),
  lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
  reason: str('The reason for the condition\'s last transition.'),
  message: str('A human readable message indicating details about the transition.'),
}, { required: ['type', 'status'], description: 'ReplicationControllerCondition describes the state of a replication controller at a certain point.' }));

export const replicationControllerStatus: Schema = goType('io.k8s.api.core.v1.ReplicationControllerStatus', object({
  replicas: int32(`Replicas is the most recently observed number of replicas. ${WHAT_IS}`),
  fullyLabeledReplicas: int32('The number of pods that have labels matching the labels of the pod template of the replication controller.'),
  readyReplicas: int32('The number of ready replicas for this replication controller.'),
  availableReplicas: int32('The number of available replicas (ready for at least minReadySeconds) for this replication controller.'),
  observedGeneration: int64('ObservedGeneration reflects the generation of the most recently observed replication controller.'),
  conditions: mapList(replicationControllerCondition, ['type'], 'Represents the latest available observations of a replication controller\'s current state.'),
}, { required: ['replicas'], description: 'ReplicationControllerStatus represents the current status of a replication controller.' }));

export const replicationControllerSchema: Schema = kindSchema({
  spec: fieldOfType(replicationControllerSpec, { description: 'Spec defines the specification of the desired behavior of the replication controller. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(replicationControllerStatus, { description: 'Status is the most recently observed status of the replication controller. This data may be out of date by some window of time. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'ReplicationController represents the configuration of a replication controller.');
