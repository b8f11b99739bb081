/**
 * Schema of apps/v1 StatefulSet: pods with stable identities (the shared pod template at
 * `spec.template`), the claims each pod gets (`spec.volumeClaimTemplates`, whole
 * PersistentVolumeClaims, an atomic list), the update strategy, the claims' retention policy and
 * the ordinals, and the status the StatefulSet controller keeps (conditions merged by type).
 * The structs are registered under their Go names so OpenAPI names them as Kubernetes does.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector, objectMeta } from '../../../scheme/meta-schema';
import { podTemplateSpecSchema } from '../../core/pod-template';
import { persistentVolumeClaimSpec } from '../../core/volumes/persistent-volume-claim-spec-schema';
import { resourceList } from '../../core/quantity-schema';

const intOrString = (description: string): Schema => ({ type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true, description });

/**
 * A claim template: a whole core/v1 PersistentVolumeClaim (its status only ever the default phase),
 * named as Kubernetes names it; in /openapi/v2 the PersistentVolumeClaim kind's definition stands for it.
 */
const claimTemplate: Schema = goType('io.k8s.api.core.v1.PersistentVolumeClaim', object({
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
  metadata: objectMeta,
  spec: { ...persistentVolumeClaimSpec, description: 'spec defines the desired characteristics of a volume requested by a pod author. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistentvolumeclaims' },
  status: object({
    phase: str('phase represents the current phase of PersistentVolumeClaim.'),
    accessModes: atomicList(str(), 'accessModes contains the actual access modes the volume backing the PVC has.'),
    capacity: resourceList('capacity represents the actual resources of the underlying volume.'),
    conditions: mapList(object({
      type: str(), status: str(),
      lastProbeTime: time('lastProbeTime is the time we probed the condition.'),
      lastTransitionTime: time('lastTransitionTime is the time the condition transitioned from one status to another.'),
      reason: str(), message: str(),
    }, { required: ['type', 'status'] }), ['type'], 'conditions is the current Condition of persistent volume claim.'),
    allocatedResources: resourceList('allocatedResources tracks the resources allocated to a PVC including its capacity.'),
  }, { description: 'status represents the current information/status of a persistent volume claim. Read-only.' }),
}, { description: 'PersistentVolumeClaim is a user\'s request for and claim to a persistent volume' }));

export const rollingUpdateStatefulSetStrategy: Schema = goType('io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy', object({
  partition: int32('Partition indicates the ordinal at which the StatefulSet should be partitioned for updates. During a rolling update, all pods from ordinal Replicas-1 to Partition are updated. All pods from ordinal Partition-1 to 0 remain untouched. This is helpful in being able to do a canary based deployment. The default value is 0.'),
  maxUnavailable: intOrString('The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from percentage by rounding up. This can not be 0. Defaults to 1. This field is alpha-level and is only honored by servers that enable the MaxUnavailableStatefulSet feature. The field applies to all pods in the range 0 to Replicas-1. That means if there is any unavailable pod in the range 0 to Replicas-1, it will be counted towards MaxUnavailable.'),
}, { description: 'RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType.' }));

export const statefulSetUpdateStrategy: Schema = goType('io.k8s.api.apps.v1.StatefulSetUpdateStrategy', object({
  type: { ...str('Type indicates the type of the StatefulSetUpdateStrategy. Default is RollingUpdate.\n\nPossible enum values:\n - `"OnDelete"` triggers the legacy behavior. Version tracking and ordered rolling restarts are disabled. Pods are recreated from the StatefulSetSpec when they are manually deleted. When a scale operation is performed with this strategy,specification version indicated by the StatefulSet\'s currentRevision.\n - `"RollingUpdate"` indicates that update will be applied to all Pods in the StatefulSet with respect to the StatefulSet ordering constraints. When a scale operation is performed with this strategy, new Pods will be created from the specification version indicated by the StatefulSet\'s updateRevision.'), enum: ['OnDelete', 'RollingUpdate'] },
  rollingUpdate: fieldOfType(rollingUpdateStatefulSetStrategy, { description: 'RollingUpdate is used to communicate parameters when Type is RollingUpdateStatefulSetStrategyType.' }),
}, { description: 'StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform updates. It includes any additional parameters necessary to perform the update for the indicated strategy.' }));

const retentionPolicy: Schema = goType('io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy', object({
  whenDeleted: str('WhenDeleted specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is deleted. The default policy of `Retain` causes PVCs to not be affected by StatefulSet deletion. The `Delete` policy causes those PVCs to be deleted.'),
  whenScaled: str('WhenScaled specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is scaled down. The default policy of `Retain` causes PVCs to not be affected by a scaledown. The `Delete` policy causes the associated PVCs for any excess pods above the replica count to be deleted.'),
}, { description: 'StatefulSetPersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the StatefulSet VolumeClaimTemplates.' }));

const ordinals: Schema = goType('io.k8s.api.apps.v1.StatefulSetOrdinals', object({
  start: int32('start is the number representing the first replica\'s index. It may be used to number replicas from an alternate index (eg: 1-indexed) over the default 0-indexed names, or to orchestrate progressive movement of replicas from one StatefulSet to another. If set, replica indices will be in the range:\n  [.spec.ordinals.start, .spec.ordinals.start + .spec.replicas).\nIf unset, defaults to 0. Replica indices will be in the range:\n  [0, .spec.replicas).'),
}, { description: 'StatefulSetOrdinals describes the policy used for replica ordinal assignment in this StatefulSet.' }));

