/**
 * MutatingAdmissionWebhook: the matching mutating webhooks, one after another in call order
 * (configuration name, then position), each seeing the object as the previous one left it.
 * A patch that changes the object asks the chain for a reinvocation round, in which only the
 * IfNeeded webhooks called before a later change are called again. failurePolicy decides what
 * a failed call means; a denial or a dry run refused ends the request. Each call is recorded in
 * the audit annotations `mutation.webhook.admission.<domain>/round_<r>_index_<i>` (and
 * `patch.webhook...` with the patch).
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { PluginDeps } from '../plugin-factory';
import { MatchConditionDeps, WebhookInvocation, ruleTargetOf, shouldCallHook } from './webhook-matcher';
import { WebhookCore } from './webhook-core';
import { ReinvocationState } from './reinvocation-state';
import { performance } from 'node:perf_hooks';
import { WebhookRejection, callHook, recordWebhookCall } from './call-hook';
import { CallingWebhookError, failClosed } from './webhook-errors';
import { applyWebhookPatch, decodePatch } from './apply-webhook-patch';
import { ServiceResolver } from './webhook-client';
import { errors } from '../../meta/api-errors';

export const MUTATING_PLUGIN = 'MutatingAdmissionWebhook';

export class MutatingWebhookPlugin implements AdmissionPlugin {
  readonly name = MUTATING_PLUGIN;
  readonly core: WebhookCore;
  private readonly conditions: MatchConditionDeps;
  private readonly prefix: { mutation: string; patch: string; failedOpen: string };

  constructor(private readonly deps: PluginDeps) {
    this.core = new WebhookCore(deps, 'mutatingwebhookconfigurations');
    this.conditions = this.core.matchConditionDeps('admit');
    const mutation = `mutation.webhook.admission.${deps.naming.domain}/`;
    this.prefix = { mutation, patch: `patch.webhook.admission.${deps.naming.domain}/`, failedOpen: `failed-open.${mutation}` };
  }

  start(): Promise<void> {
    return this.core.start();
  }

  stop(): Promise<void> {
    return this.core.stop();
  }

  /** Where service names lead (tests); the default is DNS. */
  setServiceResolver(resolver: ServiceResolver): void {
    this.core.setServiceResolver(resolver);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const rs = attrs.reinvocation;
    let state = rs?.state.get(MUTATING_PLUGIN) as ReinvocationState | undefined;
    const hooks = this.core.candidates(attrs);
    if (!hooks && !state) return;
    const reinvoking = !!rs?.isReinvoke;
    if (reinvoking && state?.changedSinceLastRound(attrs.object)) state.objectChanged();
    const target = ruleTargetOf(attrs);
    try {
      for (const hook of hooks ?? []) {
        const inv = await shouldCallHook(hook, attrs, target, this.core.equivalents, this.deps.namespaces, this.conditions);
        if (!inv) continue;
        if (reinvoking && !state?.shouldReinvoke(hook.uid)) continue;
        if (!state) {
          state = new ReinvocationState();
          rs?.state.set(MUTATING_PLUGIN, state);
        }
        await this.invoke(inv, attrs, reinvoking ? 1 : 0, state);
      }
    } finally {
      state?.recordOutput(attrs.object);
    }
  }

  /** One webhook: call, apply its patch, record it; failures per failurePolicy. */
  private async invoke(inv: WebhookInvocation, attrs: AdmissionAttributes, round: number, state: ReinvocationState): Promise<void> {
    const hook = inv.hook;
    const suffix = `round_${round}_index_${hook.order}`;
    let changed = false;
    let error: unknown;
    const started = performance.now();
    try {
      const response = await callHook(this.core.call, inv, attrs, attrs.operation === 'DELETE' ? undefined : attrs.object, true);
      if (response.patch?.length) {
        const ops = decodePatch(hook.name, response.patch);
        if (ops.length) {
          if (!attrs.object) {
            throw errors.internal(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
          }
          if (response.patchType !== 'JSONPatch') {
            throw new CallingWebhookError(hook.name, `unsupported patch type ${JSON.stringify(response.patchType)}`, 400);
          }
          const result = applyWebhookPatch(attrs.resource, attrs.object, ops, inv.kind);
          changed = result.changed;
          attrs.ctx.annotate?.(this.prefix.patch + suffix, JSON.stringify({
            configuration: hook.configurationName, webhook: hook.name, patch: ops.map(sortedKeys), patchType: 'JSONPatch',
          }), 'Request');
          attrs.object = result.object;
        }
      }
    } catch (err) {
      error = err;
    } finally {
      attrs.ctx.annotate?.(this.prefix.mutation + suffix, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }));
    }
    if (changed) {
      state.objectChanged();
      if (attrs.reinvocation) attrs.reinvocation.reinvoke = true;
    }
    if (hook.reinvocationPolicy === 'IfNeeded') state.invoked(hook.uid);
    const failOpen = error instanceof CallingWebhookError && hook.failurePolicy === 'Ignore';
    recordWebhookCall(this.deps.metrics, error, hook.name, attrs, 'admit', failOpen, started);
    if (error === undefined) return;
    if (error instanceof CallingWebhookError) {
      if (failOpen) {
        this.deps.log.warn('Failed calling webhook, failing open', { webhook: hook.name, error: error.message });
        attrs.ctx.annotate?.(this.prefix.failedOpen + suffix, hook.name);
        return;
      }
      this.deps.log.warn('Failed calling webhook, failing closed', { webhook: hook.name, error: error.message });
      throw failClosed(error);
    }
    if (error instanceof WebhookRejection) throw error.status;
    throw error;
  }
}

/** An operation as Kubernetes logs it: jsonpatch.Operation is a Go map, marshalled with its keys sorted. */
function sortedKeys(op: unknown): unknown {
  if (typeof op !== 'object' || op === null || Array.isArray(op)) return op;
  return Object.fromEntries(Object.entries(op).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
