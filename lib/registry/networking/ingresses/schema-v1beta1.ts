/**
 * Schema of Ingress at networking.k8s.io/v1beta1 and extensions/v1beta1 (the same Go types in
 * two packages): a backend is `serviceName` and `servicePort` (an int-or-string) or a
 * `resource`; the spec's default backend is `backend`; `pathType` is optional (defaulted to
 * ImplementationSpecific). TLS sections and the status have v1's shape and are v1's schemas.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { typedLocalObjectReference } from '../../core/object-reference-schema';
import { ingressStatus, ingressTls } from './schema';

/** The Go package of the types: `networking` or `extensions`. */
export type IngressV1beta1Package = 'networking' | 'extensions';

function schemaOf(pkg: IngressV1beta1Package): Schema {
  const type = (name: string, s: Schema): Schema => goType(`io.k8s.api.${pkg}.v1beta1.${name}`, s);
  const backend = type('IngressBackend', object({
    serviceName: str('Specifies the name of the referenced service.'),
    servicePort: { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true, description: 'Specifies the port of the referenced service.' },
    resource: { ...typedLocalObjectReference, description: 'Resource is an ObjectRef to another Kubernetes resource in the namespace of the Ingress object. If resource is specified, serviceName and servicePort must not be specified.' },
  }, { description: 'IngressBackend describes all endpoints for a given service and port.' }));
  const path = type('HTTPIngressPath', object({
    path: str('Path is matched against the path of an incoming request. Currently it can contain characters disallowed from the conventional "path" part of a URL as defined by RFC 3986. Paths must begin with a \'/\'. When unspecified, all paths from incoming requests are matched.'),
    pathType: { ...str('PathType determines the interpretation of the Path matching: Exact, Prefix or ImplementationSpecific. Defaults to ImplementationSpecific.'), enum: ['Exact', 'ImplementationSpecific', 'Prefix'] },
    backend: fieldOfType(backend, { description: 'Backend defines the referenced service endpoint to which the traffic will be forwarded to.' }),
  }, { required: ['backend'], description: 'HTTPIngressPath associates a path with a backend. Incoming urls matching the path are forwarded to the backend.' }));
  const http = type('HTTPIngressRuleValue', object({
    paths: atomicList(path, 'A collection of paths that map requests to backends.'),
  }, { required: ['paths'], description: 'HTTPIngressRuleValue is a list of http selectors pointing to backends.' }));
  const rule = type('IngressRule', object({
    host: str('Host is the fully qualified domain name of a network host, as defined by RFC 3986. IPs are not allowed; "*." wildcards match one DNS label.'),
    http,
  }, { description: 'IngressRule represents the rules mapping the paths under a specified host to the related backend services.' }));
  const spec = type('IngressSpec', object({
    ingressClassName: str('IngressClassName is the name of the IngressClass cluster resource. It replaces the deprecated `kubernetes.io/ingress.class` annotation.'),
    backend: fieldOfType(backend, { description: 'A default backend capable of servicing requests that don\'t match any rule. At least one of \'backend\' or \'rules\' must be specified.' }),
    tls: atomicList(ingressTls, 'TLS configuration. Currently the Ingress only supports a single TLS port, 443.'),
    rules: atomicList(rule, 'A list of host rules used to configure the Ingress. If unspecified, or no rule matches, all traffic is sent to the default backend.'),
  }, { description: 'IngressSpec describes the Ingress the user wishes to exist.' }));
  return kindSchema({
    spec: fieldOfType(spec, { description: 'Spec is the desired state of the Ingress.' }),
    status: fieldOfType(ingressStatus, { description: 'Status is the current state of the Ingress.' }),
  }, 'Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend. An Ingress can be configured to give services externally-reachable urls, load balance traffic, terminate SSL, offer name based virtual hosting etc.');
}

export const ingressV1beta1Schemas: Record<IngressV1beta1Package, Schema> = { networking: schemaOf('networking'), extensions: schemaOf('extensions') };
