/**
 * Schema of core/v1 Service: ServiceSpec (ports merged by port and protocol, cluster IPs and
 * families, type, traffic policies, session affinity), ServiceStatus (load-balancer ingress and
 * conditions), with Kubernetes' Go type names, list types and patch strategies.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, bool, int32, int64, mapList, object, str, stringMap, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const intOrString: Schema = { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true };
const enumStr = (description: string, values: string[]): Schema => ({ ...str(description), enum: values });

export const servicePort: Schema = goType('io.k8s.api.core.v1.ServicePort', object({
  name: str('The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec must have unique names. When considering the endpoints for a Service, this must match the \'name\' field in the EndpointPort. Optional if only one ServicePort is defined on this service.'),
  // The default makes `protocol` optional as a list-map key for server-side apply, as in Kubernetes' OpenAPI.
  protocol: { ...enumStr('The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.', ['SCTP', 'TCP', 'UDP']), default: 'TCP' },
  appProtocol: str('The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax.'),
  port: int32('The port that will be exposed by this service.'),
  targetPort: { ...intOrString, description: 'Number or name of the port to access on the pods targeted by the service. Number must be in the range 1 to 65535. Name must be an IANA_SVC_NAME. If this is a string, it will be looked up as a named port in the target Pod\'s container ports. If this is not specified, the value of the \'port\' field is used (an identity map).' },
  nodePort: int32('The port on each node on which this service is exposed when type is NodePort or LoadBalancer.  Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail.'),
}, { required: ['port'], description: 'ServicePort contains information on service\'s port.' }));

const clientIPConfig = goType('io.k8s.api.core.v1.ClientIPConfig', object({
  timeoutSeconds: int32('timeoutSeconds specifies the seconds of ClientIP type session sticky time. The value must be >0 && <=86400(for 1 day) if ServiceAffinity == "ClientIP". Default value is 10800(for 3 hours).'),
}, { description: 'ClientIPConfig represents the configurations of Client IP based session affinity.' }));

const sessionAffinityConfig = goType('io.k8s.api.core.v1.SessionAffinityConfig', object({
  clientIP: fieldOfType(clientIPConfig, { description: 'clientIP contains the configurations of Client IP based session affinity.' }),
}, { description: 'SessionAffinityConfig represents the configurations of session affinity.' }));

export const serviceSpec: Schema = goType('io.k8s.api.core.v1.ServiceSpec', object({
  ports: mapList(servicePort, ['port', 'protocol'], 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
  selector: { ...stringMap('Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName.'), 'x-kubernetes-map-type': 'atomic' },
  clusterIP: str('clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address.'),
  clusterIPs: atomicList(str(), 'ClusterIPs is a list of IP addresses assigned to this service, and are usually assigned randomly.  If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail.'),
  type: enumStr('type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.', ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']),
  externalIPs: atomicList(str(), 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.'),
  sessionAffinity: enumStr('Supports "ClientIP" and "None". Used to maintain session affinity. Enable client IP based session affinity. Must be ClientIP or None. Defaults to None.', ['ClientIP', 'None']),
  loadBalancerIP: str('Only applies to Service Type: LoadBalancer. This feature depends on whether the underlying cloud-provider supports specifying the loadBalancerIP when a load balancer is created. Deprecated: This field was under-specified and its meaning varies across implementations.'),
  loadBalancerSourceRanges: atomicList(str(), 'If specified and supported by the platform, this will restrict traffic through the cloud-provider load-balancer will be restricted to the specified client IPs.'),
  externalName: str('externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record). No proxying will be involved.  Must be a lowercase RFC-1123 hostname (https://tools.ietf.org/html/rfc1123) and requires `type` to be "ExternalName".'),
  externalTrafficPolicy: enumStr('externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses (NodePorts, ExternalIPs, and LoadBalancer IPs).', ['Cluster', 'Local']),
  healthCheckNodePort: int32('healthCheckNodePort specifies the healthcheck nodePort for the service. This only applies when type is set to LoadBalancer and externalTrafficPolicy is set to Local.'),
  publishNotReadyAddresses: bool('publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready.'),
  sessionAffinityConfig: fieldOfType(sessionAffinityConfig, { description: 'sessionAffinityConfig contains the configurations of session affinity.' }),
  ipFamilies: atomicList(str(), 'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service. This field is usually assigned automatically based on cluster configuration and the ipFamilyPolicy field.'),
  ipFamilyPolicy: enumStr('IPFamilyPolicy represents the dual-stack-ness requested or required by this Service. If there is no value provided, then this field will be set to SingleStack.', ['PreferDualStack', 'RequireDualStack', 'SingleStack']),
  allocateLoadBalancerNodePorts: bool('allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer.  Default is "true".'),
  loadBalancerClass: str('loadBalancerClass is the class of the load balancer implementation this Service belongs to.'),
  internalTrafficPolicy: enumStr('InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP.', ['Cluster', 'Local']),
  trafficDistribution: str('TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints.'),
}, { description: 'ServiceSpec describes the attributes that a user creates on a service.' }));

const portStatus = goType('io.k8s.api.core.v1.PortStatus', object({
  port: int32('Port is the port number of the service port of which status is recorded here'),
  protocol: enumStr('Protocol is the protocol of the service port of which status is recorded here The supported values are: "TCP", "UDP", "SCTP"', ['SCTP', 'TCP', 'UDP']),
  error: str('Error is to record the problem with the service port'),
}, { required: ['port', 'protocol'] }));

const loadBalancerIngress = goType('io.k8s.api.core.v1.LoadBalancerIngress', object({
  ip: str('IP is set for load-balancer ingress points that are IP based (typically GCE or OpenStack load-balancers)'),
  hostname: str('Hostname is set for load-balancer ingress points that are DNS based (typically AWS load-balancers)'),
  ipMode: str('IPMode specifies how the load-balancer IP behaves, and may only be specified when the ip field is specified.'),
  ports: atomicList(portStatus, 'Ports is a list of records of service ports If used, every port defined in the service should have an entry in it'),
}, { description: 'LoadBalancerIngress represents the status of a load-balancer ingress point: traffic intended for the service should be sent to an ingress point.' }));

const loadBalancerStatus = goType('io.k8s.api.core.v1.LoadBalancerStatus', object({
  ingress: atomicList(loadBalancerIngress, 'Ingress is a list containing ingress points for the load-balancer. Traffic intended for the service should be sent to these ingress points.'),
}, { description: 'LoadBalancerStatus represents the status of a load-balancer.' }));

const condition: Schema = object({
  type: str('type of condition in CamelCase or in foo.example.com/CamelCase.'),
  status: str('status of the condition, one of True, False, Unknown.'),
  observedGeneration: int64('observedGeneration represents the .metadata.generation that the condition was set based upon.'),
  lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another.'),
  reason: str('reason contains a programmatic identifier indicating the reason for the condition\'s last transition.'),
  message: str('message is a human readable message indicating details about the transition. This may be an empty string.'),
}, { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'], description: 'Condition contains details for one aspect of the current state of this API Resource.' });

export const serviceStatus: Schema = goType('io.k8s.api.core.v1.ServiceStatus', object({
  loadBalancer: fieldOfType(loadBalancerStatus, { description: 'LoadBalancer contains the current status of the load-balancer, if one is present.' }),
  conditions: mapList(condition, ['type'], 'Current service state'),
}, { description: 'ServiceStatus represents the current status of a service.' }));

export const serviceSchema: Schema = kindSchema({
  spec: fieldOfType(serviceSpec, { description: 'Spec defines the behavior of a service. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(serviceStatus, { description: 'Most recently observed status of the service. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.');
