/**
 * Whether one webhook is called for one request (Kubernetes' ShouldCallHook), kept apart from
 * calling it: its rules for the request's resource, else (matchPolicy Equivalent) for another
 * served version of the same resource; then objectSelector on the object or the old object, and
 * namespaceSelector on the request's namespace (a Namespace's own labels when one is written);
 * last the webhook's CEL matchConditions (match-conditions.ts).
 */
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, errors } from '../../meta/api-errors';
import { matchesLabels } from '../../meta/label-selector';
import { ApiObject, ResourceDef } from '../../scheme/types';
import { NamespaceLookup } from '../namespace-lifecycle';
import { CompiledWebhook, ParsedSelector } from './compiled-webhook';
import { RuleTarget, ruleMatches } from './rules';
import { evaluateMatchConditions } from './match-conditions';
import type { CelAuthorizeFn } from '../../cel';
import type { AdmissionMetrics } from '../metrics';
import type { ServedSet } from '../../registry/resource-registry';
import type { StoreIndex } from '../../registry/store-index';

/** What evaluating matchConditions needs: the server's authorization, the metrics, and the webhook type. */
export interface MatchConditionDeps {
  authorize: CelAuthorizeFn;
  metrics: AdmissionMetrics;
  type: 'admit' | 'validating';
}

export interface GroupVersionKind { group: string; version: string; kind: string }
export interface GroupVersionResource { group: string; version: string; resource: string }

/** A webhook to call, with the kind and resource it registered for (Equivalent may differ from the request's). */
export interface WebhookInvocation {
  hook: CompiledWebhook;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
}

/** Other served versions of a group/resource, with the kind each serves (Kubernetes' EquivalentResourceMapper). */
export interface EquivalentResources {
  equivalents(group: string, resource: string, subresource: string): ReadonlyArray<{ version: string; kind: string }>;
}

/**
 * Keeps `set` given the equivalents of what is served now, and again each time custom resources
 * come and go (matchPolicy Equivalent follows their versions); returns the unsubscribe.
 */
export function followEquivalents(deps: { stores: StoreIndex; served?: ServedSet }, set: (e: EquivalentResources) => void): () => void {
  const compute = () => set(equivalentResourcesOf([...deps.stores.values()].map((s) => s.def)));
  compute();
  return deps.served?.onChange(compute) ?? (() => {});
}

/** Equivalents from the served ResourceDefs: the same group and resource at another version. */
export function equivalentResourcesOf(defs: Iterable<ResourceDef>): EquivalentResources {
  const byResource = new Map<string, ResourceDef[]>();
  for (const d of defs) {
    const key = `${d.group}/${d.resource}`;
    byResource.set(key, [...(byResource.get(key) ?? []), d]);
  }
  return {
    equivalents(group, resource, subresource) {
      return (byResource.get(`${group}/${resource}`) ?? []).map((d) => ({
        version: d.version, kind: subresource ? kindOf(d, subresource).kind : d.kind,
      }));
    },
  };
}

/** The kind a request on `def` (and subresource) carries. */
export function kindOf(def: ResourceDef, subresource?: string): GroupVersionKind {
  const sub = subresource ? def.subresources.find((s) => s.name === subresource) : undefined;
  if (sub) return { group: sub.group ?? def.group, version: sub.version ?? def.version, kind: sub.kind };
  return { group: def.group, version: def.version, kind: def.kind };
}

/** The rule target of a request; a Namespace's namespace is its own name (as Kubernetes' request info has it). */
export function ruleTargetOf(attrs: AdmissionAttributes): RuleTarget {
  const r = attrs.resource;
  const isNamespace = r.group === '' && r.resource === 'namespaces';
  return {
    operation: attrs.operation, group: r.group, version: r.version, resource: r.resource,
    subresource: attrs.subresource ?? '', namespace: isNamespace ? attrs.name : (attrs.namespace ?? ''),
  };
}

