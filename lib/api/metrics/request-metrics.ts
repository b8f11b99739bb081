/**
 * Request metrics with kube-apiserver's names, labels, buckets and stability levels
 * (k8s.io/apiserver pkg/endpoints/metrics): apiserver_request_total, _request_duration_seconds,
 * _response_sizes, _current_inflight_requests and _longrunning_requests, recorded by one Koa
 * middleware placed outermost so that every answer counts, 401/403/404/429 included.
 *
 * Label values follow Kubernetes: the verb as CleanVerb reports it (GET/LIST by scope, WATCH,
 * APPLY for apply patches, CONNECT for connect subresources, `other` for unknown methods), the
 * scope as CleanScope, code the final HTTP status. Labels never carry a path or a name a client
 * chose: group/version/resource/subresource are filled only for resources this server serves,
 * so a stream of 404s to made-up paths cannot grow the series without bound.
 */
import type { Context, Next } from 'koa';
import type { Gauge } from 'prom-client';
import type { CounterMetric as Counter, HistogramMetric as Histogram } from '../../metrics/fast';
import { performance } from 'node:perf_hooks';
import { MetricsRegistry } from '../../metrics/registry';
import type { RequestInfo } from '../request-info';
import type { ResourceDef } from '../../scheme/types';

/** Kubernetes' `component` label of every request metric. */
export const APISERVER_COMPONENT = 'apiserver';

/** apiserver_request_duration_seconds' buckets (kube's SLO buckets). */
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** apiserver_response_sizes' buckets: 1 kB to 1 GB, by tens. */
const SIZE_BUCKETS = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/** The verbs Kubernetes reports; any other method is reported as `other`. */
const VALID_VERBS = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST',
  'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);
/** Subresources reported as CONNECT, and long-running as a watch. */
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
const APPLY_PATCH = 'application/apply-patch+yaml';

type RequestLabel = 'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component' | 'code';
type LongRunningLabel = 'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component';

/** The recorders of one label tuple, made once and reused (prom-client's labels() builds objects). */
interface Series {
  total: { inc(): void };
  duration: { observe(v: number): void };
  size: { observe(v: number): void } | undefined;
}

