/**
 * Schema of apps/v1 Deployment: the desired pods (a pod template, a selector, replicas), how a
 * new template replaces the old one (`strategy`, patched with retainKeys), and the status the
 * deployment controller keeps (conditions merged by type). Descriptions are Kubernetes' own;
 * the structs are registered under their Go names for OpenAPI.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, bool, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { podTemplateSpecSchema } from '../../core/pod-template';

/** intstr.IntOrString: a count or a percentage. */
const intOrString = (description: string): Schema => ({ type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true, description });

export const rollingUpdateDeployment: Schema = goType('io.k8s.api.apps.v1.RollingUpdateDeployment', object({
  maxUnavailable: intOrString('The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from percentage by rounding down. This can not be 0 if MaxSurge is 0. Defaults to 25%. Example: when this is set to 30%, the old ReplicaSet can be scaled down to 70% of desired pods immediately when the rolling update starts. Once new pods are ready, old ReplicaSet can be scaled down further, followed by scaling up the new ReplicaSet, ensuring that the total number of pods available at all times during the update is at least 70% of desired pods.'),
  maxSurge: intOrString('The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). This can not be 0 if MaxUnavailable is 0. Absolute number is calculated from percentage by rounding up. Defaults to 25%. Example: when this is set to 30%, the new ReplicaSet can be scaled up immediately when the rolling update starts, such that the total number of old and new pods do not exceed 130% of desired pods. Once old pods have been killed, new ReplicaSet can be scaled up further, ensuring that total number of pods running at any time during the update is at most 130% of desired pods.'),
}, { description: 'Spec to control the desired behavior of rolling update.' }));

export const deploymentStrategy: Schema = goType('io.k8s.api.apps.v1.DeploymentStrategy', object({
  type: {
    ...str('Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.\n\nPossible enum values:\n - `"Recreate"` Kill all existing pods before creating new ones.\n - `"RollingUpdate"` Replace the old ReplicaSets by new one using rolling update i.e gradually scale down the old ReplicaSets and scale up the new one.'),
    enum: ['Recreate', 'RollingUpdate'],
  },
  rollingUpdate: fieldOfType(rollingUpdateDeployment, { description: 'Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.' }),
}, { description: 'DeploymentStrategy describes how to replace existing pods with new ones.' }));

export const deploymentCondition: Schema = goType('io.k8s.api.apps.v1.DeploymentCondition', object({
  type: str('Type of deployment condition.'),
  status: str('Status of the condition, one of True, False, Unknown.'),
  lastUpdateTime: time('The last time this condition was updated.'),
  lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
  reason: str('The reason for the condition\'s last transition.'),
  message: str('A human readable message indicating details about the transition.'),
}, { required: ['type', 'status'], description: 'DeploymentCondition describes the state of a deployment at a certain point.' }));

export const deploymentSpec: Schema = goType('io.k8s.api.apps.v1.DeploymentSpec', object({
  replicas: int32('Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.'),
  selector: fieldOfType(labelSelector, { description: 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template\'s labels.' }),
  template: fieldOfType(podTemplateSpecSchema, { description: 'Template describes the pods that will be created. The only allowed template.spec.restartPolicy value is "Always".' }),
  strategy: fieldOfType(deploymentStrategy, { description: 'The deployment strategy to use to replace existing pods with new ones.', 'x-kubernetes-patch-strategy': 'retainKeys' }),
  minReadySeconds: int32('Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready)'),
  revisionHistoryLimit: int32('The number of old ReplicaSets to retain to allow rollback. This is a pointer to distinguish between explicit zero and not specified. Defaults to 10.'),
  paused: bool('Indicates that the deployment is paused.'),
  progressDeadlineSeconds: int32('The maximum time in seconds for a deployment to make progress before it is considered to be failed. The deployment controller will continue to process failed deployments and a condition with a ProgressDeadlineExceeded reason will be surfaced in the deployment status. Note that progress will not be estimated during the time a deployment is paused. Defaults to 600s.'),
}, { required: ['selector', 'template'], description: 'DeploymentSpec is the specification of the desired behavior of the Deployment.' }));

export const deploymentStatus: Schema = goType('io.k8s.api.apps.v1.DeploymentStatus', object({
  observedGeneration: int64('The generation observed by the deployment controller.'),
  replicas: int32('Total number of non-terminated pods targeted by this deployment (their labels match the selector).'),
  updatedReplicas: int32('Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
  readyReplicas: int32('readyReplicas is the number of pods targeted by this Deployment with a Ready Condition.'),
  availableReplicas: int32('Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
  unavailableReplicas: int32('Total number of unavailable pods targeted by this deployment. This is the total number of pods that are still required for the deployment to have 100% available capacity. They may either be pods that are running but not yet available or pods that still have not been created.'),
  conditions: mapList(deploymentCondition, ['type'], 'Represents the latest available observations of a deployment\'s current state.'),
  collisionCount: int32('Count of hash collisions for the Deployment. The Deployment controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ReplicaSet.'),
}, { description: 'DeploymentStatus is the most recently observed status of the Deployment.' }));

export const deploymentSchema: Schema = kindSchema({
  spec: fieldOfType(deploymentSpec, { description: 'Specification of the desired behavior of the Deployment.' }),
  status: fieldOfType(deploymentStatus, { description: 'Most recently observed status of the Deployment.' }),
}, 'Deployment enables declarative updates for Pods and ReplicaSets.');