/** The invocation for `hook` when its rules cover the request (exactly, or an Equivalent version). */
export function matchRules(hook: CompiledWebhook, attrs: AdmissionAttributes, target: RuleTarget,
  equivalents: EquivalentResources): WebhookInvocation | undefined {
  for (const rule of hook.rules) {
    if (ruleMatches(rule, target)) {
      return {
        hook, kind: kindOf(attrs.resource, attrs.subresource),
        resource: { group: target.group, version: target.version, resource: target.resource }, subresource: target.subresource,
      };
    }
  }
  if (hook.matchPolicy !== 'Equivalent') return undefined;
  for (const rule of hook.rules) {
    for (const eq of equivalents.equivalents(target.group, target.resource, target.subresource)) {
      if (eq.version === target.version) continue;
      if (ruleMatches(rule, { ...target, version: eq.version })) {
        return {
          hook, kind: { group: target.group, version: eq.version, kind: eq.kind },
          resource: { group: target.group, version: eq.version, resource: target.resource }, subresource: target.subresource,
        };
      }
    }
  }
  return undefined;
}

function selectorOrThrow(s: ParsedSelector): ParsedSelector & { empty: boolean } {
  if ('error' in s) throw errors.internal(s.error);
  return s;
}

const labelsOf = (o: ApiObject | undefined): Record<string, string> | undefined => o?.metadata?.labels;

/** objectSelector: the object or the old object has matching labels; a request without either never matches. */
export function objectSelectorMatches(hook: CompiledWebhook, attrs: AdmissionAttributes): boolean {
  const s = selectorOrThrow(hook.objectSelector);
  if (s.empty || !('selector' in s)) return true;
  const matches = (o: ApiObject | undefined) => !!o && matchesLabels(s.selector, labelsOf(o));
  return matches(attrs.object) || matches(attrs.oldObject);
}

/**
 * namespaceSelector: cluster-scoped requests other than on Namespaces always match; a Namespace
 * being created or updated is judged by its own labels; otherwise the namespace's labels from
 * the cache (a namespace that does not exist is that NotFound).
 */
export async function namespaceSelectorMatches(hook: CompiledWebhook, attrs: AdmissionAttributes, target: RuleTarget,
  namespaces: NamespaceLookup): Promise<boolean> {
  const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
  if (!target.namespace && !isNamespace) return true;
  const s = selectorOrThrow(hook.namespaceSelector);
  if (s.empty || !('selector' in s)) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespace && !attrs.subresource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    labels = labelsOf(attrs.object);
  } else {
    let ns: ApiObject | undefined;
    try {
      ns = await namespaces.get(target.namespace, false);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw errors.internal((err as Error).message);
    }
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, target.namespace);
    labels = labelsOf(ns);
  }
  return matchesLabels(s.selector, labels);
}

/**
 * The invocation of `hook` for the request, or undefined when it does not apply. Throws the
 * ApiError Kubernetes answers when matching itself fails (a missing namespace, a bad selector).
 */
export async function shouldCallHook(hook: CompiledWebhook, attrs: AdmissionAttributes, target: RuleTarget,
  equivalents: EquivalentResources, namespaces: NamespaceLookup, conditions: MatchConditionDeps): Promise<WebhookInvocation | undefined> {
  const invocation = matchRules(hook, attrs, target, equivalents);
  if (!invocation) return undefined;
  if (!await namespaceSelectorMatches(hook, attrs, target, namespaces)) return undefined;
  if (!objectSelectorMatches(hook, attrs)) return undefined;
  if (hook.matchConditions.length) {
    const r = await evaluateMatchConditions(invocation, attrs, conditions.authorize, conditions.metrics, conditions.type);
    // Kubernetes fails closed with Forbidden when a condition errs under failurePolicy Fail.
    if ('error' in r) throw errors.forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name, r.error);
    if (!r.matches) return undefined;
  }
  return invocation;
}
