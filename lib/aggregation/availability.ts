/**
 * The APIService availability controller: kube-aggregator 1.32's local and remote
 * AvailableConditionControllers (pkg/controllers/status/local and /remote) in one queue.
 *  - A local APIService (no service) is Available: True, reason Local, "Local APIServices are
 *    always available".
 *  - A remote one is checked as kube checks it: the Service must exist (ServiceNotFound); a
 *    ClusterIP Service must have the APIService's port (ServicePortError) and Endpoints with an
 *    address for that port's name (EndpointsNotFound, MissingEndpoints), whatever
 *    --enable-aggregator-routing says; then `GET /apis/<group>/<version>` (`/api/v1` for `v1.`) is
 *    sent to the resolved backend five times at once, without verifying its certificate, with the
 *    front-proxy client certificate and the identity system:kube-aggregator in system:masters,
 *    each with a 5 s timeout; one 2xx answer passes (Passed, "all checks passed"), otherwise
 *    FailedDiscoveryCheck with the last failure in Go's words (a 401 or 403 is a failure too).
 *  - The condition is written through /status only when the status changes; its
 *    lastTransitionTime changes only with its status (SetAPIServiceCondition).
 *  - Rechecked on every change of the APIService and of the Service and Endpoints it names, every
 *    30 s (the informer resync; `setResyncPeriod` shortens it for tests), and after a failed check
 *    with the work queue's backoff (5 ms doubling to 30 s).
 *  - Metrics: `aggregator_unavailable_apiservice` (gauge by name, 1 when not Available, set at
 *    every sync, removed with the APIService) and `aggregator_unavailable_apiservice_total`
 *    (counter by name and reason, when an APIService becomes unavailable).
 * Runs where `primaryDuties` is set; every process reads the conditions from the cache.
 */
import type { Gauge } from 'prom-client';
import type { GenericStore } from '../registry/store';
import { ResourceFeed } from '../registry/resource-feed';
import { storeKey } from '../registry/store-index';
import type { ApiObject } from '../scheme/types';
import { WorkQueue } from '../controllers/work-queue';
import type { CounterMetric } from '../metrics/fast';
import type { AggregationContext } from './context';
import {
  apiServicesStoreKey, availableCondition, isAvailable, isLocal,
  type ApiService, type ApiServiceCondition,
} from './api-service';
import { BackendError, type ResolvedBackend } from './backend';
import { type AbortRequest, HopError } from './backend-exchange';
import { dialErrorText } from '../kubelet/errors';

const FIELD_MANAGER = 'kube-apiserver';
/** The informer resync of the APIServices. */
export const DEFAULT_RESYNC_MS = 30_000;
/** The discovery client's timeout, and the insurance timer around it. */
const CHECK_TIMEOUT_MS = 5_000;
const CHECK_INSURANCE_MS = 6_000;
const CHECK_ATTEMPTS = 5;

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? v as Obj : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const codeOf = (err: unknown) => (err as { code?: number } | undefined)?.code;

/** A failed check that still wrote its condition: the key is retried with backoff. */
class CheckFailed extends Error {}

interface Verdict { status: ApiServiceCondition['status']; reason: string; message: string }

function joinHostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** SetAPIServiceCondition: a new condition, or the existing one with its time kept unless its status changes. */
export function withCondition(svc: ApiService, verdict: Verdict, now: string): ApiService['status'] {
  const conditions = [...(svc.status?.conditions ?? [])].map((c) => ({ ...c }));
  const existing = conditions.find((c) => c?.type === 'Available');
  if (!existing) {
    conditions.push({ type: 'Available', status: verdict.status, lastTransitionTime: now, reason: verdict.reason, message: verdict.message });
  } else {
    if (existing.status !== verdict.status) {
      existing.status = verdict.status;
      existing.lastTransitionTime = now;
    }
    existing.reason = verdict.reason;
    existing.message = verdict.message;
  }
  return { ...(svc.status ?? {}), conditions };
}

/**
 * Go's text of a failed GET through net/http (a *url.Error): the dial and TLS failures in Go's
 * words (lib/kubelet/errors.ts); a connection the backend closed is Go's EOF.
 */
function getErrorText(url: string, err: HopError, host: string, port: number): string {
  const detail = err.timeout ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
    : err.cause?.code === 'ECONNRESET' ? 'EOF' : err.cause ? dialErrorText(err.cause, host, port) : err.message;
  return `Get "${url}": ${detail}`;
}

export class AvailabilityController {
  private readonly store: GenericStore;
  private readonly unavailableGauge: Gauge<'name'>;
  private readonly unavailableTotal: CounterMetric<'name' | 'reason'>;
  private queue?: WorkQueue;
  private readonly feeds: ResourceFeed[] = [];
  /** `<namespace>/<name>` of a Service -> the APIServices that name it. */
  private byService = new Map<string, string[]>();
  private resyncMs = DEFAULT_RESYNC_MS;
  private resyncTimer?: NodeJS.Timeout;
  private stopped = false;
  private started = false;
  private paused = false;

