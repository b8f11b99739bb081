/**
 * Kubernetes' validation of a CustomResourceDefinition (apiextensions validation.go), on the
 * internal view of the spec (view.ts) so that field paths are Kubernetes' own. The schema
 * checks themselves are the schema engine's (validateCrdSchema). A request at v1beta1 is
 * validated more leniently, as Kubernetes did (requestGV): schemas are optional and need be
 * structural only where pruning, defaults or x-kubernetes-* extensions need it, defaults are
 * refused, any type name is accepted, and the approval annotation and preserveUnknownFields
 * are not checked. An update at v1 does not tighten what the stored CRD already had.
 */
import { Naming } from '../../../naming';
import { ApiObject } from '../../../scheme/types';
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1035Label, isDns1123Subdomain } from '../../../meta/validation';
import { validateCrdSchema } from '../../../scheme/structural/validate-crd-schema';
import { toStructural } from '../../../scheme/structural/structural';
import { validateStructural } from '../../../scheme/structural/structural-validation';
import { CrdSpec, CrdStatus, CrdSubresources, CrdVersion, crdNames, crdSpec, crdStatus, internalView } from './view';
import { requiredCrdNames, validateCrdNames } from './names-validation';
import { validateCrdColumn, validateCrdSubresources } from './columns-validation';
import { hasRecognizedReviewVersionOrNone, validateCrdConversion } from './conversion-validation';
import { validateSelectableFields } from './selectable-fields-validation';
import { validateApiApproval } from './approval';
import { isTrue } from './conditions';
import { goStrings, goVersions, invalidRendered } from './go-values';
import { validateCrdRules } from './cel-rules-validation';

/** The apiextensions version a request was made at (Kubernetes' requestGV). */
export type CrdRequestVersion = 'v1' | 'v1beta1';

const V1BETA1_DEFAULTS_REASON = '(cannot set default values in apiextensions.k8s.io/v1beta1 CRDs, must use apiextensions.k8s.io/v1)';

/** What the schema checks of one spec require (allowDefaults, requireStructuralSchema, requireValidPropertyType). */
interface SchemaOptions {
  allowDefaults: boolean;
  requireStructural: boolean;
  requireValidPropertyType: boolean;
}

interface Options extends SchemaOptions {
  requireRecognizedConversionReviewVersion: boolean;
  requireOpenApiSchema: boolean;
  /** On update, the versions whose schema is unchanged: their rules' per-expression cost is not checked again. */
  unchangedSchemas?: Set<string>;
}

/** The schema checks then the CEL rules' (compiled only when the schema is otherwise valid). */
function schemaAndRules(schema: unknown, path: string, statusEnabled: boolean, suppressCost: boolean, opts: SchemaOptions): FieldError[] {
  const errs = validateCrdSchema(schema, path, {
    statusEnabled, requireStructural: opts.requireStructural, requireValidPropertyType: opts.requireValidPropertyType,
    allowDefaults: opts.allowDefaults, ...(opts.allowDefaults ? {} : { disallowDefaultsReason: V1BETA1_DEFAULTS_REASON }),
  });
  return [...errs, ...validateCrdRules(schema, path, errs.length === 0, { suppressPerExpressionCost: suppressCost })];
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const schemaOf = (v: unknown): unknown => (isObject(v) ? v.openAPIV3Schema ?? undefined : undefined);
const hasStatus = (sub: unknown) => isObject(sub) && sub.status !== undefined && sub.status !== null;

/** Whether any schema node satisfies `test` (SchemaHas over every nested schema). */
function schemaHas(schema: unknown, test: (node: Record<string, unknown>) => boolean): boolean {
  if (Array.isArray(schema)) return schema.some((s) => schemaHas(s, test));
  if (!isObject(schema)) return false;
  if (test(schema)) return true;
  for (const k of ['items', 'additionalProperties', 'additionalItems', 'not', 'allOf', 'anyOf', 'oneOf']) {
    if (schemaHas(schema[k], test)) return true;
  }
  for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
    if (isObject(schema[k]) && Object.values(schema[k] as object).some((s) => schemaHas(s, test))) return true;
  }
  return false;
}

