/**
 * Benchmark, watch delivery at concurrency 1, 16 and 64: that many watches through the server
 * (HTTP/2, one session, as client-go) and, open at the same time, as many etcd3 watches straight
 * on the same keys, while a writer PUTs at 200/s through the server. Each update carries its
 * sequence number; both sides measure from the moment the writer sent it, so the raw side's
 * latency is the write plus etcd's own delivery, and the server's adds its watch cache, fan-out
 * and HTTP. Ratio: raw latency / server latency (> 1 would mean the server delivers faster).
 */
import { performance } from 'node:perf_hooks';
import { Watcher } from 'etcd3';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { summarize } from './latency';
import { Http2WatchClient, WatchStream } from './watch-stream';
import { paceWrites } from './watch-fanout.bench';

const NAME = 'watch-delivery';
const NAMESPACE = 'bench-watch-delivery';
const ETCD_PREFIX = `/registry/configmaps/${NAMESPACE}/`;
const CONCURRENCIES = [1, 16, 64];
const WRITES_PER_SEC = 200;
const OBJECTS = 20;
const DRAIN_TIMEOUT_MS = 10_000;
const SEQ = /"seq":"(\d+)"/;

/** Latencies of one side: per watcher which sequence numbers arrived, all samples in one array. */
class Side {
  readonly latencies: Float64Array;
  count = 0;
  private readonly seen: Uint8Array[];

  constructor(watchers: number, private readonly writes: number, private readonly sentAt: Float64Array) {
    this.latencies = new Float64Array(watchers * writes);
    this.seen = Array.from({ length: watchers }, () => new Uint8Array(writes));
  }

  /** Records `text` (an event's JSON) arriving at watcher `w` at `at`. */
  record(w: number, text: string, at: number): void {
    const m = SEQ.exec(text);
    if (!m) return;
    const seq = Number(m[1]);
    if (seq < 0 || seq >= this.writes || this.seen[w][seq]) return;
    this.seen[w][seq] = 1;
    this.latencies[this.count++] = at - this.sentAt[seq];
  }
}

export const watchDelivery: Benchmark = {
  name: NAME,
  description: `watch delivery latency with 1, 16 and 64 watchers over HTTPS vs as many raw etcd3 watchers, ${WRITES_PER_SEC} PUT/s`,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const durationSec = ctx.quick ? 2 : 10;
    const writes = WRITES_PER_SEC * durationSec;
    const api = ctx.env.apiClient(50);
    const etcd = ctx.env.etcdClient();
    const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    await api.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    await Promise.all(Array.from({ length: OBJECTS }, (_, i) => api.json('POST', base, configMap(i, -1))));

    const rows: ResultRow[] = [];
    for (const c of CONCURRENCIES) {
      const listRv: string = (await api.json('GET', base)).metadata.resourceVersion;
      const sentAt = new Float64Array(writes);
      const server = new Side(c, writes, sentAt);
      const raw = new Side(c, writes, sentAt);
      const client = new Http2WatchClient(ctx.env.server, 1);
      const streams: WatchStream[] = [];
      const watchers: Watcher[] = [];
      try {
        ctx.log(`${NAME}: ${c} watcher(s) on each side, ${writes} updates at ${WRITES_PER_SEC}/s`);
        for (let w = 0; w < c; w++) {
          streams.push(client.open(`${base}?watch=true&resourceVersion=${listRv}&timeoutSeconds=900`,
            (lines, at) => { for (const line of lines) server.record(w, line, at); }));
          const watcher = await etcd.watch().prefix(ETCD_PREFIX).startRevision(String(Number(listRv) + 1)).create();
          watcher.on('put', (kv) => raw.record(w, kv.value.toString('utf8'), performance.now()));
          watchers.push(watcher);
        }
        const statuses = await Promise.all(streams.map((s) => s.status));
        if (statuses.some((st) => st !== 200)) throw new Error(`a watch answered ${statuses.find((st) => st !== 200)}`);

        const result = await paceWrites(writes, WRITES_PER_SEC, 3 * durationSec * 1000, async (seq) => {
          sentAt[seq] = performance.now();
          return (await api.request('PUT', `${base}/delivery-${seq % OBJECTS}`, configMap(seq % OBJECTS, seq))).status === 200;
        });
        const expected = result.succeeded.length * c;
        const deadline = performance.now() + DRAIN_TIMEOUT_MS;
        while ((server.count < expected || raw.count < expected) && performance.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
        }
        const s = summarize(server.latencies.subarray(0, server.count));
        const r = summarize(raw.latencies.subarray(0, raw.count));
        const note = `events: server ${server.count}, raw ${raw.count} of ${expected}; ${result.succeeded.length} writes at `
          + `${(result.succeeded.length / (result.elapsedMs / 1000)).toFixed(0)}/s; baseline: ${c} etcd3 watch(es) on the prefix`;
        rows.push(
          { benchmark: NAME, metric: `watch delivery c=${c} p50`, unit: 'ms', value: s.p50, baseline: r.p50, ratio: r.p50 / s.p50, note },
          { benchmark: NAME, metric: `watch delivery c=${c} p99`, unit: 'ms', value: s.p99, baseline: r.p99, ratio: r.p99 / s.p99 },
          { benchmark: NAME, metric: `watch delivery c=${c} events/s`, unit: 'events/s', value: server.count / (result.elapsedMs / 1000),
            baseline: raw.count / (result.elapsedMs / 1000), ratio: raw.count ? server.count / raw.count : NaN },
        );
      } finally {
        for (const st of streams) st.close();
        client.close();
        await Promise.all(watchers.map((w) => w.cancel()));
      }
    }
    return rows;
  },
};

function configMap(index: number, seq: number): unknown {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: `delivery-${index}`, namespace: NAMESPACE },
    data: { seq: String(seq) },
  };
}