/** CleanScope: `resource` for a named object or a create, then `namespace`, `cluster`, or '' off the API. */
export function cleanScope(info: RequestInfo | undefined): string {
  if (!info) return '';
  if (info.name || info.verb === 'create') return 'resource';
  if (info.namespace) return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** Whether the query asks for a watch as Kubernetes reads it: the first `watch` value, unless 0 or false. */
function watchAsked(method: string, query: string): boolean {
  if (method !== 'GET' || !query.includes('watch')) return false;
  const v = new URLSearchParams(query).get('watch');
  if (v === null) return false;
  const lower = v.toLowerCase();
  return lower !== '0' && lower !== 'false';
}

/** The verb label: CanonicalVerb then CleanVerb, as kube-apiserver reports it. */
export function reportedVerb(method: string, scope: string, info: RequestInfo | undefined, watch: boolean, contentType: string): string {
  let verb = method === 'GET' || method === 'HEAD' ? (scope !== 'resource' && scope !== '' ? 'LIST' : 'GET') : method;
  if (watch || info?.verb === 'watch') verb = 'WATCH';
  if (verb === 'PATCH' && contentType.split(';', 1)[0].trim().toLowerCase() === APPLY_PATCH) verb = 'APPLY';
  if (info?.isResourceRequest && info.subresource && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return VALID_VERBS.has(verb) ? verb : 'other';
}

/** cleanDryRun: '' without the parameter, the sorted distinct values when all are `All`, else `invalid`. */
export function cleanDryRun(query: string): string {
  if (!query.includes('dryRun')) return '';
  const values = new URLSearchParams(query).getAll('dryRun');
  if (!values.length) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

export interface RequestMetricsOptions {
  /** The resources served now (CRDs come and go): labels name only these. */
  resources: () => readonly ResourceDef[];
}

/** The request metrics of one server and the middleware that records them. */
export class RequestMetrics {
  private readonly total: Counter<RequestLabel>;
  private readonly duration: Histogram<Exclude<RequestLabel, 'code'>>;
  private readonly sizes: Histogram<LongRunningLabel>;
  private readonly longRunning: Gauge<LongRunningLabel>;
  private readonly series = new Map<string, Series>();
  private readonly longRunningSeries = new Map<string, { inc(): void; dec(): void }>();
  /** In flight now and the peak since the last scrape, [readOnly, mutating]. */
  private readonly inflight = [0, 0];
  private readonly peak = [0, 0];

  constructor(registry: MetricsRegistry, private readonly opts: RequestMetricsOptions) {
    this.total = registry.counter({
      name: 'apiserver_request_total', stability: 'STABLE',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
    });
    this.duration = registry.histogram({
      name: 'apiserver_request_duration_seconds', stability: 'STABLE', buckets: DURATION_BUCKETS,
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    });
    this.sizes = registry.histogram({
      name: 'apiserver_response_sizes', stability: 'STABLE', buckets: SIZE_BUCKETS,
      help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    });
    this.longRunning = registry.gauge({
      name: 'apiserver_longrunning_requests', stability: 'STABLE',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    });
    const { inflight, peak } = this;
    registry.gauge({
      name: 'apiserver_current_inflight_requests', stability: 'STABLE',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      // The peak since the previous scrape (Kubernetes keeps the last second's; no timer needed here).
      collect() {
        this.set({ request_kind: 'readOnly' }, peak[0]);
        this.set({ request_kind: 'mutating' }, peak[1]);
        peak[0] = inflight[0];
        peak[1] = inflight[1];
      },
    });
  }

  /** The Koa middleware; install it first so it sees every final status. */
  middleware(): (ctx: Context, next: Next) => Promise<void> {
    return async (ctx: Context, next: Next): Promise<void> => {
      const started = performance.now();
      const watch = watchAsked(ctx.method, ctx.querystring);
      // Long-running requests are not in flight in Kubernetes' sense (they hold no seat).
      const kind = watch ? -1 : ctx.method === 'GET' || ctx.method === 'HEAD' ? 0 : 1;
      if (kind >= 0 && ++this.inflight[kind] > this.peak[kind]) this.peak[kind] = this.inflight[kind];
      try {
        await next();
      } finally {
        if (kind >= 0) this.inflight[kind]--;
      }
      // A stream still open (a watch): counted when it ends, and long-running until then.
      if (ctx.respond === false && !ctx.res.writableEnded && !ctx.res.destroyed) {
        const gauge = this.longRunningGauge(ctx, watch);
        gauge.inc();
        ctx.res.once('close', () => {
          gauge.dec();
          this.record(ctx, watch, started, true);
        });
        return;
      }
      this.record(ctx, watch, started, watch);
    };
  }

  private record(ctx: Context, watch: boolean, started: number, longRunning: boolean): void {
    const info = ctx.state.requestInfo as RequestInfo | undefined;
    const scope = cleanScope(info);
    const verb = reportedVerb(ctx.method, scope, info, watch, ctx.get('content-type'));
    const dryRun = cleanDryRun(ctx.querystring);
    const code = String(ctx.status);
    const s = this.seriesFor(verb, dryRun, scope, code, info);
    s.total.inc();
    if (longRunning) return;
    s.duration.observe((performance.now() - started) / 1000);
    // As Kubernetes: sizes of GET and LIST answers only.
    if (s.size) s.size.observe(ctx.response.length ?? 0);
  }

  private seriesFor(verb: string, dryRun: string, scope: string, code: string, info: RequestInfo | undefined): Series {
    const resourceKey = info?.isResourceRequest
      ? `${verb}|${dryRun}|${scope}|${code}|${info.group}|${info.version}|${info.resource}|${info.subresource ?? ''}` : undefined;
    let s = resourceKey === undefined ? undefined : this.series.get(resourceKey);
    if (s) return s;
    // Only served resources get series of their own; the rest share one without a resource.
    if (resourceKey !== undefined && this.knownResource(info)) {
      s = this.newSeries(verb, dryRun, scope, code, info!.group, info!.version, info!.resource, info!.subresource ?? '');
      this.series.set(resourceKey, s);
      return s;
    }
    const key = `~${verb}|${dryRun}|${scope}|${code}`;
    s = this.series.get(key);
    if (!s) {
      s = this.newSeries(verb, dryRun, scope, code, '', '', '', '');
      this.series.set(key, s);
    }
    return s;
  }

  private newSeries(verb: string, dryRun: string, scope: string, code: string,
    group: string, version: string, resource: string, subresource: string): Series {
    return {
      total: this.total.labels(verb, dryRun, group, version, resource, subresource, scope, APISERVER_COMPONENT, code),
      duration: this.duration.labels(verb, dryRun, group, version, resource, subresource, scope, APISERVER_COMPONENT),
      size: verb === 'GET' || verb === 'LIST'
        ? this.sizes.labels(verb, group, version, resource, subresource, scope, APISERVER_COMPONENT) : undefined,
    };
  }

  private longRunningGauge(ctx: Context, watch: boolean): { inc(): void; dec(): void } {
    const info = ctx.state.requestInfo as RequestInfo | undefined;
    const scope = cleanScope(info);
    const verb = reportedVerb(ctx.method, scope, info, watch, ctx.get('content-type'));
    const known = this.knownResource(info);
    const group = known ? info!.group : '';
    const version = known ? info!.version : '';
    const resource = known ? info!.resource : '';
    const subresource = known ? info!.subresource ?? '' : '';
    const key = `${verb}|${scope}|${group}|${version}|${resource}|${subresource}`;
    let g = this.longRunningSeries.get(key);
    if (!g) {
      g = this.longRunning.labels(verb, group, version, resource, subresource, scope, APISERVER_COMPONENT);
      this.longRunningSeries.set(key, g);
    }
    return g;
  }

  /** A resource (and subresource) this server serves; only those are named in labels. */
  private knownResource(info: RequestInfo | undefined): boolean {
    if (!info?.isResourceRequest || !info.resource) return false;
    const { group, version, resource, subresource } = info;
    // Cached series answer the common case before this scan runs (it runs once per new tuple).
    const def = this.opts.resources().find((r) => r.resource === resource && r.group === group && r.version === version);
    if (!def) return false;
    return !subresource || def.subresources.some((sr) => sr.name === subresource);
  }
}
