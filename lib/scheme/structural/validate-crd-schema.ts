/**
 * The CRD-time check of one version's `openAPIV3Schema`, in Kubernetes' order
 * (`validateCustomResourceDefinitionValidation`): root rules when the status subresource is
 * enabled, `nullable` at the root, the structural rules then the defaults, the per-node OpenAPI
 * checks (the CEL rules of `x-kubernetes-validations` are checked above, by the CRD's validation), and last
 * the structural-model build error, reported only when nothing else is wrong.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isObject, toStructural } from './structural';
import { validateStructural } from './structural-validation';
import { validateDefaults } from './defaults-validation';
import { OpenApiSchemaOptions, validateOpenApiSchema } from './openapi-schema-validation';

/** Options of validateCrdSchema (and those of the per-node checks). */
export interface CrdSchemaOptions extends OpenApiSchemaOptions {
  /** The version has the status subresource: the root may only use a few keywords. */
  statusEnabled: boolean;
  /** The schema must be structural (v1 CRDs, and v1beta1 CRDs that prune, default or use x-kubernetes-*). */
  requireStructural?: boolean;
}

// JSONSchemaProps' fields in Go declaration order, as JSON keys, and those allowed at the root with status.
const ROOT_FIELD_ORDER = ['id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum',
  'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems',
  'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf',
  'anyOf', 'not', 'properties', 'additionalProperties', 'patternProperties', 'dependencies', 'additionalItems',
  'definitions', 'externalDocs', 'example', 'nullable', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations'];
const ALLOWED_AT_ROOT = new Set(['description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf',
  'required', 'items', 'properties', 'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations']);
const ALLOWED_GO_NAMES = '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';

// Go's zero values do not count as set.
const isSet = (v: unknown) => v !== undefined && v !== null && v !== false && v !== '' && v !== 0
  && !(Array.isArray(v) && !v.length) && !(isObject(v) && !Object.keys(v).length);

/**
 * Validates the CRD schema JSON `schema` whose own path is `path` (for example
 * `spec.validation.openAPIV3Schema` or `spec.versions[0].schema.openAPIV3Schema`).
 * Returns Kubernetes' field errors; [] when the schema is acceptable.
 */
export function validateCrdSchema(schema: unknown, path: string, opts: CrdSchemaOptions): FieldError[] {
  if (schema === undefined || schema === null) return [];
  if (!isObject(schema)) return [fieldErrors.invalid(path, '', 'OpenAPIV3Schema must be an object')];
  const errs: FieldError[] = [];
  if (opts.statusEnabled) {
    for (const k of ROOT_FIELD_ORDER) {
      if (!isSet(schema[k])) continue;
      if (k === 'type') {
        if (schema.type !== 'object') {
          errs.push(fieldErrors.invalid(`${path}.type`, schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!ALLOWED_AT_ROOT.has(k)) {
        errs.push(fieldErrors.invalid(path, schema, `only ${ALLOWED_GO_NAMES} fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(fieldErrors.forbidden(`${path}.nullable`, 'nullable cannot be true at the root'));

  const initErrs: FieldError[] = [];
  if (opts.requireStructural !== false) {
    let structural;
    try {
      structural = toStructural(schema);
    } catch (e) {
      initErrs.push(fieldErrors.invalid(path, '', (e as Error).message));
    }
    if (structural) {
      const structuralErrs = validateStructural(path, structural);
      errs.push(...(structuralErrs.length ? structuralErrs : validateDefaults(path, structural)));
    }
  }
  errs.push(...validateOpenApiSchema(schema, path, opts));
  if (!errs.length && initErrs.length) errs.push(...initErrs);
  return errs;
}