const hasDefaults = (schema: unknown) => schemaHas(schema, (n) => n.default !== undefined && n.default !== null);
const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const hasInvalidType = (schema: unknown) => schemaHas(schema, (n) => typeof n.type === 'string' && !!n.type && !OPENAPI_TYPES.includes(n.type));
// schemaHasKubernetesExtensions: these need a structural schema whatever the request version.
const hasKubernetesExtensions = (schema: unknown) => schemaHas(schema, (n) => n['x-kubernetes-embedded-resource'] === true
  || (n['x-kubernetes-preserve-unknown-fields'] !== undefined && n['x-kubernetes-preserve-unknown-fields'] !== null)
  || n['x-kubernetes-int-or-string'] === true || (Array.isArray(n['x-kubernetes-list-map-keys']) && n['x-kubernetes-list-map-keys'].length > 0)
  || (n['x-kubernetes-list-type'] !== undefined && n['x-kubernetes-list-type'] !== null));

/** Whether the schema is not structural (the structural rules or the model refuse it). */
function isNonStructural(schema: unknown): boolean {
  if (schema === undefined || schema === null) return false;
  try {
    return validateStructural('', toStructural(schema)).length > 0;
  } catch {
    return true;
  }
}

/** The schemas of a spec, top-level (lifted) and per version. */
function specSchemas(spec: CrdSpec): unknown[] {
  const { versions, lifted } = internalView(spec);
  return [lifted.schema ? schemaOf(lifted.schema.value) : undefined, ...versions.map((v) => (lifted.schema ? undefined : schemaOf(v.schema)))];
}

/**
 * The schema options of a request at `version`, relaxed for an update whose stored spec
 * (`old`) already has what they would refuse (allowDefaults, requireStructuralSchema,
 * requireValidPropertyType).
 */
function schemaOptions(version: CrdRequestVersion, old?: CrdSpec): SchemaOptions {
  const before = old ? specSchemas(old) : [];
  return {
    allowDefaults: before.some(hasDefaults) || version !== 'v1beta1',
    requireStructural: version !== 'v1beta1' && !before.some(isNonStructural),
    requireValidPropertyType: version !== 'v1beta1' && !before.some(hasInvalidType),
  };
}

