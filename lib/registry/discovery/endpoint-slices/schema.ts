/**
 * Schemas of EndpointSlice at discovery/v1 and at discovery/v1beta1 (served over v1's objects):
 * a slice of a Service's endpoints, all of one address type, with the ports they share. The two
 * versions differ in an endpoint's topology: v1 has `nodeName`, `zone` and the read-only
 * `deprecatedTopology`, v1beta1 a `topology` map (and `nodeName`, no `zone`).
 */
import { goType } from '../../../scheme/type-names';
import { Schema, atomicList, bool, int32, object, setList, str, stringMap } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { objectReference } from '../../core/object-reference-schema';

const APP_PROTOCOL = 'The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax. Valid values are either:\n\n* Un-prefixed protocol names - reserved for IANA standard service names (as per RFC-6335 and https://www.iana.org/assignments/service-names).\n\n* Kubernetes-defined prefixed names:\n  * \'kubernetes.io/h2c\' - HTTP/2 prior knowledge over cleartext as described in https://www.rfc-editor.org/rfc/rfc9113.html#name-starting-http-2-with-prior-\n  * \'kubernetes.io/ws\'  - WebSocket over cleartext as described in https://www.rfc-editor.org/rfc/rfc6455\n  * \'kubernetes.io/wss\' - WebSocket over TLS as described in https://www.rfc-editor.org/rfc/rfc6455\n\n* Other protocols should use implementation-defined prefixed names such as mycompany.com/my-custom-protocol.';

export const ADDRESS_TYPE_DESCRIPTION = 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.';
export const ENDPOINTS_DESCRIPTION = 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.';
export const PORTS_DESCRIPTION = 'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.';

