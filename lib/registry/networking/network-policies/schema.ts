/**
 * Schema of networking.k8s.io/v1 NetworkPolicy: the pods it selects, and the ingress and
 * egress rules (ports and peers: pod and namespace selectors or IP blocks) their traffic must
 * match; policyTypes says which directions the policy isolates.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, int32, object, str } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';

const intOrString = (description: string): Schema => ({ type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true, description });

const networkPolicyPort: Schema = goType('io.k8s.api.networking.v1.NetworkPolicyPort', object({
  protocol: { ...str('protocol represents the protocol (TCP, UDP, or SCTP) which traffic must match. If not specified, this field defaults to TCP.'), enum: ['SCTP', 'TCP', 'UDP'] },
  port: intOrString('port represents the port on the given protocol. This can either be a numerical or named port on a pod. If this field is not provided, this matches all port names and numbers. If present, only traffic on the specified protocol AND port will be matched.'),
  endPort: int32('endPort indicates that the range of ports from port to endPort if set, inclusive, should be allowed by the policy. This field cannot be defined if the port field is not defined or if the port field is defined as a named (string) port. The endPort must be equal or greater than port.'),
}, { description: 'NetworkPolicyPort describes a port to allow traffic on' }));

const ipBlock: Schema = goType('io.k8s.api.networking.v1.IPBlock', object({
  cidr: str('cidr is a string representing the IPBlock Valid examples are "192.168.1.0/24" or "2001:db8::/64"'),
  except: atomicList(str(), 'except is a slice of CIDRs that should not be included within an IPBlock Valid examples are "192.168.1.0/24" or "2001:db8::/64" Except values will be rejected if they are outside the cidr range'),
}, { required: ['cidr'], description: 'IPBlock describes a particular CIDR (Ex. "192.168.1.0/24","2001:db8::/64") that is allowed to the pods matched by a NetworkPolicySpec\'s podSelector. The except entry describes CIDRs that should not be included within this rule.' }));

const networkPolicyPeer: Schema = goType('io.k8s.api.networking.v1.NetworkPolicyPeer', object({
  podSelector: fieldOfType(labelSelector, { description: 'podSelector is a label selector which selects pods. This field follows standard label selector semantics; if present but empty, it selects all pods.' }),
  namespaceSelector: fieldOfType(labelSelector, { description: 'namespaceSelector selects namespaces using cluster-scoped labels. This field follows standard label selector semantics; if present but empty, it selects all namespaces.' }),
  ipBlock: fieldOfType(ipBlock, { description: 'ipBlock defines policy on a particular IPBlock. If this field is set then neither of the other fields can be.' }),
}, { description: 'NetworkPolicyPeer describes a peer to allow traffic to/from. Only certain combinations of fields are allowed' }));

const ingressRule: Schema = goType('io.k8s.api.networking.v1.NetworkPolicyIngressRule', object({
  ports: atomicList(networkPolicyPort, 'ports is a list of ports which should be made accessible on the pods selected for this rule. Each item in this list is combined using a logical OR.'),
  from: atomicList(networkPolicyPeer, 'from is a list of sources which should be able to access the pods selected for this rule. Items in this list are combined using a logical OR operation.'),
}, { description: 'NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec\'s podSelector. The traffic must match both ports and from.' }));

const egressRule: Schema = goType('io.k8s.api.networking.v1.NetworkPolicyEgressRule', object({
  ports: atomicList(networkPolicyPort, 'ports is a list of destination ports for outgoing traffic. Each item in this list is combined using a logical OR.'),
  to: atomicList(networkPolicyPeer, 'to is a list of destinations for outgoing traffic of pods selected for this rule. Items in this list are combined using a logical OR operation.'),
}, { description: 'NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of pods matched by a NetworkPolicySpec\'s podSelector. The traffic must match both ports and to.' }));

export const networkPolicySpec: Schema = goType('io.k8s.api.networking.v1.NetworkPolicySpec', object({
  podSelector: fieldOfType(labelSelector, { description: 'podSelector selects the pods to which this NetworkPolicy object applies. An empty selector matches all pods in the policy\'s namespace.' }),
  ingress: atomicList(ingressRule, 'ingress is a list of ingress rules to be applied to the selected pods.'),
  egress: atomicList(egressRule, 'egress is a list of egress rules to be applied to the selected pods.'),
  policyTypes: atomicList({ ...str(), enum: ['Egress', 'Ingress'] }, 'policyTypes is a list of rule types that the NetworkPolicy relates to. Valid options are ["Ingress"], ["Egress"], or ["Ingress", "Egress"]. If this field is not specified, it will default based on the existence of ingress or egress rules.'),
}, { description: 'NetworkPolicySpec provides the specification of a NetworkPolicy' }));

export const networkPolicySchema: Schema = kindSchema({
  spec: fieldOfType(networkPolicySpec, { description: 'spec represents the specification of the desired behavior for this NetworkPolicy.' }),
}, 'NetworkPolicy describes what network traffic is allowed for a set of Pods');