  constructor(readonly agg: AggregationContext) {
    this.store = agg.stores.get(apiServicesStoreKey(agg.naming)) as GenericStore;
    this.unavailableGauge = agg.metrics.gauge({
      name: 'aggregator_unavailable_apiservice',
      help: 'Gauge of APIServices which are marked as unavailable broken down by APIService name.',
      labelNames: ['name'],
    });
    this.unavailableTotal = agg.metrics.counter({
      name: 'aggregator_unavailable_apiservice_total',
      help: 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.',
      labelNames: ['name', 'reason'],
    });
  }

  async start(): Promise<void> {
    this.started = true;
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers: 5, baseDelayMs: 5, maxDelayMs: 30_000,
      onError: (name, err) => {
        if (!(err instanceof CheckFailed)) this.agg.log.warn('apiservice availability: sync failed; retried', { apiService: name, error: err instanceof Error ? err.message : String(err) });
      },
    });
    this.rebuildServiceIndex();
    this.agg.cache.onChange((name, now) => {
      if (this.stopped) return;
      if (!now || !isLocal(now)) this.rebuildServiceIndex();
      this.queue?.add(name);
    });
    for (const resource of ['services', 'endpoints']) {
      const s = this.agg.stores.get(storeKey('', 'v1', resource)) as GenericStore | undefined;
      if (!s) continue;
      const feed = new ResourceFeed(s, {
        upsert: (o) => this.serviceChanged(o),
        remove: (o) => this.serviceChanged(o),
      }, `apiservice-availability-${resource}`, { metadataOnly: true });
      this.feeds.push(feed);
    }
    await Promise.all(this.feeds.map((f) => f.start()));
    for (const s of this.agg.cache.list()) this.queue.add(s.metadata?.name ?? '');
    this.scheduleResync();
    await this.firstLocalPass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    await Promise.all(this.feeds.map((f) => f.stop()));
    await this.queue?.stop(1000);
  }

  /**
   * Stops checking and writing (until resume()): for tests that set the Available condition
   * themselves through /status to drive what reads it (the proxy, discovery).
   */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    for (const s of this.agg.cache.list()) this.queue?.add(s.metadata?.name ?? '');
  }

  /** The period every APIService is rechecked (kube: 30 s); tests shorten it on a running server. */
  setResyncPeriod(ms: number): void {
    this.resyncMs = Math.max(10, ms);
    if (this.started && !this.stopped) this.scheduleResync();
  }

  private scheduleResync(): void {
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.resyncTimer = setInterval(() => {
      for (const s of this.agg.cache.list()) this.queue?.add(s.metadata?.name ?? '');
    }, this.resyncMs);
    this.resyncTimer.unref();
  }

  /** Before the server reports ready: the local APIServices Available (kube's autoregister-completion), bounded. */
  private async firstLocalPass(): Promise<void> {
    await this.agg.cache.until(() => this.stopped || this.agg.cache.list().every((s) => !isLocal(s) || isAvailable(s)), 10_000);
  }

  private rebuildServiceIndex(): void {
    const next = new Map<string, string[]>();
    for (const s of this.agg.cache.list()) {
      const ref = s.spec?.service;
      if (!ref) continue;
      const key = `${ref.namespace ?? ''}/${ref.name ?? ''}`;
      const list = next.get(key) ?? [];
      list.push(s.metadata?.name ?? '');
      next.set(key, list);
    }
    this.byService = next;
  }

  private serviceChanged(o: ApiObject): void {
    if (this.stopped) return;
    for (const name of this.byService.get(`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`) ?? []) this.queue?.add(name);
  }

  private async sync(name: string): Promise<void> {
    if (this.paused) return;
    const original = this.agg.cache.get(name);
    if (!original) {
      this.unavailableGauge.remove({ name });
      return;
    }
    const verdict = isLocal(original)
      ? { status: 'True' as const, reason: 'Local', message: 'Local APIServices are always available' }
      : await this.checkRemote(original);
    if (this.paused || this.stopped) return;
    await this.updateStatus(original, verdict);
    if (verdict.reason === 'FailedDiscoveryCheck') throw new CheckFailed(verdict.message);
  }

  /** The remote controller's checks, in its order. */
  private async checkRemote(svc: ApiService): Promise<Verdict> {
    const ref = svc.spec.service ?? {};
    const ns = ref.namespace ?? '';
    const svcName = ref.name ?? '';
    const port = ref.port ?? 443;
    let service: ApiObject | undefined;
    try {
      service = await this.agg.transport.deps.services.get(ns, svcName);
    } catch (err) {
      return { status: 'Unknown', reason: 'ServiceAccessError', message: `service/${svcName} in ${JSON.stringify(ns)} cannot be checked due to: ${(err as Error).message}` };
    }
    if (!service) return { status: 'False', reason: 'ServiceNotFound', message: `service/${svcName} in ${JSON.stringify(ns)} is not present` };
    const spec = asObj(service.spec);
    if ((spec.type ?? 'ClusterIP') === 'ClusterIP') {
      const servicePort = asList(spec.ports).map(asObj).find((p) => p.port === port);
      if (!servicePort) {
        return { status: 'False', reason: 'ServicePortError', message: `service/${svcName} in ${JSON.stringify(ns)} is not listening on port ${port}` };
      }
      const portName = String(servicePort.name ?? '');
      let endpoints: ApiObject | undefined;
      try {
        endpoints = await this.agg.transport.deps.endpoints.get(ns, svcName);
      } catch (err) {
        return { status: 'Unknown', reason: 'EndpointsAccessError', message: `service/${svcName} in ${JSON.stringify(ns)} cannot be checked due to: ${(err as Error).message}` };
      }
      if (!endpoints) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${svcName} in ${JSON.stringify(ns)}` };
      const active = asList((endpoints as Obj).subsets).map(asObj).some((ss) =>
        asList(ss.addresses).length > 0 && asList(ss.ports).map(asObj).some((p) => String(p.name ?? '') === portName));
      if (!active) {
        return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for service/${svcName} in ${JSON.stringify(ns)} have no addresses with port name ${JSON.stringify(portName)}` };
      }
    }
    const failure = await this.discoveryCheck(svc);
    if (failure !== undefined) return { status: 'False', reason: 'FailedDiscoveryCheck', message: failure };
    return { status: 'True', reason: 'Passed', message: 'all checks passed' };
  }

  /** Five GETs of the group-version's discovery at once; undefined when one answered 2xx, else the last failure. */
  private async discoveryCheck(svc: ApiService): Promise<string | undefined> {
    const attempts = Array.from({ length: CHECK_ATTEMPTS }, () => this.oneCheck(svc));
    return new Promise((resolve) => {
      let pending = attempts.length;
      let last: string | undefined;
      for (const a of attempts) {
        void a.then((err) => {
          if (err === undefined) { resolve(undefined); return; }
          last = err;
          if (--pending === 0) resolve(last);
        });
      }
    });
  }

  private async oneCheck(svc: ApiService): Promise<string | undefined> {
    let backend: ResolvedBackend;
    try {
      backend = await this.agg.transport.resolve(svc);
    } catch (err) {
      return err instanceof BackendError ? err.message : (err as Error).message;
    }
    const { host, port } = backend;
    const path = svc.metadata?.name === 'v1.' ? `/api/${svc.spec.version ?? ''}` : `/apis/${svc.spec.group ?? ''}/${svc.spec.version ?? ''}`;
    const url = `https://${joinHostPort(host, port)}${path}`;
    let abort: AbortRequest | undefined;
    const insurance = setTimeout(() => abort?.(new HopError(`timed out waiting for ${url}`)), CHECK_INSURANCE_MS);
    try {
      const answer = await this.agg.transport.check(backend, {
        method: 'GET', path, timeoutMs: CHECK_TIMEOUT_MS, timeoutText: 'timeout',
        headers: { 'x-remote-user': 'system:kube-aggregator', 'x-remote-group': 'system:masters', accept: 'application/json, */*' },
      }, (a) => { abort = a; });
      answer.discard();
      const code = answer.statusCode;
      return code >= 200 && code < 300 ? undefined : `failing or missing response from ${url}: bad status from ${url}: ${code}`;
    } catch (err) {
      if (!(err instanceof HopError)) return `failing or missing response from ${url}: ${(err as Error).message}`;
      if (err.message === `timed out waiting for ${url}`) return err.message;
      return `failing or missing response from ${url}: ${getErrorText(url, err, host, port)}`;
    } finally {
      clearTimeout(insurance);
    }
  }

  /** updateAPIServiceStatus: the gauge always, a /status write and the counter only on change. */
  private async updateStatus(original: ApiService, verdict: Verdict): Promise<void> {
    const name = original.metadata?.name ?? '';
    const status = withCondition(original, verdict, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    this.unavailableGauge.set({ name }, verdict.status === 'True' ? 0 : 1);
    const before = availableCondition(original);
    // The only change a sync makes is to the Available condition: equal in status, reason and
    // message, the status is unchanged (the time is kept with the status).
    if (before && before.status === verdict.status && before.reason === verdict.reason && before.message === verdict.message) return;
    if ((before?.status !== verdict.status || before?.reason !== verdict.reason) && !isLocal(original)) {
      this.agg.log.info('changing APIService availability', { name, oldStatus: before?.status ?? 'Unknown', newStatus: verdict.status, reason: verdict.reason, message: verdict.message });
    }
    try {
      await this.store.updateWith({}, name, (current) => ({ ...current, status }), {
        dryRun: false, subresource: 'status', fieldManager: FIELD_MANAGER, precondition: String(original.metadata?.resourceVersion ?? ''),
      });
    } catch (err) {
      if (codeOf(err) === 404) return;
      throw err;
    }
    if (isAvailable(original) !== (verdict.status === 'True') && verdict.status !== 'True') {
      this.unavailableTotal.inc({ name, reason: verdict.reason });
    }
  }
}
