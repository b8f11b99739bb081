/**
 * The `webhook` audit backend (--audit-webhook-config-file): each batch of events POSTed as one
 * `EventList` to the service a kubeconfig-format file names (CA, client certificate, token, as
 * the other webhooks of this server). As kube-apiserver's audit webhook, any failure is retried
 * (5 attempts, the first delay --audit-webhook-initial-backoff, x1.5, 20% jitter, 30 s per call);
 * a batch that still fails is counted in apiserver_audit_error_total{plugin="webhook"} and logged
 * (how many events and why, never their contents). In batch mode (the default) the backend sits
 * behind a BufferedBackend; in the blocking modes each event is sent on its own as it comes,
 * without the buffer, still never holding the request (this server's backends never block).
 */
import type { ServerConfig } from '../config';
import { namingFor } from '../naming';
import { KubeconfigClient, readKubeconfig } from '../authn/kubeconfig-client';
import type { WebhookPoster, Backoff } from '../authn/webhook-call';
import type { AuditBackend, AuditEvent } from './types';
import { AsyncAuditBackend, BufferedBackend } from './buffered-backend';
import { batchConfigFrom } from './batch-options';

/** kube's audit webhook call limit (pkg/util/webhook defaultRequestTimeout). */
export const AUDIT_WEBHOOK_TIMEOUT_MS = 30_000;

/** kube's retry backoff for the audit webhook from its initial delay. */
export function auditWebhookBackoff(initialMs: number): Backoff {
  return { initialMs, factor: 1.5, jitter: 0.2, steps: 5 };
}

export interface WebhookBackendOptions {
  /** The EventList's apiVersion (`audit.<domain>/v1`). */
  apiVersion: string;
  backoff: Backoff;
  timeoutMs?: number;
  metrics: { errors(plugin: string, count: number): void };
  log: { warn(msg: string, meta?: Record<string, unknown>): void };
  /** How long shutdown() waits for calls under way before abandoning them (default 10 s). */
  shutdownGraceMs?: number;
}

/** Sends batches to the webhook; sendBatch never rejects. */
export class WebhookBackend implements AsyncAuditBackend {
  readonly name = 'webhook';
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stop = new AbortController();

  constructor(private readonly client: WebhookPoster, private readonly opts: WebhookBackendOptions) {}

  processEvents(events: AuditEvent[]): void {
    if (!events.length) return;
    const p = this.sendBatch(events);
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  async sendBatch(events: AuditEvent[]): Promise<void> {
    if (!events.length) return;
    // Items of a typed list carry no kind/apiVersion of their own, as kube's encoding of EventList.
    const items = events.map(({ kind: _k, apiVersion: _v, ...rest }) => rest);
    const body = Buffer.from(JSON.stringify({ kind: 'EventList', apiVersion: this.opts.apiVersion, metadata: {}, items }));
    const failure = await this.post(body);
    if (failure === undefined) return;
    this.opts.metrics.errors(this.name, events.length);
    this.opts.log.warn(`Error in audit plugin '${this.name}' affecting ${events.length} audit events: ${failure}`,
      { plugin: this.name, events: events.length, webhook: this.client.url });
  }

  /** Waits a bounded time for calls under way, then abandons them (counted as failed) and closes. */
  async shutdown(): Promise<void> {
    const grace = this.opts.shutdownGraceMs ?? 10_000;
    if (this.inFlight.size && grace > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => { timer = setTimeout(r, grace); })]);
      clearTimeout(timer);
    }
    this.stop.abort();
    this.client.close();
  }

  /** undefined once the webhook took the body (2xx); otherwise why it finally failed. */
  private async post(body: Buffer): Promise<string | undefined> {
    const { backoff } = this.opts;
    const timeoutMs = this.opts.timeoutMs ?? AUDIT_WEBHOOK_TIMEOUT_MS;
    let delay = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const reply = await this.client.post(body, timeoutMs);
        if (reply.status >= 200 && reply.status < 300) return undefined;
        failure = `the webhook answered HTTP ${reply.status}`;
      } catch (err) {
        failure = `the call failed: ${(err as Error).message}`;
      }
      // Every failure is worth another try: a lost audit batch is worse than a late one.
      if (attempt >= backoff.steps || this.stop.signal.aborted) return attempt > 1 ? `${failure} (${attempt} attempts)` : failure;
      if (!await this.sleep(delay * (1 + Math.random() * backoff.jitter))) return `${failure} (shut down while retrying)`;
      delay *= backoff.factor;
    }
  }

  /** false when shutdown interrupted the wait. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.stop.signal.aborted) return resolve(false);
      const onAbort = () => { clearTimeout(timer); resolve(false); };
      const timer = setTimeout(() => { this.stop.signal.removeEventListener('abort', onAbort); resolve(true); }, ms);
      this.stop.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * The webhook backend of the flags, or undefined without --audit-webhook-config-file: the
 * kubeconfig read now (a bad file throws an Error with a one-line message naming the flag),
 * wrapped in a BufferedBackend in batch mode.
 */
export function webhookBackendFromFlags(config: ServerConfig, deps: {
  metrics: { errors(plugin: string, count: number): void };
  log: { warn(msg: string, meta?: Record<string, unknown>): void };
}): AuditBackend | undefined {
  if (!config.auditWebhookConfigFile) return undefined;
  const client = new KubeconfigClient(readKubeconfig(config.auditWebhookConfigFile, '--audit-webhook-config-file'));
  const batch = config.auditWebhookMode === 'batch';
  const webhook = new WebhookBackend(client, {
    apiVersion: `${namingFor(config.flavor).group('audit')}/v1`,
    backoff: auditWebhookBackoff(config.auditWebhookInitialBackoffMs),
    metrics: deps.metrics,
    log: deps.log,
    // Behind the buffer, the buffer's shutdown already waited for the calls under way.
    shutdownGraceMs: batch ? 0 : 10_000,
  });
  if (!batch) return webhook;
  return new BufferedBackend(webhook, { ...batchConfigFrom(config, 'webhook'), metrics: deps.metrics, log: deps.log });
}
