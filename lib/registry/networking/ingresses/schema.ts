/**
 * Schema of networking.k8s.io/v1 Ingress: rules mapping hosts and paths to backends (a Service
 * port or a typed object), TLS sections, the default backend and the IngressClass name; the
 * status holds the load-balancer ingress points its controller reports.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, int32, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { typedLocalObjectReference } from '../../core/object-reference-schema';

const serviceBackendPort: Schema = goType('io.k8s.api.networking.v1.ServiceBackendPort', object({
  name: str('name is the name of the port on the Service. This is a mutually exclusive setting with "Number".'),
  number: int32('number is the numerical port number (e.g. 80) on the Service. This is a mutually exclusive setting with "Name".'),
}, { 'x-kubernetes-map-type': 'atomic', description: 'ServiceBackendPort is the service port being referenced.' }));

const ingressServiceBackend: Schema = goType('io.k8s.api.networking.v1.IngressServiceBackend', object({
  name: str('name is the referenced service. The service must exist in the same namespace as the Ingress object.'),
  port: fieldOfType(serviceBackendPort, { description: 'port of the referenced service. A port name or port number is required for a IngressServiceBackend.' }),
}, { required: ['name'], description: 'IngressServiceBackend references a Kubernetes Service as a Backend.' }));

export const ingressBackend: Schema = goType('io.k8s.api.networking.v1.IngressBackend', object({
  service: fieldOfType(ingressServiceBackend, { description: 'service references a service as a backend. This is a mutually exclusive setting with "Resource".' }),
  resource: { ...typedLocalObjectReference, description: 'resource is an ObjectRef to another Kubernetes resource in the namespace of the Ingress object. If resource is specified, a service.Name and service.Port must not be specified. This is a mutually exclusive setting with "Service".' },
}, { description: 'IngressBackend describes all endpoints for a given service and port.' }));

const httpIngressPath: Schema = goType('io.k8s.api.networking.v1.HTTPIngressPath', object({
  path: str('path is matched against the path of an incoming request. Paths must begin with a \'/\' and must be present when using PathType with value "Exact" or "Prefix".'),
  pathType: { ...str('pathType determines the interpretation of the path matching: Exact, Prefix or ImplementationSpecific.'), enum: ['Exact', 'ImplementationSpecific', 'Prefix'] },
  backend: fieldOfType(ingressBackend, { description: 'backend defines the referenced service endpoint to which the traffic will be forwarded to.' }),
}, { required: ['pathType', 'backend'], description: 'HTTPIngressPath associates a path with a backend. Incoming urls matching the path are forwarded to the backend.' }));

const httpIngressRuleValue: Schema = goType('io.k8s.api.networking.v1.HTTPIngressRuleValue', object({
  paths: atomicList(httpIngressPath, 'paths is a collection of paths that map requests to backends.'),
}, { required: ['paths'], description: 'HTTPIngressRuleValue is a list of http selectors pointing to backends.' }));

const ingressRule: Schema = goType('io.k8s.api.networking.v1.IngressRule', object({
  host: str('host is the fully qualified domain name of a network host, as defined by RFC 3986, "precise" (foo.bar.com) or "wildcard" (*.foo.com). IPs are not allowed.'),
  http: httpIngressRuleValue,
}, { description: 'IngressRule represents the rules mapping the paths under a specified host to the related backend services.' }));

export const ingressTls: Schema = goType('io.k8s.api.networking.v1.IngressTLS', object({
  hosts: atomicList(str(), 'hosts is a list of hosts included in the TLS certificate.'),
  secretName: str('secretName is the name of the secret used to terminate TLS traffic on port 443.'),
}, { description: 'IngressTLS describes the transport layer security associated with an ingress.' }));

export const ingressSpec: Schema = goType('io.k8s.api.networking.v1.IngressSpec', object({
  ingressClassName: str('ingressClassName is the name of an IngressClass cluster resource.'),
  defaultBackend: fieldOfType(ingressBackend, { description: 'defaultBackend is the backend that should handle requests that don\'t match any rule. If Rules are not specified, DefaultBackend must be specified.' }),
  tls: atomicList(ingressTls, 'tls represents the TLS configuration. Currently the Ingress only supports a single TLS port, 443.'),
  rules: atomicList(ingressRule, 'rules is a list of host rules used to configure the Ingress. If unspecified, or no rule matches, all traffic is sent to the default backend.'),
}, { description: 'IngressSpec describes the Ingress the user wishes to exist.' }));

const ingressPortStatus: Schema = goType('io.k8s.api.networking.v1.IngressPortStatus', object({
  port: int32('port is the port number of the ingress port.'),
  protocol: { ...str('protocol is the protocol of the ingress port. The supported values are: "TCP", "UDP", "SCTP"'), enum: ['SCTP', 'TCP', 'UDP'] },
  error: str('error is to record the problem with the service port.'),
}, { required: ['port', 'protocol'], description: 'IngressPortStatus represents the error condition of a service port' }));

const ingressLoadBalancerIngress: Schema = goType('io.k8s.api.networking.v1.IngressLoadBalancerIngress', object({
  ip: str('ip is set for load-balancer ingress points that are IP based.'),
  hostname: str('hostname is set for load-balancer ingress points that are DNS based.'),
  ports: atomicList(ingressPortStatus, 'ports provides information about the ports exposed by this LoadBalancer.'),
}, { description: 'IngressLoadBalancerIngress represents the status of a load-balancer ingress point.' }));

const ingressLoadBalancerStatus: Schema = goType('io.k8s.api.networking.v1.IngressLoadBalancerStatus', object({
  ingress: atomicList(ingressLoadBalancerIngress, 'ingress is a list containing ingress points for the load-balancer.'),
}, { description: 'IngressLoadBalancerStatus represents the status of a load-balancer.' }));

export const ingressStatus: Schema = goType('io.k8s.api.networking.v1.IngressStatus', object({
  loadBalancer: fieldOfType(ingressLoadBalancerStatus, { description: 'loadBalancer contains the current status of the load-balancer.' }),
}, { description: 'IngressStatus describe the current state of the Ingress.' }));

export const ingressSchema: Schema = kindSchema({
  spec: fieldOfType(ingressSpec, { description: 'spec is the desired state of the Ingress.' }),
  status: fieldOfType(ingressStatus, { description: 'status is the current state of the Ingress.' }),
}, 'Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend. An Ingress can be configured to give services externally-reachable urls, load balance traffic, terminate SSL, offer name based virtual hosting etc.');
