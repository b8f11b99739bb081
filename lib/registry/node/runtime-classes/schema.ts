/**
 * Schema of node.k8s.io/v1 RuntimeClass: the CRI handler its pods run with, the fixed resource
 * overhead they are charged, and the node selector and tolerations they are scheduled with (the
 * RuntimeClass admission plugin copies both into the pods). No spec or status, as in Kubernetes.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, object, str, stringMap } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { resourceList } from '../../core/quantity-schema';
import { toleration } from '../../core/pod-spec/affinity-schema';

const overhead: Schema = goType('io.k8s.api.node.v1.Overhead', object({
  podFixed: resourceList('podFixed represents the fixed resource overhead associated with running a pod.'),
}, { description: 'Overhead structure represents the resource overhead associated with running a pod.' }));

const scheduling: Schema = goType('io.k8s.api.node.v1.Scheduling', object({
  nodeSelector: {
    ...stringMap('nodeSelector lists labels that must be present on nodes that support this RuntimeClass. Pods using this RuntimeClass can only be scheduled to a node matched by this selector. The RuntimeClass nodeSelector is merged with a pod\'s existing nodeSelector. Any conflicts will cause the pod to be rejected in admission.'),
    'x-kubernetes-map-type': 'atomic',
  },
  tolerations: atomicList(toleration, 'tolerations are appended (excluding duplicates) to pods running with this RuntimeClass during admission, effectively unioning the set of nodes tolerated by the pod and the RuntimeClass.'),
}, { description: 'Scheduling specifies the scheduling constraints for nodes supporting a RuntimeClass.' }));

export const runtimeClassSchema: Schema = {
  ...kindSchema({
    handler: str('handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class. The possible values are specific to the node & CRI configuration.  It is assumed that all handlers are available on every node, and handlers of the same name are equivalent on every node. For example, a handler called "runc" might specify that the runc OCI runtime (using native Linux containers) will be used to run the containers in a pod. The Handler must be lowercase, conform to the DNS Label (RFC 1123) requirements, and is immutable.'),
    overhead: fieldOfType(overhead, { description: 'overhead represents the resource overhead associated with running a pod for a given RuntimeClass. For more details, see\n https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/' }),
    scheduling: fieldOfType(scheduling, { description: 'scheduling holds the scheduling constraints to ensure that pods running with this RuntimeClass are scheduled to nodes that support it. If scheduling is nil, this RuntimeClass is assumed to be supported by all nodes.' }),
  }, 'RuntimeClass defines a class of container runtime supported in the cluster. The RuntimeClass is used to determine which container runtime is used to run all containers in a pod. RuntimeClasses are manually defined by a user or cluster provisioner, and referenced in the PodSpec. The Kubelet is responsible for resolving the RuntimeClassName reference before running the pod.  For more details, see https://kubernetes.io/docs/concepts/containers/runtime-class/'),
  // Go's `handler` has no omitempty: OpenAPI lists it as required.
  required: ['handler'],
};
