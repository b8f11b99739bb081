/**
 * Schema of networking.k8s.io/v1 IngressClass: which controller implements Ingresses of this
 * class, and an optional reference to a parameters object (cluster- or namespace-scoped).
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const parametersReference: Schema = goType('io.k8s.api.networking.v1.IngressClassParametersReference', object({
  apiGroup: str('apiGroup is the group for the resource being referenced. If APIGroup is not specified, the specified Kind must be in the core API group. For any other third-party types, APIGroup is required.'),
  kind: str('kind is the type of resource being referenced.'),
  name: str('name is the name of resource being referenced.'),
  scope: str('scope represents if this refers to a cluster or namespace scoped resource. This may be set to "Cluster" (default) or "Namespace".'),
  namespace: str('namespace is the namespace of the resource being referenced. This field is required when scope is set to "Namespace" and must be unset when scope is set to "Cluster".'),
}, { required: ['kind', 'name'], description: 'IngressClassParametersReference identifies an API object. This can be used to specify a cluster or namespace-scoped resource.' }));

export const ingressClassSpec: Schema = goType('io.k8s.api.networking.v1.IngressClassSpec', object({
  controller: str('controller refers to the name of the controller that should handle this class. This allows for different "flavors" that are controlled by the same controller. For example, you may have different parameters for the same implementing controller. This should be specified as a domain-prefixed path no more than 250 characters in length, e.g. "acme.io/ingress-controller". This field is immutable.'),
  parameters: fieldOfType(parametersReference, { description: 'parameters is a link to a custom resource containing additional configuration for the controller. This is optional if the controller does not require extra parameters.' }),
}, { description: 'IngressClassSpec provides information about the class of an Ingress.' }));

export const ingressClassSchema: Schema = kindSchema({
  spec: fieldOfType(ingressClassSpec, { description: 'spec is the desired state of the IngressClass. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'IngressClass represents the class of the Ingress, referenced by the Ingress Spec. The `ingressclass.kubernetes.io/is-default-class` annotation can be used to indicate that an IngressClass should be considered default. When a single IngressClass resource has this annotation set to true, new Ingress resources without a class specified will be assigned this default class.');
