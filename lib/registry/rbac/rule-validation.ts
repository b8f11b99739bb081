/**
 * ValidatePolicyRule as kube-apiserver applies it to Roles and ClusterRoles: a rule names its
 * verbs, and either non-resource URLs (cluster-wide only) or API groups and resources, never
 * both. Paths and messages are Kubernetes' (`rules[0].verbs: Required value: ...`).
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { PolicyRule } from './types';

const count = (list: string[] | null | undefined): number => list?.length ?? 0;

/** Go's %#v of a []string, which Kubernetes prints as the bad value of nonResourceURLs. */
function goStrings(list: string[]): string {
  return `[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`;
}

function invalidUrls(path: string, urls: string[], detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: child(path, 'nonResourceURLs'), message: `Invalid value: ${goStrings(urls)}: ${detail}` };
}

/** The errors of one rule at `path`; `namespaced` for a Role's rules (no non-resource URLs). */
export function validatePolicyRule(rule: PolicyRule | null | undefined, namespaced: boolean, path: string): FieldError[] {
  const r: Partial<PolicyRule> = rule ?? {};
  const errs: FieldError[] = [];
  if (!count(r.verbs)) errs.push(fieldErrors.required(child(path, 'verbs'), 'verbs must contain at least one value'));
  const urls = r.nonResourceURLs ?? [];
  if (urls.length) {
    if (namespaced) errs.push(invalidUrls(path, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (count(r.apiGroups) || count(r.resources) || count(r.resourceNames)) {
      errs.push(invalidUrls(path, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!count(r.apiGroups)) errs.push(fieldErrors.required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (!count(r.resources)) errs.push(fieldErrors.required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

/** Every rule of a role's `rules`, at `rules[i]`. */
export function validateRules(rules: Array<PolicyRule | null> | null | undefined, namespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((rule, i) => validatePolicyRule(rule, namespaced, index('rules', i)));
}
