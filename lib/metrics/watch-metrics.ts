/**
 * Watch metrics as kube-apiserver names them (k8s.io/apiserver pkg/endpoints/metrics):
 * apiserver_watch_events_total and apiserver_watch_events_sizes (buckets 1 KiB to 128 KiB) per
 * event sent to a client, labels group, version, kind of the resource as served; and
 * apiserver_registered_watchers, the open watch streams. Kubernetes deprecated the last in 1.23
 * and later dropped it (apiserver_longrunning_requests{verb="WATCH"} took its place); it is kept
 * here, ALPHA, because dashboards still read it.
 * A stream resolves its three series once (forKind), then records without building labels.
 */
import { MetricsRegistry } from './registry';

/** ExponentialBuckets(1024, 2, 8): 1 KiB ... 128 KiB. */
export const WATCH_EVENT_SIZE_BUCKETS = Array.from({ length: 8 }, (_, i) => 1024 * 2 ** i);

/** What one watch stream records into. */
export interface WatchRecorder {
  events: { inc(n?: number): void };
  sizes: { observe(bytes: number): void };
  watchers: { inc(): void; dec(): void };
}

export class WatchMetrics {
  private readonly events;
  private readonly sizes;
  private readonly watchers;
  private readonly byKind = new Map<string, WatchRecorder>();

  constructor(registry: MetricsRegistry) {
    const labelNames = ['group', 'version', 'kind'] as const;
    this.events = registry.counter({ name: 'apiserver_watch_events_total', labelNames, help: 'Number of events sent in watch clients' });
    this.sizes = registry.histogram({
      name: 'apiserver_watch_events_sizes', labelNames, buckets: WATCH_EVENT_SIZE_BUCKETS, help: 'Watch event size distribution in bytes',
    });
    this.watchers = registry.gauge({
      name: 'apiserver_registered_watchers', labelNames, help: 'Number of currently registered watchers for a given resources',
    });
  }

  /** The series of one served kind, made on its first watch. */
  forKind(group: string, version: string, kind: string): WatchRecorder {
    const key = `${group}/${version}/${kind}`;
    let r = this.byKind.get(key);
    if (!r) {
      r = { events: this.events.labels(group, version, kind), sizes: this.sizes.labels(group, version, kind), watchers: this.watchers.labels(group, version, kind) };
      this.byKind.set(key, r);
    }
    return r;
  }
}
