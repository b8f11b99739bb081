/**
 * Schema of core/v1 Endpoints: the addresses and ports that implement a Service, in subsets
 * (ready and not-ready addresses sharing one set of ports). Every list is atomic and the address
 * and port structs are atomic, as Kubernetes' Go types mark them.
 */
import { goType } from '../../../scheme/type-names';
import { Schema, atomicList, int32, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { objectReference } from '../object-reference-schema';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

export const APP_PROTOCOL_DESCRIPTION = 'The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax. Valid values are either:\n\n* Un-prefixed protocol names - reserved for IANA standard service names (as per RFC-6335 and https://www.iana.org/assignments/service-names).\n\n* Kubernetes-defined prefixed names:\n  * \'kubernetes.io/h2c\' - HTTP/2 prior knowledge over cleartext as described in https://www.rfc-editor.org/rfc/rfc9113.html#name-starting-http-2-with-prior-\n  * \'kubernetes.io/ws\'  - WebSocket over cleartext as described in https://www.rfc-editor.org/rfc/rfc6455\n  * \'kubernetes.io/wss\' - WebSocket over TLS as described in https://www.rfc-editor.org/rfc/rfc6455\n\n* Other protocols should use implementation-defined prefixed names such as mycompany.com/my-custom-protocol.';

const PROTOCOL_ENUM = ['SCTP', 'TCP', 'UDP'];

export const endpointAddress: Schema = goType('io.k8s.api.core.v1.EndpointAddress', object({
  ip: str('The IP of this endpoint. May not be loopback (127.0.0.0/8 or ::1), link-local (169.254.0.0/16 or fe80::/10), or link-local multicast (224.0.0.0/24 or ff02::/16).'),
  hostname: str('The Hostname of this endpoint'),
  nodeName: str('Optional: Node hosting this endpoint. This can be used to determine endpoints local to a node.'),
  targetRef: { ...objectReference, description: 'Reference to object providing the endpoint.' },
}, { required: ['ip'], description: 'EndpointAddress is a tuple that describes single IP address.', ...atomic }));

export const endpointPort: Schema = goType('io.k8s.api.core.v1.EndpointPort', object({
  name: str('The name of this port.  This must match the \'name\' field in the corresponding ServicePort. Must be a DNS_LABEL. Optional only if one port is defined.'),
  port: int32('The port number of the endpoint.'),
  protocol: { ...str('The IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP.\n\nPossible enum values:\n - `"SCTP"` is the SCTP protocol.\n - `"TCP"` is the TCP protocol.\n - `"UDP"` is the UDP protocol.'), enum: PROTOCOL_ENUM },
  appProtocol: str(APP_PROTOCOL_DESCRIPTION),
}, { required: ['port'], description: 'EndpointPort is a tuple that describes a single port.', ...atomic }));

export const endpointSubset: Schema = goType('io.k8s.api.core.v1.EndpointSubset', object({
  addresses: atomicList(endpointAddress, 'IP addresses which offer the related ports that are marked as ready. These endpoints should be considered safe for load balancers and clients to utilize.'),
  notReadyAddresses: atomicList(endpointAddress, 'IP addresses which offer the related ports but are not currently marked as ready because they have not yet finished starting, have recently failed a readiness check, or have recently failed a liveness check.'),
  ports: atomicList(endpointPort, 'Port numbers available on the related IP addresses.'),
}, { description: 'EndpointSubset is a group of addresses with a common set of ports. The expanded set of endpoints is the Cartesian product of Addresses x Ports. For example, given:\n\n\t{\n\t  Addresses: [{"ip": "10.10.1.1"}, {"ip": "10.10.2.2"}],\n\t  Ports:     [{"name": "a", "port": 8675}, {"name": "b", "port": 309}]\n\t}\n\nThe resulting set of endpoints can be viewed as:\n\n\ta: [ 10.10.1.1:8675, 10.10.2.2:8675 ],\n\tb: [ 10.10.1.1:309, 10.10.2.2:309 ]' }));

export const SUBSETS_DESCRIPTION = 'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.';

export const endpointsSchema: Schema = kindSchema({
  subsets: atomicList(endpointSubset, SUBSETS_DESCRIPTION),
}, 'Endpoints is a collection of endpoints that implement the actual service. Example:\n\n\t Name: "mysvc",\n\t Subsets: [\n\t   {\n\t     Addresses: [{"ip": "10.10.1.1"}, {"ip": "10.10.2.2"}],\n\t     Ports: [{"name": "a", "port": 8675}, {"name": "b", "port": 309}]\n\t   },\n\t   {\n\t     Addresses: [{"ip": "10.10.3.3"}],\n\t     Ports: [{"name": "a", "port": 93}, {"name": "b", "port": 76}]\n\t   },\n\t]');
