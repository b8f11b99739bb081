/**
 * What ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration v1)
 * share: MatchResources (the policy's matchConstraints, the binding's matchResources) with its
 * NamedRuleWithOperations, their schema, SetDefaults (matchPolicy Equivalent, selectors {}, rules'
 * scope "*") and Kubernetes' validateMatchResources with its field paths and messages.
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { labelSelectorFromObject } from '../../meta/label-selector';
import { fieldOfType } from '../../scheme/type-names';
import { Schema, atomicList, object, str } from '../../scheme/schema';
import { labelSelector } from '../../scheme/meta-schema';
import { ruleWithOperations } from './webhook-schema';
import { validateRuleWithOperations } from './rule-validation';

/** NamedRuleWithOperations: RuleWithOperations (inlined) narrowed to some resource names. */
export const namedRuleWithOperations: Schema = object({
  resourceNames: atomicList(str(), 'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.'),
  ...(ruleWithOperations.properties ?? {}),
}, { description: 'NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames.', 'x-kubernetes-map-type': 'atomic' });

/** MatchResources (atomic, as Kubernetes' +structType=atomic). */
export const matchResources: Schema = object({
  namespaceSelector: fieldOfType(labelSelector, { description: 'NamespaceSelector decides whether to run the admission control policy on an object based on whether the namespace for that object matches the selector. Default to the empty LabelSelector, which matches everything.' }),
  objectSelector: fieldOfType(labelSelector, { description: 'ObjectSelector decides whether to run the validation based on if the object has matching labels. Default to the empty LabelSelector, which matches everything.' }),
  resourceRules: atomicList(namedRuleWithOperations, 'ResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy matches. The policy cares about an operation if it matches _any_ Rule.'),
  excludeResourceRules: atomicList(namedRuleWithOperations, 'ExcludeResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy should not care about. The exclude rules take precedence over include rules (if a resource matches both, it is excluded)'),
  matchPolicy: str('matchPolicy defines how the "MatchResources" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent". Defaults to "Equivalent"'),
}, { description: 'MatchResources decides whether to run the admission control policy on an object based on whether it meets the match criteria. The exclude rules take precedence over include rules (if a resource matches both, it is excluded)', 'x-kubernetes-map-type': 'atomic' });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const unset = (v: unknown) => v === undefined || v === null;

/** SetDefaults_MatchResources and SetDefaults_Rule, in place. */
export function defaultMatchResources(mr: unknown): void {
  if (!isObject(mr)) return;
  if (unset(mr.matchPolicy)) mr.matchPolicy = 'Equivalent';
  if (unset(mr.namespaceSelector)) mr.namespaceSelector = {};
  if (unset(mr.objectSelector)) mr.objectSelector = {};
  for (const list of [mr.resourceRules, mr.excludeResourceRules]) {
    if (Array.isArray(list)) for (const r of list) if (isObject(r) && unset(r.scope)) r.scope = '*';
  }
}

const MATCH_POLICIES = ['Equivalent', 'Exact'];

/** path.ValidatePathSegmentName: a name usable as one URL path segment. */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

function validateNamedRule(rule: unknown, path: string): FieldError[] {
  const r = isObject(rule) ? rule : {};
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (Array.isArray(r.resourceNames) ? r.resourceNames : []).forEach((n, i) => {
    const name = String(n ?? '');
    const p = index(child(path, 'resourceNames'), i);
    for (const m of pathSegmentNameErrors(name)) errs.push(fieldErrors.invalid(p, name, m));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(p, name));
    else seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(r, path)];
}

function validateSelector(value: unknown, path: string): FieldError[] {
  if (unset(value)) return [fieldErrors.required(path)];
  return labelSelectorFromObject(value, path, { allowInvalidExpressionValues: false }).errors;
}

/** validateMatchResources at `path` (nothing when absent). */
export function validateMatchResources(mr: unknown, path: string): FieldError[] {
  if (unset(mr)) return [];
  const m = isObject(mr) ? mr : {};
  const errs: FieldError[] = [];
  if (unset(m.matchPolicy)) errs.push(fieldErrors.required(child(path, 'matchPolicy')));
  else if (!MATCH_POLICIES.includes(String(m.matchPolicy))) errs.push(fieldErrors.notSupported(child(path, 'matchPolicy'), m.matchPolicy, MATCH_POLICIES));
  errs.push(...validateSelector(m.namespaceSelector, child(path, 'namespaceSelector')));
  errs.push(...validateSelector(m.objectSelector, child(path, 'objectSelector')));
  for (const field of ['resourceRules', 'excludeResourceRules']) {
    const list = m[field];
    if (Array.isArray(list)) list.forEach((r, i) => errs.push(...validateNamedRule(r, index(child(path, field), i))));
  }
  return errs;
}