/** The messages of one version (`io.k8s.api.discovery.<version>`), with v1's or v1beta1's topology fields. */
function versionSchemas(version: 'v1' | 'v1beta1'): Schema {
  const name = (t: string) => `io.k8s.api.discovery.${version}.${t}`;
  const conditions = goType(name('EndpointConditions'), object({
    ready: bool('ready indicates that this endpoint is prepared to receive traffic, according to whatever system is managing the endpoint. A nil value indicates an unknown state. In most cases consumers should interpret this unknown state as ready. For compatibility reasons, ready should never be "true" for terminating endpoints, except when the normal readiness behavior is being explicitly overridden, for example when the associated Service has set the publishNotReadyAddresses flag.'),
    serving: bool('serving is identical to ready except that it is set regardless of the terminating state of endpoints. This condition should be set to true for a ready endpoint that is terminating. If nil, consumers should defer to the ready condition.'),
    terminating: bool('terminating indicates that this endpoint is terminating. A nil value indicates an unknown state. Consumers should interpret this unknown state to mean that the endpoint is not terminating.'),
  }, { description: 'EndpointConditions represents the current condition of an endpoint.' }));
  const forZone = goType(name('ForZone'), object({ name: str('name represents the name of the zone.') },
    { required: ['name'], description: 'ForZone provides information about which zones should consume this endpoint.' }));
  const hints = goType(name('EndpointHints'), object({
    forZones: atomicList(forZone, 'forZones indicates the zone(s) this endpoint should be consumed by to enable topology aware routing.'),
  }, { description: 'EndpointHints provides hints describing how an endpoint should be consumed.' }));
  const topology: Record<string, Schema> = version === 'v1'
    ? {
      deprecatedTopology: stringMap('deprecatedTopology contains topology information part of the v1beta1 API. This field is deprecated, and will be removed when the v1beta1 API is removed (no sooner than kubernetes v1.24).  While this field can hold values, it is not writable through the v1 API, and any attempts to write to it will be silently ignored. Topology information can be found in the zone and nodeName fields instead.'),
      nodeName: str('nodeName represents the name of the Node hosting this endpoint. This can be used to determine endpoints local to a Node.'),
      zone: str('zone is the name of the Zone this endpoint exists in.'),
    }
    : {
      topology: stringMap('topology contains arbitrary topology information associated with the endpoint. These key/value pairs must conform with the label format. https://kubernetes.io/docs/concepts/overview/working-with-objects/labels Topology may include a maximum of 16 key/value pairs. This includes, but is not limited to the following well known keys: * kubernetes.io/hostname: the value indicates the hostname of the node\n  where the endpoint is located. This should match the corresponding\n  node label.\n* topology.kubernetes.io/zone: the value indicates the zone where the\n  endpoint is located. This should match the corresponding node label.\n* topology.kubernetes.io/region: the value indicates the region where the\n  endpoint is located. This should match the corresponding node label.\nThis field is deprecated and will be removed in future api versions.'),
      nodeName: str('nodeName represents the name of the Node hosting this endpoint. This can be used to determine endpoints local to a Node. This field can be enabled with the EndpointSliceNodeName feature gate.'),
    };
  const endpoint = goType(name('Endpoint'), object({
    addresses: setList(str(), 'addresses of this endpoint. The contents of this field are interpreted according to the corresponding EndpointSlice addressType field. Consumers must handle different types of addresses in the context of their own capabilities. This must contain at least one address but no more than 100. These are all assumed to be fungible and clients may choose to only use the first element. Refer to: https://issue.k8s.io/106267'),
    conditions: { ...conditions, description: 'conditions contains information about the current status of the endpoint.' },
    hostname: str('hostname of this endpoint. This field may be used by consumers of endpoints to distinguish endpoints from each other (e.g. in DNS names). Multiple endpoints which use the same hostname should be considered fungible (e.g. multiple A values in DNS). Must be lowercase and pass DNS Label (RFC 1123) validation.'),
    targetRef: { ...objectReference, description: 'targetRef is a reference to a Kubernetes object that represents this endpoint.' },
    ...topology,
    hints: { ...hints, description: 'hints contains information associated with how an endpoint should be consumed.' },
  }, { required: ['addresses'], description: 'Endpoint represents a single logical "backend" implementing a service.' }));
  const port = goType(name('EndpointPort'), object({
    name: str('name represents the name of this port. All ports in an EndpointSlice must have a unique name. If the EndpointSlice is derived from a Kubernetes service, this corresponds to the Service.ports[].name. Name must either be an empty string or pass DNS_LABEL validation: * must be no more than 63 characters long. * must consist of lower case alphanumeric characters or \'-\'. * must start and end with an alphanumeric character. Default is empty string.'),
    protocol: { ...str('protocol represents the IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP.\n\nPossible enum values:\n - `"SCTP"` is the SCTP protocol.\n - `"TCP"` is the TCP protocol.\n - `"UDP"` is the UDP protocol.'), enum: ['SCTP', 'TCP', 'UDP'] },
    port: int32('port represents the port number of the endpoint. If this is not specified, ports are not restricted and must be interpreted in the context of the specific consumer.'),
    appProtocol: str(APP_PROTOCOL),
  }, { description: 'EndpointPort represents a Port used by an EndpointSlice', 'x-kubernetes-map-type': 'atomic' }));
  return kindSchema({
    addressType: { ...str(`${ADDRESS_TYPE_DESCRIPTION}\n\nPossible enum values:\n - \`"FQDN"\` represents a FQDN.\n - \`"IPv4"\` represents an IPv4 Address.\n - \`"IPv6"\` represents an IPv6 Address.`), enum: ['FQDN', 'IPv4', 'IPv6'] },
    endpoints: atomicList(endpoint, ENDPOINTS_DESCRIPTION),
    ports: atomicList(port, PORTS_DESCRIPTION),
  }, 'EndpointSlice represents a subset of the endpoints that implement a service. For a given service there may be multiple EndpointSlice objects, selected by labels, which must be joined to produce the full set of endpoints.');
}

export const endpointSliceSchema: Schema = versionSchemas('v1');
export const endpointSliceV1beta1Schema: Schema = versionSchemas('v1beta1');
