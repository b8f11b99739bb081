/**
 * ValidateValidatingAdmissionPolicy of Kubernetes 1.32 (pkg/apis/admissionregistration/validation):
 * failurePolicy, paramKind, matchConstraints (resourceRules required), matchConditions, variables,
 * validations (expression, message, messageExpression, reason) and auditAnnotations, with every
 * expression compiled in the environment it runs in; and the status as /status validates it.
 * Paths and messages are Kubernetes'. On update, match conditions left unchanged are not checked
 * again (Kubernetes' ignoreMatchConditions).
 */
import { isDeepStrictEqual } from 'node:util';
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName } from '../../../meta/validation';
import { validateConditions, MetaCondition } from '../../../meta/conditions';
import { ApiObject } from '../../../scheme/types';
import { validateMatchResources } from '../policy-match-resources';
import { PolicyEnvOptions, ResultKind, compilePolicyExpression, isCelIdentifier } from '../policy-cel';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const unset = (v: unknown) => v === undefined || v === null;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const items = (v: unknown): Json[] => (Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : []);

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const NEWLINES = /[\n\r]+/;

function compileAt(path: string, expression: string, kind: ResultKind, opts: PolicyEnvOptions): FieldError[] {
  const r = compilePolicyExpression(expression, kind, opts);
  return r.ok ? [] : [fieldErrors.invalid(path, expression, r.error)];
}

