/**
 * Schema of apps/v1 ReplicaSet: a number of pods from one template, picked by a selector, and
 * the status the replica set controller keeps (conditions merged by type). Descriptions are
 * Kubernetes' own; the structs are registered under their Go names for OpenAPI.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { podTemplateSpecSchema } from '../../core/pod-template';

export const replicaSetCondition: Schema = goType('io.k8s.api.apps.v1.ReplicaSetCondition', object({
  type: str('Type of replica set condition.'),
  status: str('Status of the condition, one of True, False, Unknown.'),
  lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
  reason: str('The reason for the condition\'s last transition.'),
  message: str('A human readable message indicating details about the transition.'),
}, { required: ['type', 'status'], description: 'ReplicaSetCondition describes the state of a replica set at a certain point.' }));

export const replicaSetSpec: Schema = goType('io.k8s.api.apps.v1.ReplicaSetSpec', object({
  replicas: int32('Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller'),
  minReadySeconds: int32('Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready)'),
  selector: fieldOfType(labelSelector, { description: 'Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template\'s labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors' }),
  template: fieldOfType(podTemplateSpecSchema, { description: 'Template is the object that describes the pod that will be created if insufficient replicas are detected. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template' }),
}, { required: ['selector'], description: 'ReplicaSetSpec is the specification of a ReplicaSet.' }));

export const replicaSetStatus: Schema = goType('io.k8s.api.apps.v1.ReplicaSetStatus', object({
  replicas: int32('Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller'),
  fullyLabeledReplicas: int32('The number of pods that have labels matching the labels of the pod template of the replicaset.'),
  readyReplicas: int32('readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.'),
  availableReplicas: int32('The number of available replicas (ready for at least minReadySeconds) for this replica set.'),
  observedGeneration: int64('ObservedGeneration reflects the generation of the most recently observed ReplicaSet.'),
  conditions: mapList(replicaSetCondition, ['type'], 'Represents the latest available observations of a replica set\'s current state.'),
}, { required: ['replicas'], description: 'ReplicaSetStatus represents the current status of a ReplicaSet.' }));

export const replicaSetSchema: Schema = kindSchema({
  spec: fieldOfType(replicaSetSpec, { description: 'Spec defines the specification of the desired behavior of the ReplicaSet. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(replicaSetStatus, { description: 'Status is the most recently observed status of the ReplicaSet. This data may be out of date by some window of time. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'ReplicaSet ensures that a specified number of pod replicas are running at any given time.');
