/**
 * Evaluating a webhook's CEL matchConditions for one request, after its rules and selectors
 * matched (Kubernetes' webhook/matchconditions/matcher.go): the conditions are compiled once when
 * the configuration is read (compiled-webhook.ts); per request all are evaluated with `object`, `oldObject`,
 * `namespaceObject` (null for webhooks), `request` (the AdmissionRequest without the objects) and
 * `authorizer` (the request's user, with `authorizer.requestResource`), sharing one runtime cost
 * budget. Any false: the webhook is skipped. Otherwise an error decides by failurePolicy: Fail
 * refuses the request (403, the errors aggregated), Ignore skips the webhook. All true: it is
 * called. The match-condition metrics are recorded here.
 */
import { performance } from 'node:perf_hooks';
import { CelAuthorizeFn, CelCostBudget, celAuthorizer } from '../../cel';
import { AdmissionAttributes, userOf } from '../../registry/admission-attributes';
import { aggregateMessage } from '../../authz/authorizer';
import { AdmissionMetrics, MatchConditionLabels } from '../metrics';
import type { ApiObject } from '../../scheme/types';
import type { CompiledWebhook } from './compiled-webhook';

/** Kubernetes' RuntimeCELCostBudgetMatchConditions: the budget of all of one webhook's conditions. */
export const MATCH_CONDITIONS_COST_BUDGET = 7_000_000;

export type MatchResult = { matches: boolean } | { error: string };

type Obj = Record<string, unknown>;
interface GVK { group: string; version: string; kind: string }

/** The webhook and the kind and resource it is called for (webhook-matcher's WebhookInvocation). */
export interface MatchInvocation {
  hook: CompiledWebhook;
  kind: GVK;
  resource: { group: string; version: string; resource: string };
  subresource: string;
}

/** The object as the invocation's version sees it (as the AdmissionReview carries it). */
function versioned(obj: ApiObject | undefined, gvk: GVK): ApiObject | null {
  if (!obj) return null;
  return { ...obj, kind: gvk.kind, apiVersion: gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version };
}

/** The AdmissionRequest as the `request` variable sees it (Kubernetes' CreateAdmissionRequest; no objects). */
export function admissionRequestOf(attrs: AdmissionAttributes, inv: MatchInvocation): Obj {
  const user = userOf(attrs);
  const r = attrs.resource;
  const isNamespace = r.group === '' && r.resource === 'namespaces';
  const namespace = isNamespace ? (attrs.operation === 'CREATE' ? '' : attrs.name) : (attrs.namespace ?? '');
  return {
    uid: '',
    kind: inv.kind,
    resource: inv.resource,
    subResource: inv.subresource,
    requestKind: { group: r.group, version: r.version, kind: inv.kind.kind },
    requestResource: { group: r.group, version: r.version, resource: r.resource },
    requestSubResource: attrs.subresource ?? '',
    name: attrs.name ?? '',
    namespace,
    operation: attrs.operation,
    userInfo: { username: user.name, uid: user.uid ?? '', groups: user.groups ?? [], extra: user.extra ?? {} },
    dryRun: attrs.dryRun,
  };
}

/** Runs the conditions of `inv.hook` for the request (see the module comment). */
export async function evaluateMatchConditions(inv: MatchInvocation, attrs: AdmissionAttributes,
  authorize: CelAuthorizeFn, metrics: AdmissionMetrics, type: 'admit' | 'validating'): Promise<MatchResult> {
  const hook: CompiledWebhook = inv.hook;
  const labels: MatchConditionLabels = { name: hook.name, kind: 'webhook', type, operation: attrs.operation };
  const started = performance.now();
  const budget = new CelCostBudget(MATCH_CONDITIONS_COST_BUDGET);
  const r = attrs.resource;
  const activation = {
    object: versioned(attrs.object, inv.kind),
    oldObject: versioned(attrs.oldObject, inv.kind),
    namespaceObject: null,
    request: admissionRequestOf(attrs, inv),
    authorizer: celAuthorizer(authorize, userOf(attrs), {
      group: r.group, resource: r.resource, subresource: attrs.subresource ?? '',
      namespace: attrs.namespace ?? '', name: attrs.name ?? '',
    }),
  };
  const errors: string[] = [];
  let excluded = false;
  try {
    for (const c of hook.matchConditions) {
      let error: string | undefined;
      if (!c.program) error = `compilation error: ${c.compileError ?? 'unknown'}`;
      else {
        const out = await c.program.evaluateAsync(activation, budget);
        if (!out.ok) {
          error = out.reason === 'cost'
            ? 'validation failed due to running out of cost budget, no further validation rules will be run'
            : `expression '${c.program.expression}' resulted in error: ${out.error}`;
        } else if (out.value === false) {
          excluded = true;
          break;
        } else if (out.value !== true) {
          error = `expression '${c.program.expression}' resulted in error: no such overload`;
        }
      }
      if (error) {
        errors.push(error);
        metrics.matchConditionError(labels);
        if (error.startsWith('validation failed due to running out of cost budget')) break;
      }
    }
  } finally {
    metrics.observeMatchConditionEvaluation(labels, (performance.now() - started) / 1000);
  }
  if (excluded) {
    metrics.matchConditionExclusion(labels);
    return { matches: false };
  }
  if (errors.length) {
    if (hook.failurePolicy === 'Ignore') {
      metrics.matchConditionExclusion(labels);
      return { matches: false };
    }
    return { error: aggregateMessage(errors) };
  }
  return { matches: true };
}
