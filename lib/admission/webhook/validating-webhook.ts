/**
 * ValidatingAdmissionWebhook: every matching validating webhook is called at once, with the
 * object as the mutating phase and the kind's validation left it; all must allow. The first
 * failure to arrive is the answer (as Kubernetes: the others are only logged). failurePolicy
 * Ignore lets a failed call pass, recorded as `failed-open.validating.webhook.admission.<domain>/...`.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { PluginDeps } from '../plugin-factory';
import { MatchConditionDeps, WebhookInvocation, ruleTargetOf, shouldCallHook } from './webhook-matcher';
import { WebhookCore } from './webhook-core';
import { performance } from 'node:perf_hooks';
import { WebhookRejection, callHook, recordWebhookCall } from './call-hook';
import { CallingWebhookError, failClosed } from './webhook-errors';
import { ServiceResolver } from './webhook-client';

export const VALIDATING_PLUGIN = 'ValidatingAdmissionWebhook';

export class ValidatingWebhookPlugin implements AdmissionPlugin {
  readonly name = VALIDATING_PLUGIN;
  readonly core: WebhookCore;
  private readonly conditions: MatchConditionDeps;
  private readonly failedOpenPrefix: string;

  constructor(private readonly deps: PluginDeps) {
    this.core = new WebhookCore(deps, 'validatingwebhookconfigurations');
    this.conditions = this.core.matchConditionDeps('validating');
    this.failedOpenPrefix = `failed-open.validating.webhook.admission.${deps.naming.domain}/`;
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

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const hooks = this.core.candidates(attrs);
    if (!hooks) return;
    const target = ruleTargetOf(attrs);
    const relevant: WebhookInvocation[] = [];
    for (const hook of hooks) {
      const inv = await shouldCallHook(hook, attrs, target, this.core.equivalents, this.deps.namespaces, this.conditions);
      if (inv) relevant.push(inv);
    }
    if (!relevant.length) return;
    const failures: Error[] = [];
    await Promise.all(relevant.map(async (inv, idx) => {
      const failure = await this.invoke(inv, attrs, idx);
      if (failure) failures.push(failure);
    }));
    if (failures.length > 1) {
      for (const other of failures.slice(1)) this.deps.log.warn('admission webhook rejection not reported', { error: other.message });
    }
    if (failures.length) throw failures[0];
  }

  /** One webhook's call; resolves with the error to answer, or undefined when it allowed (or failed open). */
  private async invoke(inv: WebhookInvocation, attrs: AdmissionAttributes, idx: number): Promise<Error | undefined> {
    const hook = inv.hook;
    const started = performance.now();
    try {
      await callHook(this.core.call, inv, attrs, attrs.object, false);
      recordWebhookCall(this.deps.metrics, undefined, hook.name, attrs, 'validating', false, started);
      return undefined;
    } catch (err) {
      const failOpen = err instanceof CallingWebhookError && hook.failurePolicy === 'Ignore';
      recordWebhookCall(this.deps.metrics, err, hook.name, attrs, 'validating', failOpen, started);
      if (err instanceof CallingWebhookError) {
        if (failOpen) {
          this.deps.log.warn('Failed calling webhook, failing open', { webhook: hook.name, error: err.message });
          attrs.ctx.annotate?.(`${this.failedOpenPrefix}round_0_index_${idx}`, hook.name);
          return undefined;
        }
        this.deps.log.warn('Failed calling webhook, failing closed', { webhook: hook.name, error: err.message });
        return failClosed(err);
      }
      if (err instanceof WebhookRejection) return err.status;
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}
