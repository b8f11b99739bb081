/**
 * Kubernetes' per-node checks of a CRD schema (`ValidateCustomResourceDefinitionOpenAPISchema`
 * and `specStandardValidatorV3`): refused keywords, defaults where they may not be, uniqueItems,
 * additionalProperties next to properties, the x-kubernetes-* extensions and list/map types.
 * Runs on the schema JSON as written, in Kubernetes' order, with its paths and messages.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isObject } from './structural';
import { listTypeErrors } from './list-type-validation';

type Json = Record<string, unknown>;

/** What the checks of a node depend on from its ancestors. */
interface Ctx {
  allowDefaults: boolean;
  disallowDefaultsReason?: string;
  insideResourceMeta: boolean;
  requireValidPropertyType: boolean;
}

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** What the request's version relaxes (apiextensions v1beta1: no defaults, any type name). */
export interface OpenApiSchemaOptions {
  /** `false`: every `default` is refused, with `disallowDefaultsReason` (v1beta1). Absent: allowed. */
  allowDefaults?: boolean;
  disallowDefaultsReason?: string;
  /** `false`: a `type` outside OpenAPI's is accepted (v1beta1, or stored data that has one). Absent: refused. */
  requireValidPropertyType?: boolean;
}

/** All per-node errors of `schema` (the CRD's openAPIV3Schema) at `path`. */
export function validateOpenApiSchema(schema: unknown, path: string, opts: OpenApiSchemaOptions = {}): FieldError[] {
  const ctx: Ctx = { allowDefaults: opts.allowDefaults !== false, insideResourceMeta: false, requireValidPropertyType: opts.requireValidPropertyType !== false };
  if (opts.disallowDefaultsReason) ctx.disallowDefaultsReason = opts.disallowDefaultsReason;
  return node(schema, path, ctx, true);
}

const present = (v: unknown) => v !== undefined && v !== null;

function node(schema: unknown, path: string, ctx: Ctx, isRoot: boolean): FieldError[] {
  if (!isObject(schema)) return [];
  const errs = standard(schema, path, ctx);
  if (schema.uniqueItems === true) {
    errs.push(fieldErrors.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  const props = isObject(schema.properties) ? schema.properties : {};
  const ap = schema.additionalProperties;
  if (present(ap)) {
    // Kubernetes: properties are for structs, additionalProperties for maps; `true` is harmless.
    if (Object.keys(props).length && (ap === false || isObject(ap))) {
      errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ctx.insideResourceMeta ? forbidDefaults(ctx, 'inside additionalProperties applying to object metadata') : ctx;
    errs.push(...node(ap, `${path}.additionalProperties`, sub, false));
  }
  for (const [k, p] of Object.entries(props)) {
    let sub = ctx;
    if ((isRoot || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${k}`);
    }
    errs.push(...node(p, `${path}.properties[${k}]`, sub, false));
  }
  errs.push(...node(schema.not, `${path}.not`, ctx, false));
  for (const k of ['allOf', 'oneOf', 'anyOf']) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((x, i) => errs.push(...node(x, `${path}.${k}[${i}]`, ctx, false)));
  }
  if (isObject(schema.definitions)) {
    for (const [k, d] of Object.entries(schema.definitions)) errs.push(...node(d, `${path}.definitions[${k}]`, ctx, false));
  }
  if (Array.isArray(schema.items)) schema.items.forEach((x, i) => errs.push(...node(x, `${path}.items[${i}]`, ctx, false)));
  else errs.push(...node(schema.items, `${path}.items`, ctx, false));
  if (isObject(schema.dependencies)) {
    for (const [k, d] of Object.entries(schema.dependencies)) errs.push(...node(d, `${path}.dependencies[${k}]`, ctx, false));
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  // x-kubernetes-validations (CEL rules) are checked and compiled above the schema engine, which
  // may not import lib/cel: lib/registry/apiextensions/custom-resource-definitions/cel-rules-validation.ts.
  errs.push(...listTypeErrors(schema, path));
  return errs;
}

const forbidDefaults = (ctx: Ctx, reason: string): Ctx => ({ ...ctx, allowDefaults: false, disallowDefaultsReason: reason });

// specStandardValidatorV3.validate
function standard(schema: Json, path: string, ctx: Ctx): FieldError[] {
  const errs: FieldError[] = [];
  const type = schema.type;
  if (ctx.requireValidPropertyType && typeof type === 'string' && type && !OPENAPI_TYPES.includes(type)) {
    errs.push(fieldErrors.notSupported(`${path}.type`, type, OPENAPI_TYPES));
  }
  if (present(schema.default) && !ctx.allowDefaults) {
    errs.push(fieldErrors.forbidden(`${path}.default`, `must not be set${ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : ''}`));
  }
  if (typeof schema.id === 'string' && schema.id) errs.push(fieldErrors.forbidden(`${path}.id`, 'id is not supported'));
  if (present(schema.additionalItems)) errs.push(fieldErrors.forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (isObject(schema.patternProperties) && Object.keys(schema.patternProperties).length) {
    errs.push(fieldErrors.forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  }
  if (isObject(schema.definitions) && Object.keys(schema.definitions).length) {
    errs.push(fieldErrors.forbidden(`${path}.definitions`, 'definitions is not supported'));
  }
  if (present(schema.dependencies)) errs.push(fieldErrors.forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (present(schema.$ref)) errs.push(fieldErrors.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null') errs.push(fieldErrors.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(schema.items) && schema.items.length) {
    errs.push(fieldErrors.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  }
  if (ctx.insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) {
    errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
  return errs;
}
