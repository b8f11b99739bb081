/**
 * Whether one RBAC rule allows a request (Kubernetes' rule semantics): `*` matches any verb,
 * group or resource; a resource rule names `<resource>` or `<resource>/<subresource>`, and
 * `*\/<subresource>` matches that subresource of any resource; `resourceNames` restricts to named
 * objects (so never matches a request without a name: list, create); a non-resource rule
 * matches a path exactly, `*`, or as a prefix when it ends in `*`.
 */
import { AuthorizationAttributes } from '../attributes';
import { PolicyRule } from '../../registry/rbac/types';

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === ALL || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === ALL || g === group) return true;
  return false;
}

/** `combined` is `resource` or `resource/subresource`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  return names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith(ALL) && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

export function rulesAllow(a: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  for (const r of rules) if (ruleAllows(a, r)) return true;
  return false;
}
