/**
 * Schema of core/v1 Node: the spec a node is created with (pod CIDRs, provider ID,
 * schedulability, taints, the removed dynamic-config source) and the status its kubelet reports
 * (capacity, conditions and addresses merged by type, daemon endpoints, system info, images,
 * volumes, runtime handlers, features). Names, list types, patch strategies and descriptions are
 * Kubernetes' (staging/src/k8s.io/api/core/v1/types.go).
 */
import { Schema, atomicList, bool, int32, int64, mapList, object, setList, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { resourceList } from '../quantity-schema';

const CORE = 'io.k8s.api.core.v1';

export const taintSchema: Schema = goType(`${CORE}.Taint`, object({
  key: str('Required. The taint key to be applied to a node.'),
  value: str('The taint value corresponding to the taint key.'),
  effect: str('Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.'),
  timeAdded: time('TimeAdded represents the time at which the taint was added. It is only written for NoExecute taints.'),
}, { required: ['key', 'effect'], description: 'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.' }));

const configMapNodeConfigSource: Schema = goType(`${CORE}.ConfigMapNodeConfigSource`, object({
  namespace: str('Namespace is the metadata.namespace of the referenced ConfigMap. This field is required in all cases.'),
  name: str('Name is the metadata.name of the referenced ConfigMap. This field is required in all cases.'),
  uid: str('UID is the metadata.UID of the referenced ConfigMap. This field is forbidden in Node.Spec, and required in Node.Status.'),
  resourceVersion: str('ResourceVersion is the metadata.ResourceVersion of the referenced ConfigMap. This field is forbidden in Node.Spec, and required in Node.Status.'),
  kubeletConfigKey: str('KubeletConfigKey declares which key of the referenced ConfigMap corresponds to the KubeletConfiguration structure This field is required in all cases.'),
}, { required: ['namespace', 'name', 'kubeletConfigKey'], description: 'ConfigMapNodeConfigSource contains the information to reference a ConfigMap as a config source for the Node. This API is deprecated since 1.22: https://git.k8s.io/enhancements/keps/sig-node/281-dynamic-kubelet-configuration' }));

const nodeConfigSource: Schema = goType(`${CORE}.NodeConfigSource`, object({
  configMap: fieldOfType(configMapNodeConfigSource, { description: 'ConfigMap is a reference to a Node\'s ConfigMap' }),
}, { description: 'NodeConfigSource specifies a source of node configuration. Exactly one subfield (excluding metadata) must be non-nil. This API is deprecated since 1.22' }));

export const nodeSpecSchema: Schema = goType(`${CORE}.NodeSpec`, object({
  podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
  podCIDRs: { ...setList(str(), 'podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node. If this field is specified, the 0th entry must match the podCIDR field. It may contain at most 1 value for each of IPv4 and IPv6.'), 'x-kubernetes-patch-strategy': 'merge' },
  providerID: str('ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>'),
  unschedulable: bool('Unschedulable controls node schedulability of new pods. By default, node is schedulable. More info: https://kubernetes.io/docs/concepts/nodes/node/#manual-node-administration'),
  taints: atomicList(taintSchema, 'If specified, the node\'s taints.'),
  configSource: fieldOfType(nodeConfigSource, { description: 'Deprecated: Previously used to specify the source of the node\'s configuration for the DynamicKubeletConfig feature. This feature is removed.' }),
  externalID: str('Deprecated. Not all kubelets will set this field. Remove field after 1.13. see: https://issues.k8s.io/61966'),
}, { description: 'NodeSpec describes the attributes that a node is created with.' }));

const nodeCondition: Schema = goType(`${CORE}.NodeCondition`, object({
  type: str('Type of node condition.'),
  status: str('Status of the condition, one of True, False, Unknown.'),
  lastHeartbeatTime: time('Last time we got an update on a given condition.'),
  lastTransitionTime: time('Last time the condition transit from one status to another.'),
  reason: str('(brief) reason for the condition\'s last transition.'),
  message: str('Human readable message indicating details about last transition.'),
}, { required: ['type', 'status'], description: 'NodeCondition contains condition information for a node.' }));

const nodeAddress: Schema = goType(`${CORE}.NodeAddress`, object({
  type: str('Node address type, one of Hostname, ExternalIP or InternalIP.'),
  address: str('The node address.'),
}, { required: ['type', 'address'], description: 'NodeAddress contains information for the node\'s address.' }));

const daemonEndpoint: Schema = goType(`${CORE}.DaemonEndpoint`, object({
  Port: int32('Port number of the given endpoint.'),
}, { required: ['Port'], description: 'DaemonEndpoint contains information about a single Daemon endpoint.' }));

const nodeDaemonEndpoints: Schema = goType(`${CORE}.NodeDaemonEndpoints`, object({
  kubeletEndpoint: fieldOfType(daemonEndpoint, { description: 'Endpoint on which Kubelet is listening.' }),
}, { description: 'NodeDaemonEndpoints lists ports opened by daemons running on the Node.' }));

const nodeSystemInfo: Schema = goType(`${CORE}.NodeSystemInfo`, object({
  machineID: str('MachineID reported by the node. For unique machine identification in the cluster this field is preferred. Learn more from man(5) machine-id: http://man7.org/linux/man-pages/man5/machine-id.5.html'),
  systemUUID: str('SystemUUID reported by the node. For unique machine identification MachineID is preferred. This field is specific to Red Hat hosts https://access.redhat.com/documentation/en-us/red_hat_subscription_management/1/html/rhsm/uuid'),
  bootID: str('Boot ID reported by the node.'),
  kernelVersion: str('Kernel Version reported by the node from \'uname -r\' (e.g. 3.16.0-0.bpo.4-amd64).'),
  osImage: str('OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).'),
  containerRuntimeVersion: str('ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).'),
  kubeletVersion: str('Kubelet Version reported by the node.'),
  kubeProxyVersion: str('Deprecated: KubeProxy Version reported by the node.'),
  operatingSystem: str('The Operating System reported by the node'),
  architecture: str('The Architecture reported by the node'),
}, {
  required: ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'],
  description: 'NodeSystemInfo is a set of ids/uuids to uniquely identify the node.',
}));

const containerImage: Schema = goType(`${CORE}.ContainerImage`, object({
  names: atomicList(str(), 'Names by which this image is known. e.g. ["kubernetes.example/hyperkube:v1.0.7", "cloud-vendor.registry.example/cloud-vendor/hyperkube:v1.0.7"]'),
  sizeBytes: int64('The size of the image in bytes.'),
}, { description: 'Describe a container image' }));

const attachedVolume: Schema = goType(`${CORE}.AttachedVolume`, object({
  name: str('Name of the attached volume'),
  devicePath: str('DevicePath represents the device path where the volume should be available'),
}, { required: ['name', 'devicePath'], description: 'AttachedVolume describes a volume attached to a node' }));

const nodeConfigStatus: Schema = goType(`${CORE}.NodeConfigStatus`, object({
  assigned: fieldOfType(nodeConfigSource, { description: 'Assigned reports the checkpointed config the node will try to use.' }),
  active: fieldOfType(nodeConfigSource, { description: 'Active reports the checkpointed config the node is actively using.' }),
  lastKnownGood: fieldOfType(nodeConfigSource, { description: 'LastKnownGood reports the checkpointed config the node will fall back to when it encounters an error attempting to use the Assigned config.' }),
  error: str('Error describes any problems reconciling the Spec.ConfigSource to the Active config.'),
}, { description: 'NodeConfigStatus describes the status of the config assigned by Node.Spec.ConfigSource.' }));

const nodeRuntimeHandlerFeatures: Schema = goType(`${CORE}.NodeRuntimeHandlerFeatures`, object({
  recursiveReadOnlyMounts: bool('RecursiveReadOnlyMounts is set to true if the runtime handler supports RecursiveReadOnlyMounts.'),
  userNamespaces: bool('UserNamespaces is set to true if the runtime handler supports UserNamespaces, including for volumes.'),
}, { description: 'NodeRuntimeHandlerFeatures is a set of features implemented by the runtime handler.' }));

const nodeRuntimeHandler: Schema = goType(`${CORE}.NodeRuntimeHandler`, object({
  name: str('Runtime handler name. Empty for the default runtime handler.'),
  features: fieldOfType(nodeRuntimeHandlerFeatures, { description: 'Supported features.' }),
}, { description: 'NodeRuntimeHandler is a set of runtime handler information.' }));

const nodeFeatures: Schema = goType(`${CORE}.NodeFeatures`, object({
  supplementalGroupsPolicy: bool('SupplementalGroupsPolicy is set to true if the runtime supports SupplementalGroupsPolicy and ContainerUser.'),
}, { description: 'NodeFeatures describes the set of features implemented by the CRI implementation. The features contained in the NodeFeatures should depend only on the cri implementation independent of runtime handlers.' }));

export const nodeStatusSchema: Schema = goType(`${CORE}.NodeStatus`, object({
  capacity: resourceList('Capacity represents the total resources of a node. More info: https://kubernetes.io/docs/reference/node/node-status/#capacity'),
  allocatable: resourceList('Allocatable represents the resources of a node that are available for scheduling. Defaults to Capacity.'),
  phase: str('NodePhase is the recently observed lifecycle phase of the node. More info: https://kubernetes.io/docs/concepts/nodes/node/#phase The field is never populated, and now is deprecated.'),
  conditions: mapList(nodeCondition, ['type'], 'Conditions is an array of current observed node conditions. More info: https://kubernetes.io/docs/reference/node/node-status/#condition'),
  addresses: mapList(nodeAddress, ['type'], 'List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node\'s address in its own status or consumers of the downward API (status.hostIP).'),
  daemonEndpoints: fieldOfType(nodeDaemonEndpoints, { description: 'Endpoints of daemons running on the Node.' }),
  nodeInfo: fieldOfType(nodeSystemInfo, { description: 'Set of ids/uuids to uniquely identify the node. More info: https://kubernetes.io/docs/reference/node/node-status/#info' }),
  images: atomicList(containerImage, 'List of container images on this node'),
  volumesInUse: atomicList(str(), 'List of attachable volumes in use (mounted) by the node.'),
  volumesAttached: atomicList(attachedVolume, 'List of volumes that are attached to the node.'),
  config: fieldOfType(nodeConfigStatus, { description: 'Status of the config assigned to the node via the dynamic Kubelet config feature.' }),
  runtimeHandlers: atomicList(nodeRuntimeHandler, 'The available runtime handlers.'),
  features: fieldOfType(nodeFeatures, { description: 'Features describes the set of features implemented by the CRI implementation.' }),
}, { description: 'NodeStatus is information about the current status of a node.' }));

export const nodeSchema: Schema = kindSchema({
  spec: fieldOfType(nodeSpecSchema, { description: 'Spec defines the behavior of a node. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(nodeStatusSchema, { description: 'Most recently observed status of the node. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).');
