/**
 * Schema of apiextensions v1beta1's CustomResourceDefinition: v1's, but for the spec, which has
 * the deprecated `version`, the top-level `validation`, `subresources` and
 * `additionalPrinterColumns` (per-version ones too), a column's `JSONPath`, the conversion's
 * `webhookClientConfig` and `conversionReviewVersions`, and a `preserveUnknownFields` that
 * defaults to true. Status, names, conditions and JSON schemas are v1's.
 */
import { Schema, atomicList, bool, int32, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { customResourceDefinitionSchema, names, selectableFields, strings, subresources, validation, webhookClientConfig } from './schema';

const column: Schema = object({
  name: str('name is a human readable name for the column.'),
  type: str('type is an OpenAPI type definition for this column: integer, number, string, boolean or date.'),
  format: str('format is an optional OpenAPI type definition for this column.'),
  description: str('description is a human readable description of this column.'),
  priority: int32('priority is an integer defining the relative importance of this column compared to others (0 = highest).'),
  JSONPath: str('JSONPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.'),
}, { required: ['name', 'type', 'JSONPath'] });

const columns = (description: string): Schema => atomicList(column, description);

const version: Schema = object({
  name: str('name is the version name, e.g. "v1", "v2beta1"; served at /apis/<group>/<version>/...'),
  served: bool('served is a flag enabling/disabling this version from being served via REST APIs.'),
  storage: bool('storage indicates this version should be used when persisting custom resources to storage; exactly one version is.'),
  deprecated: bool('deprecated indicates this version of the custom resource API is deprecated.'),
  deprecationWarning: str('deprecationWarning overrides the default warning returned to API clients; only for deprecated versions.'),
  schema: { ...validation, description: 'schema describes the schema used for validation and pruning of this version. Top-level and per-version schemas are mutually exclusive.' },
  subresources: { ...subresources, description: 'subresources specify what subresources this version of the defined custom resource have. Top-level and per-version subresources are mutually exclusive.' },
  additionalPrinterColumns: columns('additionalPrinterColumns specifies additional columns returned in Table output. Top-level and per-version columns are mutually exclusive.'),
  selectableFields,
}, { required: ['name', 'served', 'storage'] });

const status = (customResourceDefinitionSchema.properties as Record<string, Schema>).status;

/** CustomResourceDefinition at apiextensions v1beta1. */
export const customResourceDefinitionV1beta1Schema: Schema = kindSchema({
  spec: object({
    group: str('group is the API group of the defined custom resource; must be <plural>.<group> of the CRD name.'),
    version: str('version is the API version of the defined custom resource. Optional if `versions` is specified; must then match its first item. Deprecated: use `versions`.'),
    names: { ...names, description: 'names specify the resource and kind names for the custom resource.' },
    scope: str('scope indicates whether the defined custom resource is cluster- or namespace-scoped: Cluster or Namespaced (the default).'),
    validation: { ...validation, description: 'validation describes the schema used for validation and pruning of the custom resource. If present, it is used for every version. Top-level and per-version schemas are mutually exclusive.' },
    subresources: { ...subresources, description: 'subresources specify what subresources the defined custom resource has. If present, it is used for every version. Top-level and per-version subresources are mutually exclusive.' },
    versions: atomicList(version, 'versions is the list of all API versions of the defined custom resource. Optional if `version` is specified.'),
    additionalPrinterColumns: columns('additionalPrinterColumns specifies additional columns returned in Table output. If present, it is used for every version. Top-level and per-version columns are mutually exclusive.'),
    selectableFields,
    conversion: object({
      strategy: str('strategy specifies how custom resources are converted between versions: None (the default) or Webhook.'),
      webhookClientConfig: webhookClientConfig,
      conversionReviewVersions: strings('conversionReviewVersions is an ordered list of preferred ConversionReview versions the webhook expects; defaults to ["v1beta1"].'),
    }, { required: ['strategy'] }),
    preserveUnknownFields: bool('preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage; defaults to true.'),
  }, { required: ['group', 'names', 'scope'] }),
  status,
}, 'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>. Deprecated in v1.16, planned for removal in v1.22. Use apiextensions.k8s.io/v1 CustomResourceDefinition instead.');
