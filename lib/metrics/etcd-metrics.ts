/**
 * etcd request metrics as kube-apiserver 1.32 names them (k8s.io/apiserver
 * pkg/storage/etcd3/metrics): etcd_request_duration_seconds, etcd_requests_total and
 * etcd_request_errors_total, labels `operation` and `type`. `type` is the resource as a
 * Kubernetes GroupResource string (`configmaps`, `leases.coordination.orch.io`): each resource's
 * store talks to etcd through its own MeasuredStorage, so the label is fixed per wrapper and
 * never derived from a key on the hot path. Operations as Kubernetes records them: `get` (one
 * key), `list` (a prefix), `listWithCount` (a count only), `create`, `update`, `delete`.
 * A lost compare-and-swap is an answer, not an error (as Kubernetes: the transaction ran).
 * Watches and the revision probe are not requests of a resource and are not recorded.
 */
import { performance } from 'node:perf_hooks';
import { CasResult, PutOptions, RangeOptions, RangeResult, Storage, WatchHandle, WatchHandlers, WatchOptions, KeyValue } from '../storage/interfaces';
import { MetricsRegistry } from './registry';
import { WatchMetrics } from './watch-metrics';

/** Kubernetes' buckets for etcd request latency (the same as its request latency SLO). */
export const ETCD_LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export type EtcdOperation = 'get' | 'list' | 'listWithCount' | 'create' | 'update' | 'delete';

/** One (operation, type) series of all three metrics, resolved once. */
interface OperationRecorder {
  latency: { observe(v: number): void };
  count: { inc(): void };
  errors: { inc(): void };
}

/** The etcd metrics of one server; `storageFor` wraps the server's storage per resource. */
export class EtcdMetrics {
  private readonly latency;
  private readonly requests;
  private readonly errors;
  private readonly wrappers = new Map<string, MeasuredStorage>();

  /** `watch`: the watch metrics, reachable from a store's storage by the watch handler. */
  constructor(registry: MetricsRegistry, readonly watch: WatchMetrics) {
    const labelNames = ['operation', 'type'] as const;
    this.latency = registry.histogram({
      name: 'etcd_request_duration_seconds', labelNames, buckets: ETCD_LATENCY_BUCKETS,
      help: 'Etcd request latency in seconds for each operation and object type.',
    });
    this.requests = registry.counter({ name: 'etcd_requests_total', labelNames, help: 'Etcd request counts for each operation and object type.' });
    this.errors = registry.counter({ name: 'etcd_request_errors_total', labelNames, help: 'Etcd failed request counts for each operation and object type.' });
  }

  /** The storage one resource's stores use: the same etcd, measured under `type` (one wrapper per type). */
  storageFor(inner: Storage, type: string): MeasuredStorage {
    let w = this.wrappers.get(type);
    if (!w) this.wrappers.set(type, (w = new MeasuredStorage(inner, type, this)));
    return w;
  }

  /**
   * `type` is no longer served (a custom resource whose CRD went): its wrapper is dropped; the
   * counters keep their series, as Kubernetes' do.
   */
  remove(type: string): void {
    this.wrappers.delete(type);
  }

  /** @internal the recorder of one series (MeasuredStorage caches it). */
  recorder(operation: EtcdOperation, type: string): OperationRecorder {
    return { latency: this.latency.labels(operation, type), count: this.requests.labels(operation, type), errors: this.errors.labels(operation, type) };
  }
}

/** `resource` or `resource.group`, Kubernetes' GroupResource.String(). */
export function groupResourceString(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** A Storage that records every etcd request of one resource; everything else is passed through. */
export class MeasuredStorage implements Storage {
  private readonly recorders = new Map<EtcdOperation, OperationRecorder>();

  constructor(readonly inner: Storage, readonly type: string, readonly metrics: EtcdMetrics) {}

  get transformsValues(): boolean | undefined { return this.inner.transformsValues; }

  get(key: string, opts?: { revision?: number }): Promise<{ kv?: KeyValue; revision: number }> {
    return this.measure('get', performance.now(), this.inner.get(key, opts));
  }

  range(prefix: string, opts?: RangeOptions): Promise<RangeResult> {
    return this.measure(opts?.countOnly ? 'listWithCount' : 'list', performance.now(), this.inner.range(prefix, opts));
  }

  create(key: string, value: Buffer, opts?: PutOptions): Promise<CasResult> {
    return this.measure('create', performance.now(), this.inner.create(key, value, opts));
  }

  update(key: string, value: Buffer, modRevision: number, opts?: PutOptions): Promise<CasResult> {
    return this.measure('update', performance.now(), this.inner.update(key, value, modRevision, opts));
  }

  delete(key: string, modRevision: number): Promise<CasResult> {
    return this.measure('delete', performance.now(), this.inner.delete(key, modRevision));
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers, opts?: WatchOptions): Promise<WatchHandle> {
    return this.inner.watch(prefix, afterRevision, handlers, opts);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  /** Shared: the server closes the one etcd client once. */
  close(): Promise<void> {
    return this.inner.close();
  }

  /** `start` is taken before the call (arguments run left to right), so its own work counts. */
  private measure<T>(op: EtcdOperation, start: number, pending: Promise<T>): Promise<T> {
    let r = this.recorders.get(op);
    if (!r) this.recorders.set(op, (r = this.metrics.recorder(op, this.type)));
    const rec = r;
    // then() rather than an async wrapper: one microtask hop less per request.
    return pending.then((value) => {
      rec.latency.observe((performance.now() - start) / 1000);
      rec.count.inc();
      return value;
    }, (err: unknown) => {
      rec.latency.observe((performance.now() - start) / 1000);
      rec.count.inc();
      rec.errors.inc();
      throw err;
    });
  }
}

/** The watch metrics of the server a store's storage belongs to (undefined: not measured). */
export function watchMetricsOf(storage: Storage): WatchMetrics | undefined {
  return storage instanceof MeasuredStorage ? storage.metrics.watch : undefined;
}
