/**
 * A Webhook authorizer of --authorization-config (Kubernetes' WebhookAuthorizer with
 * StructuredAuthorizationConfiguration): lib/authz's Webhook mode (SubjectAccessReview calls,
 * cache by TTL) behind the entry's CEL matchConditions over `request` (the review's spec as
 * matchConditionSubjectAccessReviewVersion v1 has it): any false and the webhook is not asked (no
 * opinion); an evaluation error, like a failed call, answers the entry's failurePolicy (NoOpinion
 * or Deny, with the error). The matchCondition metrics are kube's
 * apiserver_authorization_match_condition_{evaluation_errors_total,exclusions_total,evaluation_seconds}{type,name}.
 */
import { performance } from 'node:perf_hooks';
import { CelCostBudget } from '../cel';
import { KubeconfigClient, readKubeconfig } from '../authn/kubeconfig-client';
import type { MetricsRegistry } from '../metrics/registry';
import type { Naming } from '../naming';
import { AuthorizationAttributes } from './attributes';
import { AuthorizationResult, Authorizer, RuleResolver, RulesResult, aggregateMessage } from './authorizer';
import { AuthorizerConfig, AuthorizerWebhookConfig } from './authorization-config';
import { WebhookAuthorizer } from './webhook-authorizer';

/** Kubernetes' runtime budget of an authorization webhook's match conditions (celconfig.RuntimeCELCostBudget). */
const MATCH_CONDITIONS_BUDGET = 10_000_000;

type Counter = { labels(...v: string[]): { inc(): void } };
type Histogram = { labels(...v: string[]): { observe(v: number): void } };

/** kube's match-condition metrics of authorization webhooks, registered once per registry. */
export class AuthorizationMatchMetrics {
  private static readonly byRegistry = new WeakMap<MetricsRegistry, AuthorizationMatchMetrics>();
  readonly errors: Counter;
  readonly exclusions: Counter;
  readonly seconds: Histogram;

  private constructor(registry: MetricsRegistry) {
    this.errors = registry.counter({
      name: 'apiserver_authorization_match_condition_evaluation_errors_total', labelNames: ['type', 'name'],
      help: 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    });
    this.exclusions = registry.counter({
      name: 'apiserver_authorization_match_condition_exclusions_total', labelNames: ['type', 'name'],
      help: 'Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.',
    });
    this.seconds = registry.histogram({
      name: 'apiserver_authorization_match_condition_evaluation_seconds', labelNames: ['type', 'name'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
      help: 'Authorization match condition evaluation time in seconds, split by authorizer type and name.',
    });
  }

  static of(registry: MetricsRegistry): AuthorizationMatchMetrics {
    let m = AuthorizationMatchMetrics.byRegistry.get(registry);
    if (!m) AuthorizationMatchMetrics.byRegistry.set(registry, (m = new AuthorizationMatchMetrics(registry)));
    return m;
  }
}

/** The SubjectAccessReview spec (v1) as `request` sees it: every string present, empty when unset. */
export function reviewSpecOf(a: AuthorizationAttributes): Record<string, unknown> {
  const spec: Record<string, unknown> = a.isResourceRequest
    ? { resourceAttributes: { namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name } }
    : { nonResourceAttributes: { path: a.path, verb: a.verb } };
  return { ...spec, user: a.user.name, groups: a.user.groups ?? [], extra: a.user.extra ?? {}, uid: a.user.uid ?? '' };
}

export class ConfigWebhookAuthorizer implements Authorizer, RuleResolver {
  constructor(private readonly name: string, private readonly cfg: AuthorizerWebhookConfig,
    private readonly inner: Authorizer & RuleResolver & { close(): void }, private readonly metrics?: AuthorizationMatchMetrics) {}

  authorize(a: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    if (!this.cfg.matchConditions.length) return this.ask(a);
    return this.matches(a).then((m) => {
      if (m === true) return this.ask(a);
      if (m === false) return { decision: 'no-opinion', reason: '' } as AuthorizationResult;
      return this.onError(m.error);
    });
  }

  rulesFor(): RulesResult | Promise<RulesResult> {
    return this.inner.rulesFor({ name: '', groups: [] }, '');
  }

  close(): void {
    this.inner.close();
  }

  private onError(error: string): AuthorizationResult {
    return { decision: this.cfg.failurePolicy === 'Deny' ? 'deny' : 'no-opinion', reason: '', error };
  }

  private ask(a: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    const apply = (r: AuthorizationResult): AuthorizationResult => (r.error && r.decision === 'no-opinion' ? this.onError(r.error) : r);
    const r = this.inner.authorize(a);
    return r instanceof Promise ? r.then(apply) : apply(r);
  }

  /** All conditions true; any false; or the errors (kube: errors decide only when none is false). */
  private async matches(a: AuthorizationAttributes): Promise<boolean | { error: string }> {
    const started = performance.now();
    const request = reviewSpecOf(a);
    const budget = new CelCostBudget(MATCH_CONDITIONS_BUDGET);
    const errors: string[] = [];
    try {
      for (const c of this.cfg.matchConditions) {
        const out = await c.program.evaluateAsync({ request }, budget);
        if (out.ok && out.value === false) {
          this.metrics?.exclusions.labels('Webhook', this.name).inc();
          return false;
        }
        if (!out.ok || out.value !== true) {
          this.metrics?.errors.labels('Webhook', this.name).inc();
          errors.push(`cel evaluation error: expression '${c.expression}' resulted in error: ${out.ok ? 'no such overload' : out.error}`);
        }
      }
    } finally {
      this.metrics?.seconds.labels('Webhook', this.name).observe((performance.now() - started) / 1000);
    }
    return errors.length ? { error: aggregateMessage(errors) } : true;
  }
}

/** The authorizer of one Webhook entry; the kubeconfig is read now (a bad one fails the start or the reload). */
export function configWebhookAuthorizer(entry: AuthorizerConfig, naming: Naming, log: (m: string) => void,
  metrics?: MetricsRegistry): ConfigWebhookAuthorizer {
  const w = entry.webhook!;
  if (w.connectionInfo.type !== 'KubeConfigFile') {
    throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  }
  const client = new KubeconfigClient(readKubeconfig(w.connectionInfo.kubeConfigFile, '--authorization-config'));
  const inner = new WebhookAuthorizer({
    client, apiVersion: `${naming.group('authorization')}/${w.subjectAccessReviewVersion}`,
    authorizedTtlMs: w.authorizedTtlMs, unauthorizedTtlMs: w.unauthorizedTtlMs, timeoutMs: w.timeoutMs, log,
  });
  return new ConfigWebhookAuthorizer(entry.name, w, inner, metrics ? AuthorizationMatchMetrics.of(metrics) : undefined);
}
