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

interface MetricsRequest { type: 'orch-metrics-request'; id: number }
interface MetricsReply { type: 'orch-metrics-reply'; id: number; text?: string; error?: string }

const isRequest = (m: unknown): m is MetricsRequest => typeof m === 'object' && m !== null && (m as MetricsRequest).type === 'orch-metrics-request';
const isReply = (m: unknown): m is MetricsReply => typeof m === 'object' && m !== null && (m as MetricsReply).type === 'orch-metrics-reply';

/** Longer than prom-client's own 5 s wait for each worker. */
const REPLY_TIMEOUT_MS = 8_000;

/** In a worker: this worker's registry answers the primary's gathering; returns the render for /metrics. */
export function clusterMetricsRenderer(registry: client.Registry): () => Promise<string> {
  client.AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes prom-client answer the primary's requests in a worker.
  new client.AggregatorRegistry(); // eslint-disable-line no-new
  const pending = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let nextId = 0;
  process.on('message', (m: unknown) => {
    if (!isReply(m)) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.error !== undefined || m.text === undefined) p.reject(new Error(`gathering the workers' metrics failed: ${m.error}`));
    else p.resolve(m.text);
  });
  return () => new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('no primary process to gather the metrics'));
      return;
    }
    const id = ++nextId;
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`the primary did not answer with the workers' metrics in ${REPLY_TIMEOUT_MS} ms`));
    }, REPLY_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    process.send({ type: 'orch-metrics-request', id } satisfies MetricsRequest);
  });
}

/** In the primary: answers each worker's request with the merged metrics of all workers. */
export class ClusterMetricsServer {
  private readonly aggregator = new client.AggregatorRegistry();

  attach(worker: Worker): void {
    worker.on('message', (m: unknown) => {
      if (!isRequest(m)) return;
      this.aggregator.clusterMetrics().then(
        (text) => this.reply(worker, { type: 'orch-metrics-reply', id: m.id, text }),
        (err: Error) => this.reply(worker, { type: 'orch-metrics-reply', id: m.id, error: err.message }),
      );
    });
  }

  private reply(worker: Worker, r: MetricsReply): void {
    if (worker.isConnected()) worker.send(r, undefined, () => undefined);
  }
}
