/**
 * apiserver_storage_objects (STABLE, label `resource`, a GroupResource string such as
 * `configmaps` or `deployments.apps`): the number of stored objects per resource, -1 when it
 * cannot be told, as kube-apiserver 1.32 (k8s.io/apiserver pkg/storage/etcd3/metrics).
 *
 * Where it is read from: with the watch cache (the default), the cache's own key count at each
 * scrape: exact, and no etcd traffic (Kubernetes asks etcd for a count every minute even then).
 * With --watch-cache=false, as Kubernetes: a count-only etcd range per resource every
 * --etcd-count-metric-poll-period (default 1m; 0: not counted), the first one at start (as
 * Kubernetes); those requests are counted as etcd `listWithCount`.
 */
import { MetricsRegistry } from './registry';

/** What a watch cache offers: its key count, meaningful once ready. */
export interface CountedCache {
  readonly ready: boolean;
  readonly size: number;
}

export class StorageObjectsMetric {
  private readonly caches = new Map<string, CountedCache>();
  private readonly polled = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(registry: MetricsRegistry) {
    const caches = this.caches;
    const polled = this.polled;
    registry.gauge({
      name: 'apiserver_storage_objects', aggregator: 'max', labelNames: ['resource'], stability: 'STABLE',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      collect() {
        // Resources come and go (custom resources): only those counted now have a series.
        this.reset();
        for (const [resource, n] of polled) this.set({ resource }, n);
        for (const [resource, cache] of caches) this.set({ resource }, cache.ready ? cache.size : -1);
      },
    });
  }

  /** `resource` is counted from its watch cache at each scrape. */
  fromCache(resource: string, cache: CountedCache): void {
    this.caches.set(resource, cache);
  }

  /** `resource` is counted by `count` every `periodMs` (0: never); a failed count reads -1. */
  poll(resource: string, count: () => Promise<number>, periodMs: number): void {
    if (periodMs <= 0) return;
    const run = () => {
      count().then((n) => { if (this.timers.has(resource)) this.polled.set(resource, n); },
        () => { if (this.timers.has(resource)) this.polled.set(resource, -1); });
    };
    // unref: a pending count never keeps a stopping process alive.
    this.timers.set(resource, setInterval(run, periodMs).unref());
    run();
  }

  /** `resource` is no longer served (its CRD went): its series goes at the next scrape. */
  remove(resource: string): void {
    this.caches.delete(resource);
    this.polled.delete(resource);
    clearInterval(this.timers.get(resource));
    this.timers.delete(resource);
  }

  stop(): void {
    for (const t of this.timers.values()) clearInterval(t);
    this.timers.clear();
  }
}