function validateParamKind(pk: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  const avPath = child(path, 'apiVersion');
  if (!apiVersion) errs.push(fieldErrors.required(avPath));
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) errs.push(fieldErrors.invalid(avPath, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = slashes === 1 ? apiVersion.split('/') : ['', apiVersion];
      if (group) { const e = isDns1123Subdomain(group); if (e.length) errs.push(fieldErrors.invalid(avPath, group, e.join(','))); }
      if (!version) errs.push(fieldErrors.invalid(avPath, apiVersion, 'version must be specified'));
      else { const e = isDns1035Label(version); if (e.length) errs.push(fieldErrors.invalid(avPath, version, e.join(','))); }
    }
  }
  const kind = str(pk.kind);
  if (!kind) errs.push(fieldErrors.required(child(path, 'kind')));
  else {
    const e = isDns1035Label(kind.toLowerCase());
    if (e.length) errs.push(fieldErrors.invalid(child(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

/** validateMatchConditions: at most 64, names qualified and unique, expressions bool. */
export function validatePolicyMatchConditions(list: unknown, path: string, hasParams: boolean): FieldError[] {
  const conds = items(list);
  const errs: FieldError[] = [];
  if (conds.length > 64) errs.push(fieldErrors.tooMany(path, conds.length, 64));
  const names = new Set<string>();
  conds.forEach((c, i) => {
    const p = index(path, i);
    const expr = str(c.expression).trim();
    if (!expr) errs.push(fieldErrors.required(child(p, 'expression')));
    else errs.push(...compileAt(child(p, 'expression'), expr, 'bool', { hasParams, hasAuthorizer: true, composition: false }));
    const name = str(c.name);
    if (!name) errs.push(fieldErrors.required(child(p, 'name')));
    else errs.push(...isQualifiedName(name).map((m) => fieldErrors.invalid(child(p, 'name'), name, m)));
    if (name) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(child(p, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}

function validateValidation(v: Json, path: string, opts: PolicyEnvOptions): FieldError[] {
  const errs: FieldError[] = [];
  const expression = str(v.expression);
  if (!expression.trim()) errs.push(fieldErrors.required(child(path, 'expression'), 'expression is not specified'));
  else errs.push(...compileAt(child(path, 'expression'), expression, 'bool', opts));
  const messageExpression = str(v.messageExpression);
  if (messageExpression && !messageExpression.trim()) {
    errs.push(fieldErrors.invalid(child(path, 'messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.trim()) {
    errs.push(...compileAt(child(path, 'messageExpression'), messageExpression, 'string', { ...opts, hasAuthorizer: false }));
  }
  const message = str(v.message);
  if (message && !message.trim()) errs.push(fieldErrors.invalid(child(path, 'message'), message, 'message must be non-empty if specified'));
  else if (NEWLINES.test(message.trim())) errs.push(fieldErrors.invalid(child(path, 'message'), message, 'message must not contain line breaks'));
  if (!unset(v.reason) && !REASONS.includes(str(v.reason))) errs.push(fieldErrors.notSupported(child(path, 'reason'), v.reason, REASONS));
  return errs;
}

function validateAuditAnnotation(a: Json, policyName: string, path: string, opts: PolicyEnvOptions): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  if (policyName) errs.push(...isQualifiedName(`${policyName}/${key}`).map((m) => fieldErrors.invalid(child(path, 'key'), `${policyName}/${key}`, m)));
  else errs.push(fieldErrors.invalid(child(path, 'key'), key, 'requires metadata.name be non-empty'));
  const value = str(a.valueExpression).trim();
  const vp = child(path, 'valueExpression');
  if (!value) errs.push(fieldErrors.required(vp, 'valueExpression is not specified'));
  else if (value.length > MAX_VALUE_EXPRESSION_LENGTH) errs.push(fieldErrors.required(vp, `must not exceed ${MAX_VALUE_EXPRESSION_LENGTH} bytes in length`));
  else {
    const r = compilePolicyExpression(value, 'string-or-null', opts);
    if (!r.ok) errs.push(fieldErrors.invalid(vp, str(a.valueExpression), r.error));
  }
  return errs;
}

function validateSpec(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const path = 'spec';
  const errs: FieldError[] = [];
  if (unset(spec.failurePolicy)) errs.push(fieldErrors.required(child(path, 'failurePolicy')));
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy))) errs.push(fieldErrors.notSupported(child(path, 'failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  const hasParams = !unset(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind(isObject(spec.paramKind) ? spec.paramKind : {}, child(path, 'paramKind')));
  if (unset(spec.matchConstraints)) errs.push(fieldErrors.required(child(path, 'matchConstraints')));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, child(path, 'matchConstraints')));
    const mc = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
    if (!Array.isArray(mc.resourceRules) || mc.resourceRules.length === 0) errs.push(fieldErrors.required('spec.matchConstraints.resourceRules'));
  }
  const oldSpec = old && isObject(old.spec) ? old.spec : undefined;
  const ignoreMatchConditions = oldSpec !== undefined && isDeepStrictEqual(spec.matchConditions ?? null, oldSpec.matchConditions ?? null);
  if (!ignoreMatchConditions) errs.push(...validatePolicyMatchConditions(spec.matchConditions, child(path, 'matchConditions'), hasParams));
  const variables = items(spec.variables);
  const opts: PolicyEnvOptions = { hasParams, hasAuthorizer: true, composition: variables.length > 0 };
  variables.forEach((v, i) => {
    const p = index(child(path, 'variables'), i);
    const name = str(v.name);
    if (!name.trim()) errs.push(fieldErrors.required(child(p, 'name'), 'name is not specified'));
    else if (!isCelIdentifier(name)) errs.push(fieldErrors.invalid(child(p, 'name'), name, 'name is not a valid CEL identifier'));
    const expression = str(v.expression);
    if (!expression.trim()) errs.push(fieldErrors.required(child(p, 'expression'), 'expression is not specified'));
    else errs.push(...compileAt(child(p, 'expression'), expression, 'any', opts));
  });
  const validations = items(spec.validations);
  const annotations = items(spec.auditAnnotations);
  if (!validations.length && !annotations.length) {
    const m = 'validations or auditAnnotations must contain at least one item';
    errs.push(fieldErrors.required(child(path, 'validations'), m), fieldErrors.required(child(path, 'auditAnnotations'), m));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(v, index(child(path, 'validations'), i), opts)));
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(fieldErrors.invalid(child(path, 'auditAnnotations'), spec.auditAnnotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const p = index(child(path, 'auditAnnotations'), i);
    errs.push(...validateAuditAnnotation(a, str(obj.metadata?.name), p, opts));
    const key = str(a.key);
    if (keys.has(key)) errs.push(fieldErrors.duplicate(child(p, 'key'), key));
    keys.add(key);
  });
  return errs;
}

/** Create: the whole spec. */
export function validatePolicy(obj: ApiObject): FieldError[] {
  return validateSpec(obj, undefined);
}

/** Update: the same, with unchanged match conditions taken as they are. */
export function validatePolicyUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  return validateSpec(obj, old);
}

/** validateValidatingAdmissionPolicyStatus: type checking warnings and conditions. */
export function validatePolicyStatus(obj: ApiObject): FieldError[] {
  const status = isObject(obj.status) ? obj.status : {};
  const errs: FieldError[] = [];
  const tc = isObject(status.typeChecking) ? status.typeChecking : undefined;
  items(tc?.expressionWarnings).forEach((w, i) => {
    const p = index('status.typeChecking.expressionWarnings', i);
    if (!str(w.warning)) errs.push(fieldErrors.required(child(p, 'warning')));
    if (!str(w.fieldRef).trim()) errs.push(fieldErrors.required(child(p, 'fieldRef')));
  });
  errs.push(...validateConditions(status.conditions as MetaCondition[] | undefined, 'status.conditions'));
  return errs;
}
