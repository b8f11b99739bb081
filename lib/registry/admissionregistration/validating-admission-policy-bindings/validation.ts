/**
 * ValidateValidatingAdmissionPolicyBinding of Kubernetes 1.32: policyName, paramRef (name or
 * selector, parameterNotFoundAction), matchResources (at Kubernetes' misspelt path
 * `spec.matchResouces`) and validationActions, with Kubernetes' paths and messages.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Subdomain } from '../../../meta/validation';
import { labelSelectorFromObject } from '../../../meta/label-selector';
import { ApiObject } from '../../../scheme/types';
import { pathSegmentNameErrors, validateMatchResources } from '../policy-match-resources';
import { goSlice } from '../rule-validation';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const unset = (v: unknown) => v === undefined || v === null;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const ACTIONS = ['Audit', 'Deny', 'Warn'];
const NOT_FOUND_ACTIONS = ['Deny', 'Allow'];

function validateParamRef(value: unknown, path: string): FieldError[] {
  if (unset(value)) return [];
  const pr = isObject(value) ? value : {};
  const errs: FieldError[] = [];
  const name = str(pr.name);
  const hasSelector = !unset(pr.selector);
  if (name) {
    for (const m of pathSegmentNameErrors(name)) errs.push(fieldErrors.invalid(child(path, 'name'), name, m));
    if (hasSelector) errs.push(fieldErrors.forbidden(child(path, 'name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...labelSelectorFromObject(pr.selector, child(path, 'selector')).errors);
    if (name) errs.push(fieldErrors.forbidden(child(path, 'selector'), 'name and selector are mutually exclusive'));
  }
  if (!name && !hasSelector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = str(pr.parameterNotFoundAction);
  if (!action) errs.push(fieldErrors.required(child(path, 'parameterNotFoundAction')));
  else if (!NOT_FOUND_ACTIONS.includes(action)) errs.push(fieldErrors.notSupported(child(path, 'parameterNotFoundAction'), action, NOT_FOUND_ACTIONS));
  return errs;
}

function validateActions(value: unknown, path: string): FieldError[] {
  const list = Array.isArray(value) ? value : [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((a, i) => {
    const action = String(a ?? '');
    if (!ACTIONS.includes(action)) errs.push(fieldErrors.notSupported(index(path, i), action, ACTIONS));
    if (seen.has(action)) errs.push(fieldErrors.duplicate(index(path, i), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push({ type: 'FieldValueInvalid', field: path, message: `Invalid value: ${goSlice('[]admissionregistration.ValidationAction', list)}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)` });
  }
  if (!seen.size) errs.push(fieldErrors.required(path, 'at least one validation action is required'));
  return errs;
}

export function validateBinding(obj: ApiObject): FieldError[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (!policyName) errs.push(fieldErrors.required('spec.policyName'));
  else for (const m of isDns1123Subdomain(policyName)) errs.push(fieldErrors.invalid('spec.policyName', policyName, m));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateActions(spec.validationActions, 'spec.validationActions'));
  return errs;
}
