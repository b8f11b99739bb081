/**
 * Authentication and authorization metrics as kube-apiserver names them
 * (k8s.io/apiserver pkg/endpoints/filters/metrics.go and pkg/authorization/metrics):
 * authentication_attempts, authentication_duration_seconds, authenticated_user_requests,
 * authorization_attempts_total, authorization_duration_seconds and
 * apiserver_authorization_decisions_total. User names are never labels: they are compressed
 * as Kubernetes does (a handful of well-known names, `email_id`, or `other`).
 */
import { MetricsRegistry } from './registry';

/** ExponentialBuckets(0.001, 2, 15): 1 ms to ~16 s. */
const AUTH_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

/** Kubernetes' result of one authentication: success, failure (no credentials) or error (credentials refused). */
export type AuthenticationResult = 'success' | 'failure' | 'error';
/** Kubernetes' result of one authorization. */
export type AuthorizationResultLabel = 'allowed' | 'denied' | 'no-opinion' | 'error';

/** The user-name label: only names Kubernetes lists are kept, anything else is `email_id` or `other`. */
export function compressUsername(name: string): string {
  switch (name) {
    case 'admin': case 'client': case 'kube_proxy': case 'kubelet': case 'system:serviceaccount:kube-system:default':
      return name;
    default:
      return name.includes('@') ? 'email_id' : 'other';
  }
}

type Recorder = { inc(): void };
type Observer = { observe(v: number): void };

/** The authentication and authorization metrics of one server. */
export class AuthMetrics {
  private readonly authnAttempts = new Map<string, Recorder>();
  private readonly authnDuration = new Map<string, Observer>();
  private readonly users = new Map<string, Recorder>();
  private readonly authzAttempts = new Map<string, Recorder>();
  private readonly authzDuration = new Map<string, Observer>();
  private readonly decisions = new Map<string, Recorder>();
  private readonly userCounter;
  private readonly decisionCounter;

  constructor(registry: MetricsRegistry) {
    this.userCounter = registry.counter({
      name: 'authenticated_user_requests', labelNames: ['username'],
      help: 'Counter of authenticated requests broken out by username.',
    });
    const authnAttempts = registry.counter({
      name: 'authentication_attempts', labelNames: ['result'], help: 'Counter of authenticated attempts.',
    });
    const authnDuration = registry.histogram({
      name: 'authentication_duration_seconds', labelNames: ['result'], buckets: AUTH_BUCKETS,
      help: 'Authentication duration in seconds broken out by result.',
    });
    const authzAttempts = registry.counter({
      name: 'authorization_attempts_total', labelNames: ['result'],
      help: "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
    });
    const authzDuration = registry.histogram({
      name: 'authorization_duration_seconds', labelNames: ['result'], buckets: AUTH_BUCKETS,
      help: 'Authorization duration in seconds broken out by result.',
    });
    this.decisionCounter = registry.counter({
      name: 'apiserver_authorization_decisions_total', labelNames: ['type', 'name', 'decision'],
      help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    });
    // The label sets are few and known: made once.
    for (const r of ['success', 'failure', 'error'] as const) {
      this.authnAttempts.set(r, authnAttempts.labels(r));
      this.authnDuration.set(r, authnDuration.labels(r));
    }
    for (const r of ['allowed', 'denied', 'no-opinion', 'error'] as const) {
      this.authzAttempts.set(r, authzAttempts.labels(r));
      this.authzDuration.set(r, authzDuration.labels(r));
    }
  }

  /** One authentication: `user` is the authenticated name on success. */
  authentication(result: AuthenticationResult, seconds: number, user?: string): void {
    this.authnAttempts.get(result)!.inc();
    this.authnDuration.get(result)!.observe(seconds);
    if (result !== 'success' || user === undefined) return;
    const label = compressUsername(user);
    let c = this.users.get(label);
    if (!c) {
      c = this.userCounter.labels(label);
      this.users.set(label, c);
    }
    c.inc();
  }

  /** One authorization of a request by the whole chain. */
  authorization(result: AuthorizationResultLabel, seconds: number): void {
    this.authzAttempts.get(result)!.inc();
    this.authzDuration.get(result)!.observe(seconds);
  }

  /**
   * A terminal decision of one authorizer: `type` as configured (RBAC, Node, Webhook, ...), `name`
   * its name (Kubernetes names --authorization-mode entries by the lower-cased mode).
   */
  decision(type: string, name: string, decision: 'allowed' | 'denied'): void {
    const key = `${type}|${name}|${decision}`;
    let c = this.decisions.get(key);
    if (!c) {
      c = this.decisionCounter.labels(type, name, decision);
      this.decisions.set(key, c);
    }
    c.inc();
  }
}
