/**
 * Schema of the apiextensions group's kind (apiextensions/v1): CustomResourceDefinition, with
 * Kubernetes' list types (conditions keyed by type, every other list atomic). A JSON schema
 * (`openAPIV3Schema`) declares its known keywords but keeps anything else, at any depth: its
 * content is checked by the CRD validation, not by unknown-field reporting or pruning.
 */
import { Schema, atomicList, bool, bytes, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const anyJson = (description?: string): Schema => ({
  'x-kubernetes-preserve-unknown-fields': true, ...(description ? { description } : {}),
});
export const strings = (description?: string): Schema => atomicList(str(), description);
const num = (description?: string): Schema => ({ type: 'number', format: 'double', ...(description ? { description } : {}) });

/** JSONSchemaProps: the OpenAPI v3 keywords Kubernetes knows; nested schemas kept as they are. */
export const jsonSchemaProps: Schema = {
  ...object({
    id: str(), $schema: str(), $ref: str(), description: str(), type: str(), format: str(), title: str(),
    default: anyJson('Any JSON value the object is defaulted with.'),
    maximum: num(), exclusiveMaximum: bool(), minimum: num(), exclusiveMinimum: bool(),
    maxLength: int64(), minLength: int64(), pattern: str(), maxItems: int64(), minItems: int64(),
    uniqueItems: bool(), multipleOf: num(), enum: atomicList(anyJson()), maxProperties: int64(), minProperties: int64(),
    required: strings(), items: anyJson('A schema, or a list of schemas.'),
    allOf: atomicList(anyJson()), oneOf: atomicList(anyJson()), anyOf: atomicList(anyJson()), not: anyJson(),
    properties: { type: 'object', additionalProperties: anyJson() },
    additionalProperties: anyJson('A schema, or a boolean.'),
    patternProperties: { type: 'object', additionalProperties: anyJson() },
    dependencies: { type: 'object', additionalProperties: anyJson() },
    additionalItems: anyJson('A schema, or a boolean.'),
    definitions: { type: 'object', additionalProperties: anyJson() },
    externalDocs: object({ description: str(), url: str() }),
    example: anyJson(), nullable: bool(),
    'x-kubernetes-preserve-unknown-fields': bool(), 'x-kubernetes-embedded-resource': bool(),
    'x-kubernetes-int-or-string': bool(), 'x-kubernetes-list-map-keys': strings(), 'x-kubernetes-list-type': str(),
    'x-kubernetes-map-type': str(), 'x-kubernetes-validations': atomicList(anyJson()),
  }),
  'x-kubernetes-preserve-unknown-fields': true,
  description: 'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/).',
};

export const names: Schema = object({
  plural: str('The plural name of the resource to serve, all lowercase: /apis/<group>/<version>/<plural>.'),
  singular: str('The singular name of the resource; all lowercase; defaults to the lowercased kind.'),
  shortNames: strings('Short names for the resource, exposed in discovery documents; all lowercase.'),
  kind: str('The serialized kind of the resource; normally CamelCase and singular.'),
  listKind: str('The serialized kind of the list for this resource; defaults to "<kind>List".'),
  categories: strings('Grouped resources this custom resource belongs to (e.g. "all").'),
}, { required: ['plural', 'kind'] });

const serviceReference: Schema = object({
  namespace: str(), name: str(), path: str(), port: int32('The port on the service; defaults to 443.'),
}, { required: ['namespace', 'name'] });

export const webhookClientConfig: Schema = object({
  url: str('Location of the webhook, in standard URL form (https://host:port/path).'),
  service: serviceReference,
  caBundle: bytes('A PEM encoded CA bundle which will be used to validate the webhook\'s server certificate.'),
});

// Kubernetes' conditions list has no patch strategy: a strategic merge replaces it.
export const conditionList = (items: Schema, description: string): Schema => {
  const { 'x-kubernetes-patch-strategy': _s, 'x-kubernetes-patch-merge-key': _k, ...rest } = mapList(items, ['type'], description);
  return rest;
};

const column: Schema = object({
  name: str('A human readable name for the column.'),
  type: str('An OpenAPI type definition for this column: integer, number, string, boolean or date.'),
  format: str('An optional OpenAPI type definition for this column.'),
  description: str('A human readable description of this column.'),
  priority: int32('An integer defining the relative importance of this column compared to others (0 = highest).'),
  jsonPath: str('A simple JSON path evaluated against each custom resource to produce the value for this column.'),
}, { required: ['name', 'type', 'jsonPath'] });

/** CustomResourceValidation: the OpenAPI v3 schema custom resources are validated (and pruned) with. */
export const validation: Schema = object({ openAPIV3Schema: jsonSchemaProps });

/** CustomResourceSubresources: /status and /scale. */
export const subresources: Schema = object({
  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: 'Enables the /status subresource.' },
  scale: object({
    specReplicasPath: str(), statusReplicasPath: str(), labelSelectorPath: str(),
  }, { required: ['specReplicasPath', 'statusReplicasPath'] }),
});

/** SelectableField: a path custom resources may be selected by. */
export const selectableFields: Schema = atomicList(object({ jsonPath: str() }, { required: ['jsonPath'] }), 'Paths to fields that may be used as field selectors.');

const version: Schema = object({
  name: str('The version name, e.g. "v1", "v2beta1"; served at /apis/<group>/<version>/...'),
  served: bool('Whether this version is served via REST APIs.'),
  storage: bool('Whether this version is used when persisting custom resources to storage; exactly one version is.'),
  deprecated: bool('Whether this version of the custom resource API is deprecated.'),
  deprecationWarning: str('Overrides the default warning returned to API clients; only for deprecated versions.'),
  schema: validation,
  subresources,
  additionalPrinterColumns: atomicList(column, 'Additional columns returned in Table output.'),
  selectableFields,
}, { required: ['name', 'served', 'storage'] });

export const condition: Schema = object({
  type: str('Established, NamesAccepted or Terminating.'),
  status: str('True, False or Unknown.'),
  lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
  reason: str('A unique, one-word, CamelCase reason for the condition\'s last transition.'),
  message: str('A human-readable message indicating details about last transition.'),
}, { required: ['type', 'status'] });

/** CustomResourceDefinition: a new kind served by this server at /apis/<group>/<version>/<plural>. */
export const customResourceDefinitionSchema: Schema = kindSchema({
  spec: object({
    group: str('The API group of the defined custom resource; must be <plural>.<group> of the CRD name.'),
    names: { ...names, description: 'The resource and kind names for the custom resource.' },
    scope: str('Cluster or Namespaced.'),
    versions: atomicList(version, 'The API versions of the defined custom resource.'),
    conversion: object({
      strategy: str('None (only apiVersion changes) or Webhook; defaults to None.'),
      webhook: object({
        clientConfig: webhookClientConfig,
        conversionReviewVersions: strings('The ConversionReview versions the webhook expects, in preference order.'),
      }, { required: ['conversionReviewVersions'] }),
    }, { required: ['strategy'] }),
    preserveUnknownFields: bool('Deprecated: may only be false (prune unknown fields).'),
  }, { required: ['group', 'names', 'scope', 'versions'] }),
  status: object({
    conditions: conditionList(condition, 'The latest available observations of the CustomResourceDefinition\'s state.'),
    acceptedNames: { ...names, description: 'The names actually being used to serve discovery.' },
    storedVersions: strings('All versions of this resource that were ever persisted.'),
  }),
}, 'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.');
