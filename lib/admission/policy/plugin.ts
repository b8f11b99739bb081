/**
 * The ValidatingAdmissionPolicy admission plugin (validating phase, Kubernetes' order and 1.32's
 * default set): for every binding, in name order, whose policy exists and whose policy's
 * matchConstraints and own matchResources select the request, the policy is evaluated once per
 * parameter object (params.ts, evaluate.ts). Each failed validation is enforced by the binding's
 * validationActions: Deny refuses the request (the first denial answers: "ValidatingAdmissionPolicy
 * 'p' with binding 'b' denied request: <message>", its reason deciding the code), Warn adds a
 * `Warning` header, Audit records the `validation.policy.admission.<domain>/validation_failure`
 * audit annotation (the request's first audited failure, as Kubernetes keeps it). The policy's
 * auditAnnotations are recorded as `<policy>/<key>`, distinct values of several bindings joined.
 *
 * AUTHORIZER_HOOK: `authorizerFor` builds the CEL `authorizer` value of a request. It is unset here
 * (expressions see `authorizer` as null); the authorizer library (lib/cel/authz.ts) sets it when it
 * is wired in, and evaluation then awaits its callouts.
 */
import { performance } from 'node:perf_hooks';
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, StatusReason } from '../../meta/api-errors';

import { PluginDeps } from '../plugin-factory';
import { EquivalentResources, followEquivalents, ruleTargetOf } from '../webhook/webhook-matcher';
import { isExemptConfigurationKind } from '../webhook/rules';
import { CompiledBinding, CompiledPolicy } from './compiled-policy';
import { PolicySource } from './policy-source';
import { matchesRequest, namespaceObjectGetter } from './match';
import { collectParams } from './params';
import { Evaluator, PolicyDecision, evaluatePolicy } from './evaluate';
import { celRequest } from './request';
import { toCel } from '../../cel';
import { EnforcementAction, PolicyErrorType, PolicyMetrics } from './metrics';

export const POLICY_PLUGIN = 'ValidatingAdmissionPolicy';

/** The authorizer value of a request's activation (AUTHORIZER_HOOK). */
export type AuthorizerFor = (attrs: AdmissionAttributes) => unknown;

const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, RequestEntityTooLarge: 413, Invalid: 422 };

