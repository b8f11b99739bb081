/**
 * GET /metrics/slis: the health checks' service-level indicators, as every Kubernetes component
 * serves them (component-base's slis package, on by default since 1.27): a separate registry of
 *   kubernetes_healthcheck{name,type}                 1 when the check's last run passed, else 0
 *   kubernetes_healthchecks_total{name,type,status}   runs by outcome, status "success" or "error"
 *   process_start_time_seconds
 * Each whole-endpoint health request (/healthz, /livez, /readyz) records every check it ran, with
 * `type` the endpoint; excluded checks and single-check paths record nothing, as kube-apiserver.
 *
 * With --workers a probe reaches any worker, so the indicators live in the primary: workers send
 * it their outcomes and ask it for the text (SliMetricsServer), and every scrape sees the whole
 * server.
 */
import type { Worker } from 'node:cluster';
import client from 'prom-client';
import type { HealthEndpoint } from '../health';
import { answerWorker, callPrimary, isMessage } from '../../ipc';
import { CounterMetric } from '../../metrics/fast';
import type { MetricsSource } from '../../metrics/metrics-route';
import { MetricsRegistry } from '../../metrics/registry';

/** Where health outcomes go (HealthChecks' `observe`). */
export interface HealthcheckObserver {
  observe(name: string, type: HealthEndpoint, ok: boolean): void;
}

/** The registry itself: in a single-process server, or in the primary of --workers. */
export class HealthcheckSlis implements HealthcheckObserver, MetricsSource {
  private readonly metrics: MetricsRegistry;
  private readonly healthcheck: client.Gauge<'name' | 'type'>;
  private readonly total: CounterMetric<'name' | 'type' | 'status'>;

  constructor(opts: { enabled?: boolean; startTimeSeconds?: number } = {}) {
    this.metrics = new MetricsRegistry({ enabled: opts.enabled ?? true });
    this.healthcheck = this.metrics.gauge({
      name: 'kubernetes_healthcheck', help: 'This metric records the result of a single healthcheck.',
      labelNames: ['name', 'type'], stability: 'STABLE',
    });
    this.total = this.metrics.counter({
      name: 'kubernetes_healthchecks_total', help: 'This metric records the results of all healthcheck.',
      labelNames: ['name', 'type', 'status'], stability: 'STABLE',
    });
    const start = opts.startTimeSeconds ?? Math.floor(Date.now() / 1000 - process.uptime());
    this.metrics.gauge({ name: 'process_start_time_seconds', help: 'Start time of the process since unix epoch in seconds.' }).set(start);
  }

  observe(name: string, type: HealthEndpoint, ok: boolean): void {
    this.healthcheck.set({ name, type }, ok ? 1 : 0);
    this.total.inc({ name, type, status: ok ? 'success' : 'error' });
  }

  render(): Promise<string> {
    return this.metrics.render();
  }

  get contentType(): string {
    return this.metrics.contentType;
  }
}

interface ObservedMessage { type: 'orch-healthcheck'; name: string; endpoint: HealthEndpoint; ok: boolean }
const RENDER = 'cluster-slis';
/** As cluster-metrics' wait for the primary. */
const REPLY_TIMEOUT_MS = 8_000;

/** In a worker of --workers: outcomes go to the primary, and /metrics/slis is the primary's text. */
export class WorkerSlis implements HealthcheckObserver, MetricsSource {
  readonly contentType = client.Registry.PROMETHEUS_CONTENT_TYPE;

  observe(name: string, endpoint: HealthEndpoint, ok: boolean): void {
    if (!process.connected || !process.send) return;
    process.send({ type: 'orch-healthcheck', name, endpoint, ok } satisfies ObservedMessage, undefined, undefined, () => undefined);
  }

  render(): Promise<string> {
    return callPrimary<string>(RENDER, undefined, REPLY_TIMEOUT_MS);
  }
}

/** In the primary of --workers: keeps the indicators for every worker. */
export class SliMetricsServer {
  readonly slis = new HealthcheckSlis();

  attach(worker: Worker): void {
    worker.on('message', (m: unknown) => {
      if (isMessage<ObservedMessage>(m, 'orch-healthcheck')) this.slis.observe(m.name, m.endpoint, m.ok);
    });
    answerWorker<undefined, string>(worker, RENDER, () => this.slis.render());
  }
}
