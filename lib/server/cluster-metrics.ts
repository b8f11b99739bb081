/**
 * /metrics of a server made of several worker processes (--workers, workers.ts): a scrape may
 * reach any worker, and must see the whole server, or counters would jump between workers'
 * values from one scrape to the next. The worker that serves /metrics asks the primary, which
 * gathers every worker's registry over the cluster IPC channel with prom-client's
 * AggregatorRegistry and merges them: counters and histograms summed, gauges as each declares
 * (MetricsRegistry.gauge's `aggregator`: 'max' where every worker sees the same thing, such as
 * apiserver_storage_objects), the process metrics as prom-client declares them.
 */
import type { Worker } from 'node:cluster';
import client from 'prom-client';
import { answerWorker, callPrimary } from '../ipc';

const METRICS = 'cluster-metrics';
/** Longer than prom-client's own 5 s wait for each worker. */
const REPLY_TIMEOUT_MS = 8_000;

/** In a worker: this worker's registry answers the primary's gathering; returns the render for /metrics. */
export function clusterMetricsRenderer(registry: client.Registry): () => Promise<string> {
  client.AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes prom-client answer the primary's requests in a worker.
  new client.AggregatorRegistry(); // eslint-disable-line no-new
  return () => callPrimary<string>(METRICS, undefined, REPLY_TIMEOUT_MS);
}

/** In the primary: answers each worker's request with the merged metrics of all workers. */
export class ClusterMetricsServer {
  private readonly aggregator = new client.AggregatorRegistry();

  attach(worker: Worker): void {
    answerWorker<undefined, string>(worker, METRICS, () => this.aggregator.clusterMetrics());
  }
}