interface Denial { policy: string; binding: string; message: string; reason: string }
interface AuditFailure { message: string; policy: string; binding: string; expressionIndex: number; validationActions: string[] }

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = POLICY_PLUGIN;
  readonly source: PolicySource;
  /** AUTHORIZER_HOOK: set by the server when the authorizer library is available. */
  authorizerFor?: AuthorizerFor;
  private equivalents: EquivalentResources = { equivalents: () => [] };
  private unsubscribe?: () => void;
  private readonly configGroup: string;
  private readonly metrics: PolicyMetrics;
  private readonly auditKey: string;

  constructor(private readonly deps: PluginDeps) {
    this.source = new PolicySource(deps);
    this.configGroup = deps.naming.group('admissionregistration');
    this.metrics = new PolicyMetrics(deps.metrics.registry);
    this.auditKey = `validation.policy.admission.${deps.naming.domain}/validation_failure`;
  }

  async start(): Promise<void> {
    this.unsubscribe = followEquivalents(this.deps, (e) => { this.equivalents = e; });
    await this.source.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.source.stop();
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const bindings = this.source.bindings();
    if (!bindings.length) return;
    const r = attrs.resource;
    if (r.group === this.configGroup && isExemptConfigurationKind(r.group, r.kind, this.configGroup)) return;
    const target = ruleTargetOf(attrs);
    const namespaceObject = namespaceObjectGetter(attrs, target, this.deps.namespaces);
    const denials: Denial[] = [];
    const audits: AuditFailure[] = [];
    /** Per policy, per key: the values of its auditAnnotations over every binding and param. */
    const annotations = new Map<string, Map<string, string[]>>();
    let base: Record<string, unknown> | undefined;
    for (const binding of bindings) {
      const policy = this.source.policies.get(binding.policyName);
      if (!policy) continue;
      if (!await matchesRequest(policy.match, attrs, target, this.equivalents, namespaceObject)) continue;
      if (binding.match && !await matchesRequest(binding.match, attrs, target, this.equivalents, namespaceObject)) continue;
      base ??= await this.activation(attrs, namespaceObject);
      await this.evaluateBinding(attrs, policy, binding, base, target.namespace, denials, audits, annotations);
    }
    // As Kubernetes: one value per key, distinct values sorted and joined by ", ".
    for (const [policyName, byKey] of annotations) {
      for (const [key, values] of byKey) {
        const value = values.length === 1 ? values[0] : [...new Set(values)].sort().join(', ');
        attrs.ctx.annotate?.(`${policyName}/${key}`, value);
      }
    }
    // Kubernetes publishes each failure as a one-item list under one key, and the first one stays.
    if (audits.length) attrs.ctx.annotate?.(this.auditKey, JSON.stringify([audits[0]]));
    if (denials.length) throw this.denialError(attrs, denials[0]);
  }

  private async activation(attrs: AdmissionAttributes, namespaceObject: () => Promise<unknown>): Promise<Record<string, unknown>> {
    // Converted to CEL values once here, not again by each expression the request meets.
    const activation: Record<string, unknown> = {
      object: toCel(attrs.operation === 'DELETE' ? null : attrs.object),
      oldObject: toCel(attrs.oldObject),
      request: toCel(celRequest(attrs, this.deps.naming.metaGroup)),
      namespaceObject: toCel(await namespaceObject()),
      authorizer: null,
    };
    if (this.authorizerFor) activation.authorizer = this.authorizerFor(attrs);
    return activation;
  }

  private evaluator(): Evaluator {
    return this.authorizerFor
      ? (program, activation, budget) => program.evaluateAsync(activation, budget)
      : (program, activation, budget) => program.evaluate(activation, budget);
  }

  private async evaluateBinding(attrs: AdmissionAttributes, policy: CompiledPolicy, binding: CompiledBinding, base: Record<string, unknown>,
    namespace: string, denials: Denial[], audits: AuditFailure[], annotations: Map<string, Map<string, string[]>>): Promise<void> {
    const started = performance.now();
    const observe = (action: EnforcementAction, errorType: PolicyErrorType) =>
      this.metrics.observe(policy.name, binding.name, action, errorType, (performance.now() - started) / 1000);
    const collected = await collectParams(this.deps.stores, policy, binding, namespace);
    if ('configError' in collected) {
      if (policy.failurePolicy === 'Fail') {
        denials.push({ policy: policy.name, binding: binding.name, message: `failed to configure binding: ${collected.configError}`, reason: 'Invalid' });
        observe('deny', 'invalid_error');
      }
      return;
    }
    const evaluate = this.evaluator();
    let action: EnforcementAction = 'allow';
    let errorType: PolicyErrorType = 'no_error';
    for (const param of collected.params) {
      const activation = policy.paramKind ? { ...base, params: param } : base;
      const result = await evaluatePolicy(policy, activation, evaluate);
      if (!result.applies && !result.denials.length) continue;
      for (const [key, value] of result.auditAnnotations) {
        let byKey = annotations.get(policy.name);
        if (!byKey) annotations.set(policy.name, (byKey = new Map()));
        byKey.set(key, [...(byKey.get(key) ?? []), value]);
      }
      for (const d of result.denials) {
        if (d.error) errorType = d.compileError ? 'compile_error' : 'invalid_error';
        action = this.enforce(attrs, policy, binding, d, denials, audits) ?? action;
      }
    }
    observe(action, errorType);
  }

  /** Applies the binding's validationActions to one failed validation; the strongest action taken. */
  private enforce(attrs: AdmissionAttributes, policy: CompiledPolicy, binding: CompiledBinding, d: PolicyDecision,
    denials: Denial[], audits: AuditFailure[]): EnforcementAction | undefined {
    let taken: EnforcementAction | undefined;
    for (const a of binding.validationActions) {
      if (a === 'Deny') {
        denials.push({ policy: policy.name, binding: binding.name, message: d.message, reason: d.reason });
        taken = 'deny';
      } else if (a === 'Warn') {
        attrs.ctx.warn?.(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${d.message}`);
        taken ??= 'warn';
      } else if (a === 'Audit') {
        audits.push({ message: d.message, policy: policy.name, binding: binding.name, expressionIndex: d.expressionIndex, validationActions: binding.validationActions });
        taken ??= 'audit';
      }
    }
    return taken;
  }

  /** admission.NewForbidden with the denial's reason and code, and the message as a cause. */
  private denialError(attrs: AdmissionAttributes, d: Denial): ApiError {
    const message = `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
    const r = attrs.resource;
    const name = attrs.object?.metadata?.name || attrs.object?.metadata?.generateName || attrs.name || 'Unknown';
    const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
    const reason = (REASON_CODES[d.reason] ? d.reason : 'Invalid') as StatusReason;
    return new ApiError(REASON_CODES[reason], reason, `${qualified} "${name}" is forbidden: ${message}`, {
      name, ...(r.group ? { group: r.group } : {}), kind: r.resource, causes: [{ message }],
    });
  }
}
