/**
 * Schema of a pod's status (core/v1 PodStatus): phase, conditions, IPs, the statuses of the
 * init, regular and ephemeral containers, QoS class, resize and resource claim statuses.
 */
import { resourceList } from '../quantity-schema';
import { resourceRequirements } from '../pod-spec/container-schema';
import { Schema, atomicList, bool, int32, int64, mapList, object, str, time } from '../../../scheme/schema';

/** core/v1 PodCondition. */
export const podCondition: Schema = object({
  type: str(),
  status: str(),
  lastProbeTime: time(),
  lastTransitionTime: time(),
  reason: str(),
  message: str(),
}, { required: ['type', 'status'] });

/** core/v1 HostIP. */
export const hostIP: Schema = object({
  ip: str(),
}, { required: ['ip'] });

/** core/v1 PodIP. */
export const podIP: Schema = object({
  ip: str(),
}, { required: ['ip'] });

/** core/v1 ContainerStateWaiting. */
export const containerStateWaiting: Schema = object({
  reason: str(),
  message: str(),
});

/** core/v1 ContainerStateRunning. */
export const containerStateRunning: Schema = object({
  startedAt: time(),
});

/** core/v1 ContainerStateTerminated. */
export const containerStateTerminated: Schema = object({
  exitCode: int32(),
  signal: int32(),
  reason: str(),
  message: str(),
  startedAt: time(),
  finishedAt: time(),
  containerID: str(),
}, { required: ['exitCode'] });

/** core/v1 ContainerState. */
export const containerState: Schema = object({
  waiting: containerStateWaiting,
  running: containerStateRunning,
  terminated: containerStateTerminated,
});

/** core/v1 VolumeMountStatus. */
export const volumeMountStatus: Schema = object({
  name: str(),
  mountPath: str(),
  readOnly: bool(),
  recursiveReadOnly: str(),
}, { required: ['name', 'mountPath'] });

/** core/v1 LinuxContainerUser. */
export const linuxContainerUser: Schema = object({
  uid: int64(),
  gid: int64(),
  supplementalGroups: atomicList(int64()),
}, { required: ['uid', 'gid'] });

/** core/v1 ContainerUser. */
export const containerUser: Schema = object({
  linux: linuxContainerUser,
});

/** core/v1 ResourceHealth. */
export const resourceHealth: Schema = object({
  resourceID: str(),
  health: str(),
}, { required: ['resourceID'] });

/** core/v1 ResourceStatus. */
export const resourceStatus: Schema = object({
  name: str(),
  resources: { type: 'array', items: resourceHealth, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['resourceID'] },
}, { required: ['name'] });

/** core/v1 ContainerStatus. */
export const containerStatus: Schema = object({
  name: str(),
  state: containerState,
  lastState: containerState,
  ready: bool(),
  restartCount: int32(),
  image: str(),
  imageID: str(),
  containerID: str(),
  started: bool(),
  allocatedResources: resourceList(),
  resources: resourceRequirements,
  volumeMounts: mapList(volumeMountStatus, ['mountPath']),
  user: containerUser,
  allocatedResourcesStatus: mapList(resourceStatus, ['name']),
}, { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] });

/** core/v1 PodResourceClaimStatus. */
export const podResourceClaimStatus: Schema = object({
  name: str(),
  resourceClaimName: str(),
}, { required: ['name'] });

/** core/v1 PodStatus. */
export const podStatus: Schema = object({
  phase: str(),
  conditions: mapList(podCondition, ['type']),
  message: str(),
  reason: str(),
  nominatedNodeName: str(),
  hostIP: str(),
  hostIPs: { type: 'array', items: hostIP, 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'ip' },
  podIP: str(),
  podIPs: mapList(podIP, ['ip']),
  startTime: time(),
  initContainerStatuses: atomicList(containerStatus),
  containerStatuses: atomicList(containerStatus),
  qosClass: str(),
  ephemeralContainerStatuses: atomicList(containerStatus),
  resize: str(),
  resourceClaimStatuses: { type: 'array', items: podResourceClaimStatus, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
});
