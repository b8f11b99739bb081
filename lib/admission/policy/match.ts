/**
 * Whether a policy's matchConstraints (or a binding's matchResources) select a request, as
 * Kubernetes' policy matcher does: namespaceSelector (a Namespace written is judged by its own
 * labels, cluster-scoped requests always pass), objectSelector on the object or the old object,
 * excludeResourceRules first, then resourceRules (none: every resource) exactly, else (matchPolicy Equivalent) at another
 * served version of the same resource. A rule's resourceNames narrow it to those names.
 */
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, errors } from '../../meta/api-errors';
import { LabelSelector, matchesLabels } from '../../meta/label-selector';
import { ApiObject } from '../../scheme/types';
import { NamespaceLookup } from '../namespace-lifecycle';
import { EquivalentResources } from '../webhook/webhook-matcher';
import { RuleTarget, ruleMatches } from '../webhook/rules';
import { Match, NamedRule, Selector } from './compiled-policy';

function ruleCovers(rule: NamedRule, t: RuleTarget, name: string): boolean {
  if (!ruleMatches(rule, t)) return false;
  return rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

function selectorOf(s: Selector): LabelSelector | undefined {
  if (s && 'error' in s) throw errors.internal(s.error);
  return s;
}

const labelsOf = (o: ApiObject | undefined): Record<string, string> | undefined => o?.metadata?.labels;

/** The namespace object of a namespaced request (null for cluster-scoped ones), read once per request. */
export type NamespaceObjectOf = () => Promise<ApiObject | null>;

async function namespaceMatches(s: LabelSelector | undefined, attrs: AdmissionAttributes, t: RuleTarget, namespaceObject: NamespaceObjectOf): Promise<boolean> {
  const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
  if (!t.namespace && !isNamespace) return true;
  if (!s) return true;
  if (isNamespace && !attrs.subresource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) return matchesLabels(s, labelsOf(attrs.object));
  const ns = await namespaceObject();
  if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, t.namespace);
  return matchesLabels(s, labelsOf(ns));
}

/** The request's namespace from the lookup (cache first), with Kubernetes' NotFound when it is gone. */
export function namespaceObjectGetter(attrs: AdmissionAttributes, t: RuleTarget, namespaces: NamespaceLookup): NamespaceObjectOf {
  let got: Promise<ApiObject | null> | undefined;
  return () => (got ??= (async () => {
    if (!t.namespace || (attrs.resource.group === '' && attrs.resource.resource === 'namespaces')) return null;
    try {
      return (await namespaces.get(t.namespace, false)) ?? null;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw errors.internal((err as Error).message);
    }
  })());
}

/** Whether `match` selects the request (undefined match: everything). */
export async function matchesRequest(match: Match | undefined, attrs: AdmissionAttributes, t: RuleTarget,
  equivalents: EquivalentResources, namespaceObject: NamespaceObjectOf): Promise<boolean> {
  if (!match) return true;
  if (!await namespaceMatches(selectorOf(match.namespaceSelector), attrs, t, namespaceObject)) return false;
  const os = selectorOf(match.objectSelector);
  if (os && !((attrs.object && matchesLabels(os, labelsOf(attrs.object))) || (attrs.oldObject && matchesLabels(os, labelsOf(attrs.oldObject))))) return false;
  const name = attrs.name || attrs.object?.metadata?.name || '';
  if (match.excludeResourceRules.some((r) => ruleCovers(r, t, name))) return false;
  // No resourceRules (a binding's matchResources narrowing by selectors only): every resource.
  if (!match.resourceRules.length) return true;
  if (match.resourceRules.some((r) => ruleCovers(r, t, name))) return true;
  if (match.matchPolicy !== 'Equivalent') return false;
  for (const eq of equivalents.equivalents(t.group, t.resource, t.subresource)) {
    if (eq.version === t.version) continue;
    const other = { ...t, version: eq.version };
    if (match.excludeResourceRules.some((r) => ruleCovers(r, other, name))) return false;
    if (match.resourceRules.some((r) => ruleCovers(r, other, name))) return true;
  }
  return false;
}