function validateDeprecationWarning(v: CrdVersion, path: string): FieldError[] {
  const w = v.deprecationWarning;
  if (w === undefined || w === null) return [];
  const warning = str(w);
  if (v.deprecated !== true) return [fieldErrors.invalid(path, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (Buffer.byteLength(warning, 'utf8') > 256) errs.push(fieldErrors.invalid(path, warning, 'must be <= 256 characters long'));
  if (!warning) errs.push(fieldErrors.invalid(path, warning, 'must not be an empty string'));
  // Go reports the byte offset of the first rune unicode.IsPrint refuses (control characters
  // included, so its "control character" branch is never reached).
  let offset = 0;
  for (const ch of warning) {
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(fieldErrors.invalid(path, warning, `must only contain printable UTF-8 characters; non-printable character found at index ${offset}`));
      break;
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

function validateColumns(columns: unknown, path: string): FieldError[] {
  return (Array.isArray(columns) ? columns : []).flatMap((c, j) => validateCrdColumn(isObject(c) ? c : {}, index(path, j)));
}

function validateSpec(spec: CrdSpec, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(spec.group);
  if (!group) errs.push(fieldErrors.required('spec.group'));
  else if (isDns1123Subdomain(group).length) errs.push(fieldErrors.invalid('spec.group', group, isDns1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));
  const scope = str(spec.scope);
  if (!scope) errs.push(fieldErrors.required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldErrors.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const { versions, lifted } = internalView(spec);
  const topSchema = lifted.schema ? schemaOf(lifted.schema.value) : undefined;
  const ownSchema = (v: CrdVersion) => (lifted.schema ? undefined : schemaOf(v.schema));
  if (topSchema === undefined) {
    versions.forEach((v, i) => {
      const at = `spec.versions[${i}].schema.openAPIV3Schema`;
      if (opts.requireOpenApiSchema && ownSchema(v) === undefined) errs.push(fieldErrors.required(at, 'schemas are required'));
      else if (!opts.requireOpenApiSchema && spec.preserveUnknownFields !== true && v.served === true && ownSchema(v) === undefined) {
        errs.push(fieldErrors.required(at, 'because otherwise all fields are pruned'));
      }
    });
  }
  const schemas = [topSchema, ...versions.map(ownSchema)];
  // Pruning, defaults and the x-kubernetes-* extensions need structural schemas whatever the request.
  const schemaOpts: SchemaOptions = {
    ...opts,
    requireStructural: opts.requireStructural || spec.preserveUnknownFields !== true
      || (opts.allowDefaults && schemas.some(hasDefaults)) || schemas.some(hasKubernetesExtensions),
  };
  if (opts.allowDefaults && spec.preserveUnknownFields === true && schemas.some(hasDefaults)) {
    errs.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  const topSubresources = lifted.subresources?.value as CrdSubresources | undefined;
  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (v.storage === true) storageCount++;
    const name = str(v.name);
    if (names.has(name)) unique = false;
    names.add(name);
    const nameErrs = isDns1035Label(name);
    if (nameErrs.length) errs.push(fieldErrors.invalid(child(at, 'name'), name, nameErrs.join(',')));
    errs.push(...validateDeprecationWarning(v, child(at, 'deprecationWarning')));
    const statusEnabled = hasStatus(lifted.subresources ? topSubresources : v.subresources);
    const schema = ownSchema(v);
    if (schema !== undefined) errs.push(...schemaAndRules(schema, child(at, 'schema.openAPIV3Schema'), statusEnabled, !!opts.unchangedSchemas?.has(name), schemaOpts));
    if (!lifted.subresources) errs.push(...validateCrdSubresources(v.subresources, child(at, 'subresources')));
    if (!lifted.additionalPrinterColumns) errs.push(...validateColumns(v.additionalPrinterColumns, child(at, 'additionalPrinterColumns')));
    if (!lifted.selectableFields && Array.isArray(v.selectableFields) && v.selectableFields.length) {
      if (schema === undefined) {
        errs.push(fieldErrors.invalid(child(at, 'selectableFields'), '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
      } else {
        errs.push(...validateSelectableFields(v.selectableFields, schema, child(at, 'selectableFields')));
      }
    }
  });
  const liftedNames = new Set(Object.keys(lifted));
  if (!unique) errs.push(invalidRendered('spec.versions', goVersions(versions, liftedNames), 'must contain unique version names'));
  if (storageCount !== 1) {
    errs.push(invalidRendered('spec.versions', goVersions(versions, liftedNames), 'must have exactly one version marked as storage version'));
  }
  // The internal type repeats the first version's name as spec.version, checked again there.
  const first = versions.length ? str(versions[0].name) : '';
  if (first && isDns1035Label(first).length) errs.push(fieldErrors.invalid('spec.version', first, isDns1035Label(first).join(',')));

  const specNames = crdNames(spec);
  errs.push(...requiredCrdNames(specNames, 'spec.names'), ...validateCrdNames(specNames, 'spec.names'));
  if (topSchema !== undefined) {
    const anyStatus = hasStatus(topSubresources) || versions.some((v) => !lifted.subresources && hasStatus(v.subresources));
    const allUnchanged = versions.length > 0 && versions.every((v) => opts.unchangedSchemas?.has(str(v.name)));
    errs.push(...schemaAndRules(topSchema, 'spec.validation.openAPIV3Schema', anyStatus, allUnchanged, schemaOpts));
  }
  if (lifted.subresources) errs.push(...validateCrdSubresources(topSubresources, 'spec.subresources'));
  if (lifted.additionalPrinterColumns) errs.push(...validateColumns(lifted.additionalPrinterColumns.value, 'spec.additionalPrinterColumns'));
  const topFields = lifted.selectableFields?.value;
  if (Array.isArray(topFields) && topFields.length) {
    if (!lifted.schema || !isObject(lifted.schema.value)) {
      errs.push(fieldErrors.invalid('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    } else {
      errs.push(...validateSelectableFields(topFields, topSchema, 'spec.selectableFields'));
    }
  }
  const conversion = isObject(spec.conversion) ? spec.conversion : undefined;
  if (conversion && conversion.strategy !== 'None' && spec.preserveUnknownFields === true) {
    errs.push(fieldErrors.invalid('spec.conversion.strategy', str(conversion.strategy), 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateCrdConversion(conversion, opts.requireRecognizedConversionReviewVersion, 'spec.conversion'));
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions. */
export function validateStoredVersions(status: CrdStatus, spec: CrdSpec): FieldError[] {
  const path = 'status.storedVersions';
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions.map(str) : [];
  const rendered = Array.isArray(status.storedVersions) ? goStrings(stored) : '[]string(nil)';
  if (!stored.length) return [invalidRendered(path, rendered, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of internalView(spec).versions) {
    const name = str(v.name);
    if (v.storage === true && !remaining.has(name)) errs.push(invalidRendered(path, rendered, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) errs.push(fieldErrors.invalid(index(path, i), v, 'must appear in spec.versions'));
  return errs;
}

function validatePreserveUnknownFields(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old && crdSpec(old).preserveUnknownFields === true) return [];
  if (crdSpec(obj).preserveUnknownFields !== true) return [];
  return [fieldErrors.invalid('spec.preserveUnknownFields', true,
    'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

const acceptedNames = (obj: ApiObject) => {
  const names = crdStatus(obj).acceptedNames;
  return isObject(names) ? names : {};
};

function allVersionsHaveSchemas(spec: CrdSpec): boolean {
  const { versions, lifted } = internalView(spec);
  if (lifted.schema && schemaOf(lifted.schema.value) !== undefined) return true;
  return versions.every((v) => schemaOf(v.schema) !== undefined);
}

/** ValidateCustomResourceDefinition: a new CRD (metadata is the store's, but for the name rule), in its v1 form. */
export function validateCrdCreate(obj: ApiObject, naming: Naming, version: CrdRequestVersion = 'v1'): FieldError[] {
  const spec = crdSpec(obj);
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? '';
  if (name && name !== `${str(crdNames(spec).plural)}.${str(spec.group)}`) {
    errs.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  errs.push(...validateSpec(spec, { requireRecognizedConversionReviewVersion: true, requireOpenApiSchema: version !== 'v1beta1', ...schemaOptions(version) }));
  errs.push(...validateCrdNames(acceptedNames(obj), 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crdStatus(obj), spec));
  // Neither is checked for a v1beta1 request (compatibility).
  if (version !== 'v1beta1') errs.push(...validateApiApproval(obj, undefined, naming), ...validatePreserveUnknownFields(obj, undefined));
  return errs;
}

/** The versions of `spec` whose schema equals the same version's schema in `oldSpec` (findVersionsWithUnchangedSchemas). */
function unchangedSchemaVersions(spec: CrdSpec, oldSpec: CrdSpec): Set<string> {
  const schemaByVersion = (sp: CrdSpec) => {
    const { versions, lifted } = internalView(sp);
    const top = lifted.schema ? schemaOf(lifted.schema.value) : undefined;
    return new Map(versions.map((v) => [str(v.name), JSON.stringify(top ?? schemaOf(v.schema) ?? null)]));
  };
  const now = schemaByVersion(spec);
  const before = schemaByVersion(oldSpec);
  return new Set([...now].filter(([name, s]) => before.get(name) === s).map(([name]) => name));
}

/** ValidateCustomResourceDefinitionUpdate: the create rules relaxed for stored data, plus immutability (v1 forms). */
export function validateCrdUpdate(obj: ApiObject, old: ApiObject, naming: Naming, version: CrdRequestVersion = 'v1'): FieldError[] {
  const spec = crdSpec(obj);
  const oldSpec = crdSpec(old);
  const errs = validateSpec(spec, {
    requireRecognizedConversionReviewVersion: hasRecognizedReviewVersionOrNone(isObject(oldSpec.conversion) ? oldSpec.conversion : undefined),
    requireOpenApiSchema: version !== 'v1beta1' && allVersionsHaveSchemas(oldSpec),
    unchangedSchemas: unchangedSchemaVersions(spec, oldSpec),
    ...schemaOptions(version, oldSpec),
  });
  const immutable = (path: string, now: unknown, before: unknown) => {
    if (now !== before) errs.push(fieldErrors.immutable(path, now ?? ''));
  };
  // Once served under its names, the storage layout (scope, kind) is fixed.
  if (isTrue(old, 'Established')) {
    immutable('spec.scope', spec.scope, oldSpec.scope);
    immutable('spec.names.kind', crdNames(spec).kind, crdNames(oldSpec).kind);
  }
  immutable('spec.group', spec.group, oldSpec.group);
  immutable('spec.names.plural', crdNames(spec).plural, crdNames(oldSpec).plural);
  errs.push(...validateCrdNames(acceptedNames(obj), 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crdStatus(obj), spec));
  if (version !== 'v1beta1') errs.push(...validateApiApproval(obj, old, naming), ...validatePreserveUnknownFields(obj, old));
  return errs;
}
