/**
 * What the PodSecurity plugin's pod and namespace parts share: the configuration, the evaluator,
 * the flavor's label and annotation names, and small readers of Pod and Namespace JSON.
 */
import { ApiObject } from '../../scheme/types';
import { FieldError, formatFieldError } from '../../meta/field-errors';
import { aggregateMessage } from '../../authz/authorizer';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { Obj, PodView, obj, str } from './check';
import { PodSecurityConfig } from './config';
import { Evaluator } from './evaluator';
import { Policy, PolicyLabels, policyLabels, policyToEvaluate } from './levels';

export class PolicyContext {
  readonly evaluator: Evaluator;
  readonly labels: PolicyLabels;
  /** `pod-security.<labelDomain>/`: the prefix of the plugin's audit annotations. */
  readonly annotationPrefix: string;

  constructor(readonly config: PodSecurityConfig, labelDomain: string) {
    this.evaluator = new Evaluator(labelDomain);
    this.labels = policyLabels(labelDomain);
    this.annotationPrefix = `pod-security.${labelDomain}/`;
  }

  /** The namespace's policy over the configured defaults, with its label errors. */
  policyOf(namespace: ApiObject | undefined): { policy: Policy; errors: FieldError[] } {
    return policyToEvaluate(stringMap(namespace?.metadata?.labels), this.config.defaults, this.labels);
  }

  exemptNamespace(name: string | undefined): boolean {
    return !!name && this.config.exemptions.namespaces.includes(name);
  }

  exemptUser(name: string | undefined): boolean {
    return !!name && this.config.exemptions.usernames.includes(name);
  }

  exemptRuntimeClass(spec: Obj): boolean {
    const rc = str(spec.runtimeClassName);
    return !!rc && this.config.exemptions.runtimeClasses.includes(rc);
  }

  /** Records `pod-security.<labelDomain>/<key>` on the request's audit event. */
  annotate(attrs: AdmissionAttributes, key: string, value: string): void {
    attrs.ctx.annotate?.(this.annotationPrefix + key, value);
  }
}

/** Go's aggregate of field errors: one message, or `[a, b]`. */
export function fieldErrorsMessage(errs: readonly FieldError[]): string {
  return aggregateMessage(errs.map(formatFieldError));
}

/** The string entries of a labels or annotations map (anything else is ignored). */
export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(obj(v) ?? {})) if (typeof val === 'string') out[k] = val;
  return out;
}

/** What the checks read of a Pod. */
export function podView(pod: ApiObject): PodView {
  return { annotations: stringMap(pod.metadata?.annotations), spec: obj(pod.spec) ?? {} };
}
