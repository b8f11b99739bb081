/**
 * Validation of the access reviews, as Kubernetes' pkg/apis/authorization/validation: exactly one
 * of resourceAttributes and nonResourceAttributes, a user or a group for the reviews that name
 * one, well-formed selector attributes, empty metadata, and for LocalSubjectAccessReview the
 * request's namespace. Pure functions over the decoded body; each returns field errors (422).
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isQualifiedName, isValidLabelValue } from '../../meta/validation';
import { ObjectMeta } from '../../scheme/types';
import { AccessReviewSpec, NonResourceAttributesJson, ResourceAttributesJson } from './access-review';

type SelectorAttributes = NonNullable<ResourceAttributesJson['fieldSelector']>;
type Requirement = NonNullable<SelectorAttributes['requirements']>[number];

/** A field error whose bad value is Go's %#v of the internal NonResourceAttributes, as Kubernetes prints it. */
function nonResourceError(field: string, n: NonResourceAttributesJson, detail: string): FieldError {
  const value = `authorization.NonResourceAttributes{Path:${JSON.stringify(n.path ?? '')}, Verb:${JSON.stringify(n.verb ?? '')}}`;
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` };
}

/** The requirement checks of metav1 validation, unknown operators allowed (newer clients may send them). */
function validateRequirement(r: Requirement, path: string, labels: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  const valuesPath = child(path, 'values');
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (!values.length) errs.push(fieldErrors.required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
    if (values.length) errs.push(fieldErrors.forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  }
  if (!labels) return errs;
  const key = r.key ?? '';
  for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(child(path, 'key'), key, m));
  values.forEach((v, i) => {
    for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(index(valuesPath, i), v, m));
  });
  return errs;
}

function validateSelector(s: SelectorAttributes | null | undefined, path: string, labels: boolean): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const raw = s.rawSelector ?? '';
  const requirements = s.requirements ?? [];
  if (raw && requirements.length) errs.push(fieldErrors.invalid(child(path, 'rawSelector'), raw, 'may not specified at the same time as requirements'));
  if (!raw && !requirements.length) errs.push(fieldErrors.required(child(path, 'requirements'), `when ${path} is specified, requirements or rawSelector is required`));
  requirements.forEach((r, i) => errs.push(...validateRequirement(r ?? {}, index(child(path, 'requirements'), i), labels)));
  return errs;
}

/** Exactly one of resourceAttributes and nonResourceAttributes. */
function oneOfAttributes(spec: AccessReviewSpec): FieldError[] {
  const r = spec.resourceAttributes;
  const n = spec.nonResourceAttributes;
  if (r && n) return [nonResourceError('spec.nonResourceAttributes', n, 'cannot be specified in combination with resourceAttributes')];
  // Kubernetes passes the (nil) nonResourceAttributes as the bad value, printed "null".
  if (!r && !n) return [fieldErrors.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

function selectorErrors(spec: AccessReviewSpec): FieldError[] {
  const r = spec.resourceAttributes;
  if (!r) return [];
  return [
    ...validateSelector(r.fieldSelector, 'spec.resourceAttributes.fieldSelector', false),
    ...validateSelector(r.labelSelector, 'spec.resourceAttributes.labelSelector', true),
  ];
}

/** ValidateSelfSubjectAccessReviewSpec. */
export function validateSelfSpec(spec: AccessReviewSpec): FieldError[] {
  return [...oneOfAttributes(spec), ...selectorErrors(spec)];
}

/** ValidateSubjectAccessReviewSpec: the same, and at least a user or a group (in Go's order). */
export function validateSubjectSpec(spec: AccessReviewSpec): FieldError[] {
  const user = !spec.user && !(spec.groups ?? []).length
    ? [fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified')] : [];
  return [...oneOfAttributes(spec), ...user, ...selectorErrors(spec)];
}

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v as object).length === 0;
}

/**
 * Kubernetes' "metadata must be empty" (managedFields aside, and the namespace, which the request
 * path sets). The bad value is written as JSON where Go prints the struct with %#v.
 */
export function validateEmptyMetadata(meta: ObjectMeta | undefined, message: string): FieldError[] {
  const rest = Object.entries(meta ?? {}).filter(([k]) => k !== 'managedFields' && k !== 'namespace');
  return rest.every(([, v]) => isZero(v)) ? [] : [fieldErrors.invalid('metadata', meta, message)];
}

/** ValidateLocalSubjectAccessReview's own checks: the spec's namespace is the review's, no non-resource attributes. */
export function validateLocalScope(spec: AccessReviewSpec, namespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = spec.resourceAttributes;
  if (r && (r.namespace ?? '') !== namespace) {
    errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', r.namespace ?? '', 'must match metadata.namespace'));
  }
  const n = spec.nonResourceAttributes;
  if (n) errs.push(nonResourceError('spec.nonResourceAttributes', n, 'disallowed on this kind of request'));
  return errs;
}