export const statefulSetSpec: Schema = goType('io.k8s.api.apps.v1.StatefulSetSpec', object({
  replicas: int32('replicas is the desired number of replicas of the given Template. These are replicas in the sense that they are instantiations of the same Template, but individual replicas also have a consistent identity. If unspecified, defaults to 1.'),
  selector: fieldOfType(labelSelector, { description: 'selector is a label query over pods that should match the replica count. It must match the pod template\'s labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors' }),
  template: fieldOfType(podTemplateSpecSchema, { description: 'template is the object that describes the pod that will be created if insufficient replicas are detected. Each pod stamped out by the StatefulSet will fulfill this Template, but have a unique identity from the rest of the StatefulSet. Each pod will be named with the format <statefulsetname>-<podindex>. For example, a pod in a StatefulSet named "web" with index number "3" would be named "web-3". The only allowed template.spec.restartPolicy value is "Always".' }),
  volumeClaimTemplates: atomicList(claimTemplate, 'volumeClaimTemplates is a list of claims that pods are allowed to reference. The StatefulSet controller is responsible for mapping network identities to claims in a way that maintains the identity of a pod. Every claim in this list must have at least one matching (by name) volumeMount in one container in the template. A claim in this list takes precedence over any volumes in the template, with the same name.'),
  serviceName: str('serviceName is the name of the service that governs this StatefulSet. This service must exist before the StatefulSet, and is responsible for the network identity of the set. Pods get DNS/hostnames that follow the pattern: pod-specific-string.serviceName.default.svc.cluster.local where "pod-specific-string" is managed by the StatefulSet controller.'),
  podManagementPolicy: { ...str('podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, or when scaling down. The default policy is `OrderedReady`, where pods are created in increasing order (pod-0, then pod-1, etc) and the controller will wait until each pod is ready before continuing. When scaling down, the pods are removed in the opposite order. The alternative policy is `Parallel` which will create pods in parallel to match the desired scale without waiting, and on scale down will delete all pods at once.\n\nPossible enum values:\n - `"OrderedReady"` will create pods in strictly increasing order on scale up and strictly decreasing order on scale down, progressing only when the previous pod is ready or terminated. At most one pod will be changed at any time.\n - `"Parallel"` will create and delete pods as soon as the stateful set replica count is changed, and will not wait for pods to be ready or complete termination.'), enum: ['OrderedReady', 'Parallel'] },
  updateStrategy: fieldOfType(statefulSetUpdateStrategy, { description: 'updateStrategy indicates the StatefulSetUpdateStrategy that will be employed to update Pods in the StatefulSet when a revision is made to Template.' }),
  revisionHistoryLimit: int32('revisionHistoryLimit is the maximum number of revisions that will be maintained in the StatefulSet\'s revision history. The revision history consists of all revisions not represented by a currently applied StatefulSetSpec version. The default value is 10.'),
  minReadySeconds: int32('Minimum number of seconds for which a newly created pod should be ready without any of its container crashing for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready)'),
  persistentVolumeClaimRetentionPolicy: fieldOfType(retentionPolicy, { description: 'persistentVolumeClaimRetentionPolicy describes the lifecycle of persistent volume claims created from volumeClaimTemplates. By default, all persistent volume claims are created as needed and retained until manually deleted. This policy allows the lifecycle to be altered, for example by deleting persistent volume claims when their stateful set is deleted, or when their pod is scaled down.' }),
  ordinals: fieldOfType(ordinals, { description: 'ordinals controls the numbering of replica indices in a StatefulSet. The default ordinals behavior assigns a "0" index to the first replica and increments the index by one for each additional replica requested.' }),
}, { required: ['selector', 'template'], description: 'A StatefulSetSpec is the specification of a StatefulSet.' }));

const statefulSetCondition: Schema = goType('io.k8s.api.apps.v1.StatefulSetCondition', object({
  type: str('Type of statefulset condition.'),
  status: str('Status of the condition, one of True, False, Unknown.'),
  lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
  reason: str('The reason for the condition\'s last transition.'),
  message: str('A human readable message indicating details about the transition.'),
}, { required: ['type', 'status'], description: 'StatefulSetCondition describes the state of a statefulset at a certain point.' }));

export const statefulSetStatus: Schema = goType('io.k8s.api.apps.v1.StatefulSetStatus', object({
  observedGeneration: int64('observedGeneration is the most recent generation observed for this StatefulSet. It corresponds to the StatefulSet\'s generation, which is updated on mutation by the API Server.'),
  replicas: int32('replicas is the number of Pods created by the StatefulSet controller.'),
  readyReplicas: int32('readyReplicas is the number of pods created for this StatefulSet with a Ready Condition.'),
  currentReplicas: int32('currentReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by currentRevision.'),
  updatedReplicas: int32('updatedReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by updateRevision.'),
  currentRevision: str('currentRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [0,currentReplicas).'),
  updateRevision: str('updateRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [replicas-updatedReplicas,replicas)'),
  collisionCount: int32('collisionCount is the count of hash collisions for the StatefulSet. The StatefulSet controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ControllerRevision.'),
  conditions: mapList(statefulSetCondition, ['type'], 'Represents the latest available observations of a statefulset\'s current state.'),
  availableReplicas: int32('Total number of available pods (ready for at least minReadySeconds) targeted by this statefulset.'),
}, { required: ['replicas'], description: 'StatefulSetStatus represents the current state of a StatefulSet.' }));

export const statefulSetSchema: Schema = kindSchema({
  spec: fieldOfType(statefulSetSpec, { description: 'Spec defines the desired identities of pods in this set.' }),
  status: fieldOfType(statefulSetStatus, { description: 'Status is the current status of Pods in this StatefulSet. This data may be out of date by some window of time.' }),
}, 'StatefulSet represents a set of pods with consistent identities. Identities are defined as:\n  - Network: A single stable DNS and hostname.\n  - Storage: As many VolumeClaims as requested.\n\nThe StatefulSet guarantees that a given network identity will always map to the same storage identity.');
