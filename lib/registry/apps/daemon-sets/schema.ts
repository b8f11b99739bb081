/**
 * Schema of apps/v1 DaemonSet: one pod per node (the shared pod template at `spec.template`), the
 * update strategy (RollingUpdate's maxUnavailable / maxSurge, counts or percentages), and the
 * status the DaemonSet controller keeps (conditions merged by type). The structs are registered
 * under their Go names so OpenAPI names them as Kubernetes does.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { podTemplateSpecSchema } from '../../core/pod-template';

const intOrString = (description: string): Schema => ({ type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true, description });

const rollingUpdateDaemonSet: Schema = goType('io.k8s.api.apps.v1.RollingUpdateDaemonSet', object({
  maxUnavailable: intOrString('The maximum number of DaemonSet pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of total number of DaemonSet pods at the start of the update (ex: 10%). Absolute number is calculated from percentage by rounding up. This cannot be 0 if MaxSurge is 0 Default value is 1. Example: when this is set to 30%, at most 30% of the total number of nodes that should be running the daemon pod (i.e. status.desiredNumberScheduled) can have their pods stopped for an update at any given time. The update starts by stopping at most 30% of those DaemonSet pods and then brings up new DaemonSet pods in their place. Once the new pods are available, it then proceeds onto other DaemonSet pods, thus ensuring that at least 70% of original number of DaemonSet pods are available at all times during the update.'),
  maxSurge: intOrString('The maximum number of nodes with an existing available DaemonSet pod that can have an updated DaemonSet pod during during an update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). This can not be 0 if MaxUnavailable is 0. Absolute number is calculated from percentage by rounding up to a minimum of 1. Default value is 0. Example: when this is set to 30%, at most 30% of the total number of nodes that should be running the daemon pod (i.e. status.desiredNumberScheduled) can have their a new pod created before the old pod is marked as deleted. The update starts by launching new pods on 30% of nodes. Once an updated pod is available (Ready for at least minReadySeconds) the old DaemonSet pod on that node is marked deleted. If the old pod becomes unavailable for any reason (Ready transitions to false, is evicted, or is drained) an updated pod is immediatedly created on that node without considering surge limits. Allowing surge implies the possibility that the resources consumed by the daemonset on any given node can double if the readiness check fails, and so resource intensive daemonsets should take into account that they may cause evictions during disruption.'),
}, { description: 'Spec to control the desired behavior of daemon set rolling update.' }));

const daemonSetUpdateStrategy: Schema = goType('io.k8s.api.apps.v1.DaemonSetUpdateStrategy', object({
  type: { ...str('Type of daemon set update. Can be "RollingUpdate" or "OnDelete". Default is RollingUpdate.\n\nPossible enum values:\n - `"OnDelete"` Replace the old daemons only when it\'s killed\n - `"RollingUpdate"` Replace the old daemons by new ones using rolling update i.e replace them on each node one after the other.'), enum: ['OnDelete', 'RollingUpdate'] },
  rollingUpdate: fieldOfType(rollingUpdateDaemonSet, { description: 'Rolling update config params. Present only if type = "RollingUpdate".' }),
}, { description: 'DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet.' }));

export const daemonSetSpec: Schema = goType('io.k8s.api.apps.v1.DaemonSetSpec', object({
  selector: fieldOfType(labelSelector, { description: 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template\'s labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors' }),
  template: fieldOfType(podTemplateSpecSchema, { description: 'An object that describes the pod that will be created. The DaemonSet will create exactly one copy of this pod on every node that matches the template\'s node selector (or on every node if no node selector is specified). The only allowed template.spec.restartPolicy value is "Always". More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template' }),
  updateStrategy: fieldOfType(daemonSetUpdateStrategy, { description: 'An update strategy to replace existing DaemonSet pods with new pods.' }),
  minReadySeconds: int32('The minimum number of seconds for which a newly created DaemonSet pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready).'),
  revisionHistoryLimit: int32('The number of old history to retain to allow rollback. This is a pointer to distinguish between explicit zero and not specified. Defaults to 10.'),
}, { required: ['selector', 'template'], description: 'DaemonSetSpec is the specification of a daemon set.' }));

const daemonSetCondition: Schema = goType('io.k8s.api.apps.v1.DaemonSetCondition', object({
  type: str('Type of DaemonSet condition.'),
  status: str('Status of the condition, one of True, False, Unknown.'),
  lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
  reason: str('The reason for the condition\'s last transition.'),
  message: str('A human readable message indicating details about the transition.'),
}, { required: ['type', 'status'], description: 'DaemonSetCondition describes the state of a DaemonSet at a certain point.' }));

export const daemonSetStatus: Schema = goType('io.k8s.api.apps.v1.DaemonSetStatus', object({
  currentNumberScheduled: int32('The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
  numberMisscheduled: int32('The number of nodes that are running the daemon pod, but are not supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
  desiredNumberScheduled: int32('The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
  numberReady: int32('numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.'),
  observedGeneration: int64('The most recent generation observed by the daemon set controller.'),
  updatedNumberScheduled: int32('The total number of nodes that are running updated daemon pod'),
  numberAvailable: int32('The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
  numberUnavailable: int32('The number of nodes that should be running the daemon pod and have none of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
  collisionCount: int32('Count of hash collisions for the DaemonSet. The DaemonSet controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ControllerRevision.'),
  conditions: mapList(daemonSetCondition, ['type'], 'Represents the latest available observations of a DaemonSet\'s current state.'),
}, { required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'], description: 'DaemonSetStatus represents the current status of a daemon set.' }));

export const daemonSetSchema: Schema = kindSchema({
  spec: fieldOfType(daemonSetSpec, { description: 'The desired behavior of this daemon set. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(daemonSetStatus, { description: 'The current status of this daemon set. This data may be out of date by some window of time. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'DaemonSet represents the configuration of a daemon set.');
