/**
 * Whether a set of RBAC rules (what a user holds) covers another (what a role or binding would
 * grant), as Kubernetes' escalation check decides it: the requested rules are broken down into
 * atomic rules (one verb, one group, one resource, at most one name; or one verb and one
 * non-resource URL) and each must be covered by a single held rule. `*` covers only where it is
 * held (a requested `*` verb needs a held `*`), `*\/<subresource>` covers that subresource of any
 * resource, a held rule with resourceNames covers only those names, and a non-resource URL ending
 * in `*` covers the URLs it prefixes. Pure functions over plain rules.
 */
import { PolicyRule } from '../../registry/rbac/types';

const ALL = '*';

const list = (v: readonly string[] | null | undefined): readonly string[] => v ?? [];

/** The atomic rules of one rule, in Kubernetes' order: group, then resource, then verb, then name; URLs last. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const names = list(rule.resourceNames);
  for (const group of list(rule.apiGroups)) {
    for (const resource of list(rule.resources)) {
      for (const verb of list(rule.verbs)) {
        if (!names.length) {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
          continue;
        }
        for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  // Non-resource URLs combine with verbs only.
  for (const url of list(rule.nonResourceURLs)) {
    for (const verb of list(rule.verbs)) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(held: readonly string[], wanted: readonly string[]): boolean {
  for (const w of wanted) if (!held.includes(w)) return false;
  return true;
}

/** Every requested resource is held exactly, by `*`, or (a subresource) by `*\/<subresource>`. */
function resourcesCovered(held: readonly string[], wanted: readonly string[]): boolean {
  if (held.includes(ALL)) return true;
  for (const r of wanted) {
    if (held.includes(r)) continue;
    const slash = r.indexOf('/');
    if (slash < 0 || !held.includes(`*${r.slice(slash)}`)) return false;
  }
  return true;
}

/** A held URL covers a requested one when equal, or when it ends in `*` and prefixes it. */
export function nonResourceURLCovers(held: string, wanted: string): boolean {
  if (held === wanted) return true;
  return held.endsWith(ALL) && wanted.startsWith(held.replace(/\*+$/, ''));
}

function urlsCovered(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => held.some((h) => nonResourceURLCovers(h, w)));
}

/**
 * Whether one held rule covers an atomic rule (Kubernetes' ruleCovers). A held rule without
 * resourceNames covers any name; one with names covers only an atomic rule naming one of them.
 */
export function ruleCovers(held: PolicyRule, atomic: PolicyRule): boolean {
  const verbs = list(held.verbs);
  const groups = list(held.apiGroups);
  const heldNames = list(held.resourceNames);
  const wantedNames = list(atomic.resourceNames);
  const namesOk = heldNames.length === 0 || (wantedNames.length > 0 && hasAll(heldNames, wantedNames));
  return (verbs.includes(ALL) || hasAll(verbs, list(atomic.verbs)))
    && (groups.includes(ALL) || hasAll(groups, list(atomic.apiGroups)))
    && resourcesCovered(list(held.resources), list(atomic.resources))
    && urlsCovered(list(held.nonResourceURLs), list(atomic.nonResourceURLs))
    && namesOk;
}

/**
 * The atomic rules of `requested` that no rule of `held` covers (Kubernetes' Covers); empty
 * when `held` covers everything requested.
 */
export function uncoveredRules(held: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const atomic of breakdownRule(rule)) {
      if (!held.some((h) => ruleCovers(h, atomic))) missing.push(atomic);
    }
  }
  return missing;
}
