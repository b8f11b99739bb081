/**
 * Kubernetes' checkRequest (plugin/pkg/admission/resourcequota/controller.go) as a pure
 * function: given the namespace's quotas, one request's object (and old object on update) and
 * the evaluator of its resource, either the quotas with the request's usage added to every
 * matching one, or the sentence the request is refused with (403 Forbidden):
 *   "failed quota: <q>: must specify <resources>", "status unknown for quota: <q>, resources: ...",
 *   "quota usage is negative for resource(s): ...", "insufficient quota to consume: ...",
 *   "insufficient quota to match these scopes: [...]",
 *   "exceeded quota: <q>, requested: <r>, used: <u>, limited: <l>".
 * Matching reads status.hard: a quota the controller has not yet filled in matches nothing.
 */
import { ApiObject } from '../../scheme/types';
import { Evaluator, ScopeRequirement } from './evaluators/types';
import { LimitedResource } from './config';
import {
  ResourceList, add, lessThanOrEqual, mask, negativeNames, parseResourceList, prettyPrint, removeZeros, subtractNonNegative,
} from './resource-list';
import { quantitySign } from '../../meta/quantity';

export interface QuotaState { quota: ApiObject; hard: ResourceList; used: ResourceList }

export interface CheckInput {
  operation: 'CREATE' | 'UPDATE';
  object: ApiObject;
  oldObject?: ApiObject;
  group: string;
  resource: string;
}

export type CheckResult = { ok: true; changed: number[] } | { ok: false; reason: string };

/** The quota's status as lists. */
export function quotaState(quota: ApiObject): QuotaState {
  const status = (quota.status ?? {}) as { hard?: unknown; used?: unknown };
  return { quota, hard: parseResourceList(status.hard), used: parseResourceList(status.used) };
}

/** getScopeSelectorsFromQuota: scopes as Exists requirements, then the selector's. */
export function scopeSelectorsOf(quota: ApiObject): ScopeRequirement[] {
  const spec = (quota.spec ?? {}) as { scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  return [
    ...(spec.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })),
    ...(spec.scopeSelector?.matchExpressions ?? []).map((r) => ({ scopeName: r.scopeName, operator: r.operator, values: r.values ?? [] })),
  ];
}

/** generic.Matches: the quota charges something of the evaluator's and every scope matches. */
export function quotaMatches(state: QuotaState, evaluator: Evaluator, obj: ApiObject): boolean {
  if (!evaluator.matchingResources([...state.hard.keys()]).length) return false;
  return scopeSelectorsOf(state.quota).every((s) => evaluator.matchesScope(s, obj));
}

/** Go's %v of []ScopedResourceSelectorRequirement: `[{PriorityClass In [a b]}]`. */
const goScopeList = (reqs: ScopeRequirement[]): string => `[${reqs.map((r) => `{${r.scopeName} ${r.operator} [${(r.values ?? []).join(' ')}]}`).join(' ')}]`;

/**
 * Checks one request against `states`, adding its usage to the matching quotas' `used` in place
 * when it is admitted (the indices of those changed are returned).
 */
export function checkRequest(states: QuotaState[], input: CheckInput, evaluator: Evaluator, limited: LimitedResource[]): CheckResult {
  const { object } = input;
  const limitedHere = limited.filter((l) => l.apiGroup === input.group && l.resource === input.resource);
  const limitedScopes = limitedHere.flatMap((l) => l.matchScopes.filter((s) => evaluator.scoped && evaluator.matchesScope(s, object)));
  let limitedNames: string[] = [];
  if (limitedHere.length) {
    const usage = evaluator.usage(object);
    for (const l of limitedHere) {
      for (const [k, v] of usage) if (quantitySign(v) > 0 && l.matchContains.some((m) => k.includes(m))) limitedNames.push(k);
    }
    limitedNames = [...new Set(limitedNames)];
  }

  const interesting: number[] = [];
  const restricted = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  for (let i = 0; i < states.length; i++) {
    const state = states[i];
    if (evaluator.scoped) restrictedScopes.push(...scopeSelectorsOf(state.quota).filter((s) => evaluator.matchesScope(s, object)));
    if (!quotaMatches(state, evaluator, object)) continue;
    const names = evaluator.matchingResources([...state.hard.keys()]);
    const why = evaluator.constraints?.(names, object);
    const name = state.quota.metadata?.name ?? '';
    if (why) return { ok: false, reason: `failed quota: ${name}: ${why}` };
    if (names.some((n) => state.hard.has(n) && !state.used.has(n))) {
      return { ok: false, reason: `status unknown for quota: ${name}, resources: ${[...names].sort().join(',')}` };
    }
    interesting.push(i);
    for (const n of names) restricted.add(n);
  }

  let delta = evaluator.usage(object);
  const negative = negativeNames(delta);
  if (negative.length) return { ok: false, reason: `quota usage is negative for resource(s): ${negative.sort().join(',')}` };
  if (input.operation === 'UPDATE' && input.oldObject?.metadata?.resourceVersion) {
    delta = subtractNonNegative(delta, evaluator.usage(input.oldObject));
  }
  delta = removeZeros(delta);
  if (!delta.size) return { ok: true, changed: [] };

  const uncovered = limitedNames.filter((n) => !restricted.has(n)).sort();
  if (uncovered.length) return { ok: false, reason: `insufficient quota to consume: ${uncovered.join(',')}` };
  const uncoveredScopes = limitedScopes.filter((s) => !restrictedScopes.some((r) => r.scopeName === s.scopeName));
  if (uncoveredScopes.length) return { ok: false, reason: `insufficient quota to match these scopes: ${goScopeList(uncoveredScopes)}` };

  // Check all first, then charge: a refusal leaves every quota as it was.
  const next = new Map<number, ResourceList>();
  for (const i of interesting) {
    const state = states[i];
    const requested = mask(delta, state.hard.keys());
    const newUsage = add(state.used, requested);
    const { allowed, exceeded } = lessThanOrEqual(mask(newUsage, requested.keys()), state.hard);
    if (!allowed) {
      return {
        ok: false,
        reason: `exceeded quota: ${state.quota.metadata?.name ?? ''}, requested: ${prettyPrint(mask(requested, exceeded))}, `
          + `used: ${prettyPrint(mask(state.used, exceeded))}, limited: ${prettyPrint(mask(state.hard, exceeded))}`,
      };
    }
    // A quota the request adds nothing to is not written (Kubernetes skips an unchanged used).
    if (requested.size) next.set(i, newUsage);
  }
  for (const [i, used] of next) states[i].used = used;
  return { ok: true, changed: [...next.keys()] };
}
