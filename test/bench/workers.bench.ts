/**
 * Benchmark workers (issue 20 item 3): the environment's server (one process) against a second
 * server with `--workers=2` (lib/server/workers.ts) on an etcd of its own (on a shared etcd each
 * server's watch caches would decode the other's writes too), in alternating rounds:
 * - create and get (resourceVersion=0) of 1 KiB ConfigMaps at c=64 over 64 HTTP/1.1 keep-alive
 *   connections (spread over the workers), with the raw etcd3 transaction rate of the same
 *   moment for creates (crud.bench.ts's baseline, on the environment's etcd) and each side's CPU;
 * - the same creates over one HTTP/2 session, as client-go and kubectl connect: one connection
 *   is one worker;
 * - memory: the RSS of each worker and of the primary once both servers hold the same objects,
 *   against the one-process server's;
 * - watch fan-out: the etcd watches each server holds (one per resource per worker), and the
 *   delivery latency of one write to 200 watchers held over 20 HTTP/1.1 connections.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, summarize, timedLoop } from './latency';
import { CpuAccumulator, CpuShares } from './cpu-usage';
import { startServerProcess } from '../helpers/server-process';
import { ApiClient, loadKubeconfig, ServerConnection } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { PAYLOAD, RawEtcdCrud, ServerCrud } from './crud-sides';
import { processMemory } from './process-memory';
import { readEtcdWatchGauges } from './etcd-metrics';
import { startTestEtcd } from '../helpers/etcd-harness';

const NAME = 'workers';
const CONCURRENCY = 64;
const ROUNDS = 4;
const WATCHERS = 200;
const WATCH_CONNECTIONS = 20;
const SIDES = ['one', 'two'] as const;
type Side = typeof SIDES[number];

interface Measured { result: LoopResult; cpu: CpuShares }

const pct = (share: number | undefined) => share?.toFixed(0) ?? '?';
const mib = (bytes: number) => bytes / (1 << 20);

function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export const workersBench: Benchmark = {
  name: NAME,
  description: 'one server process vs --workers=2 on the same etcd: create/get RV=0 at c=64 over HTTP/1.1 and HTTP/2, memory per worker, watch fan-out',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const namespace = 'bench-workers';
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'orch-bench-workers-'));
    const cleanups: Array<() => Promise<unknown> | unknown> = [() => rm(dataDir, { recursive: true, force: true })];
    try {
      // Its own etcd: on a shared one, each server's watch caches would also decode the other's writes.
      const etcd2 = await startTestEtcd();
      cleanups.push(() => etcd2.stop());
      const watchesBefore = await readEtcdWatchGauges(etcd2.endpoint);
      ctx.log(`${NAME}: starting a second server with --workers=2 on an etcd of its own`);
      const other = await startServerProcess([
        `--etcd-servers=${etcd2.endpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', '--workers=2',
      ], { timeoutMs: 60_000 });
      cleanups.push(() => other.stop());
      const watchesAfter = await readEtcdWatchGauges(etcd2.endpoint);
      const conns: Record<Side, ServerConnection> = { one: ctx.env.server, two: loadKubeconfig(other.kubeconfigPath) };
      const pids: Record<Side, number | undefined> = { one: ctx.env.serverPid, two: other.process.pid };
      const h1 = Object.fromEntries(SIDES.map((s) => [s, new ApiClient(conns[s], CONCURRENCY)])) as Record<Side, ApiClient>;
      const h2 = Object.fromEntries(SIDES.map((s) => [s, new Http2ApiClient(conns[s], 1)])) as Record<Side, Http2ApiClient>;
      for (const s of SIDES) cleanups.push(() => h1[s].close(), () => h2[s].close());
      for (const side of SIDES) await h1[side].request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const crud = (s: Side, proto: 'h1' | 'h2') => new ServerCrud(proto === 'h1' ? h1[s] : h2[s], namespace);
      const etcd = ctx.env.etcdClient();
      // The raw side stores what the server stored for one ConfigMap.
      await crud('one', 'h1').create('bench-shape', 0);
      const stored = await etcd.kv.range({ key: Buffer.from(`/registry/configmaps/${namespace}/bench-shape`) });
      if (stored.kvs.length !== 1) throw new Error('the server did not store the ConfigMap under /registry/configmaps/');
      const raw = new RawEtcdCrud(etcd, '/bench-raw/configmaps/bench-workers/', stored.kvs[0].value);
      // Warm-up of both servers (every worker: 64 connections) and the raw client.
      const warm = { durationMs: 0, maxIterations: 400, minIterations: 400, concurrency: CONCURRENCY };
      for (const s of SIDES) await timedLoop(async (i) => { await crud(s, 'h1').create(`${s}-warm-${i}`, i); }, warm);
      await timedLoop(async (i) => { await raw.create(`warm-${i}`, i); }, warm);

      const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
      const names: Record<Side, string[]> = { one: [], two: [] };
      let rawSeq = 0;
      const measure = async (cell: string, op: (s: Side | 'raw', round: number) => (i: number) => Promise<void>, withRaw: boolean) => {
        const results: Record<Side | 'raw', LoopResult[]> = { one: [], two: [], raw: [] };
        const cpu = { one: new CpuAccumulator(pids.one, ctx.env.etcdPid), two: new CpuAccumulator(pids.two, etcd2.pid), raw: new CpuAccumulator(undefined, ctx.env.etcdPid) };
        const order: (Side | 'raw')[] = withRaw ? ['one', 'raw', 'two', 'raw'] : ['one', 'two'];
        for (let round = 0; round < rounds; round++) {
          for (const s of round % 2 ? [...order].reverse() : order) {
            ctx.log(`${NAME}: ${cell}, ${s === 'raw' ? 'raw etcd3' : s === 'one' ? 'one process' : '--workers=2'}, round ${round + 1}/${rounds}`);
            cpu[s].start();
            results[s].push(await timedLoop(op(s, round), perRound));
            cpu[s].stop();
          }
        }
        return {
          one: { result: mergeLoops(results.one), cpu: cpu.one.shares() },
          two: { result: mergeLoops(results.two), cpu: cpu.two.shares() },
          raw: withRaw ? { result: mergeLoops(results.raw), cpu: cpu.raw.shares() } : undefined,
        };
      };
      const rows: ResultRow[] = [];
      const rowsOf = (cell: string, m: { one: Measured; two: Measured; raw?: Measured }, target: boolean) => {
        const serverMs = (x: Measured) => ((x.cpu.server ?? NaN) / 100) / x.result.opsPerSec * 1000;
        rows.push({
          benchmark: NAME, metric: `${cell}: --workers=2 / one process throughput`, unit: 'ops/s',
          value: m.two.result.opsPerSec, baseline: m.one.result.opsPerSec, ratio: m.two.result.opsPerSec / m.one.result.opsPerSec,
          note: `${m.two.result.count} vs ${m.one.result.count} ops; CPU % of a core: server ${pct(m.two.cpu.server)} / ${pct(m.one.cpu.server)}, `
            + `etcd ${pct(m.two.cpu.etcd)} / ${pct(m.one.cpu.etcd)}, load generator ${pct(m.two.cpu.generator)} / ${pct(m.one.cpu.generator)}; `
            + `server CPU per op ${serverMs(m.two).toFixed(3)} / ${serverMs(m.one).toFixed(3)} ms`,
        });
        if (m.raw) {
          for (const s of SIDES) {
            const ratio = m[s].result.opsPerSec / m.raw.result.opsPerSec;
            rows.push({
              benchmark: NAME, metric: `${cell}: ${s === 'one' ? 'one process' : '--workers=2'} vs raw etcd3`, unit: 'ops/s',
              value: m[s].result.opsPerSec, baseline: m.raw.result.opsPerSec, ratio,
              ...(target ? { target: '≥ 1.0x', met: ratio >= 1 } : {}),
              note: `raw etcd3 txn create_revision==0 -> put in the rounds between (load generator ${pct(m.raw.cpu.generator)}% of a core, etcd ${pct(m.raw.cpu.etcd)}%)`,
            });
          }
        }
      };

      rowsOf(`create c=${CONCURRENCY} HTTP/1.1 (64 connections)`, await measure('create HTTP/1.1', (s, round) => async (i) => {
        if (s === 'raw') { await raw.create(`h1-${rawSeq++}`, i); return; }
        const name = `${s}-h1-${round}-${i}`;
        await crud(s, 'h1').create(name, i);
        names[s].push(name);
      }, true), true);
      rowsOf(`get (RV=0) c=${CONCURRENCY} HTTP/1.1 (64 connections)`, await measure('get RV=0 HTTP/1.1', (s) => async (i) => {
        const side = s as Side;
        await crud(side, 'h1').get(names[side][i % names[side].length], true);
      }, false), false);
      rowsOf(`create c=${CONCURRENCY} HTTP/2 (one session)`, await measure('create HTTP/2', (s, round) => async (i) => {
        if (s === 'raw') { await raw.create(`h2-${rawSeq++}`, i); return; }
        await crud(s, 'h2').create(`${s}-h2-${round}-${i}`, i);
      }, true), true);

      // Memory: both servers hold every object of the namespace in their watch caches.
      await new Promise((r) => setTimeout(r, 3_000));
      const oneRss = processMemory(pids.one).rss;
      const workers = childPids(pids.two);
      const workerRss = workers.map((p) => processMemory(p).rss);
      const primaryRss = processMemory(pids.two).rss;
      const objects = names.one.length + names.two.length;
      rows.push({
        benchmark: NAME, metric: 'RSS of each worker (--workers=2) vs the one-process server', unit: 'MiB',
        value: mib(Math.max(...workerRss)), baseline: mib(oneRss), ratio: oneRss / Math.max(...workerRss),
        note: `workers ${workerRss.map((b) => mib(b).toFixed(0)).join(' and ')} MiB, primary ${mib(primaryRss).toFixed(0)} MiB; each holds ~${objects} ConfigMaps of ~1.4 KiB; an extra worker costs about one server's RSS`,
      });
      rows.push({
        benchmark: NAME, metric: 'RSS of the whole --workers=2 server vs the one-process server', unit: 'MiB',
        value: mib(primaryRss + workerRss.reduce((a, b) => a + b, 0)), baseline: mib(oneRss),
        ratio: oneRss / (primaryRss + workerRss.reduce((a, b) => a + b, 0)),
      });
      const serverWatchers = (await readEtcdWatchGauges(ctx.env.etcdEndpoint)).watchers - ctx.env.etcdWatchesBeforeServer.watchers;
      rows.push({
        benchmark: NAME, metric: 'etcd watches held (--workers=2 vs one process)', unit: 'watches',
        value: watchesAfter.watchers - watchesBefore.watchers, baseline: serverWatchers,
        note: 'one etcd watch per resource in each worker: every etcd event is decoded once per worker',
      });

      // Watch fan-out: 200 watchers over 20 connections on each server, one create, time to the last watcher.
      for (const s of SIDES) {
        const latencies = await watchFanout(conns[s], namespace, `fanout-${s}`, h1[s]);
        const sum = summarize(Float64Array.from(latencies));
        rows.push({
          benchmark: NAME, metric: `watch delivery to ${WATCHERS} watchers over ${WATCH_CONNECTIONS} connections, ${s === 'one' ? 'one process' : '--workers=2'} p99`, unit: 'ms',
          value: sum.p99, note: `p50 ${sum.p50.toFixed(1)} ms over ${latencies.length} deliveries (10 creates, each to every watcher)`,
        });
      }
      return rows;
    } finally {
      for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
    }
  },
};

/** 200 watches (10 per connection over 20 HTTP/1.1 connections), 10 creates one at a time, each create's delivery time to every watcher. */
async function watchFanout(conn: ServerConnection, namespace: string, prefix: string, api: ApiClient): Promise<number[]> {
  const agents = Array.from({ length: WATCH_CONNECTIONS }, () => new https.Agent({ keepAlive: true, maxSockets: WATCHERS / WATCH_CONNECTIONS, ca: conn.ca, cert: conn.cert, key: conn.key }));
  const list = JSON.parse((await api.request('GET', `/api/v1/namespaces/${namespace}/configmaps?limit=1`)).body.toString('utf8'));
  const rv = list.metadata.resourceVersion;
  const seen = new Map<string, number[]>();
  const reqs: ReturnType<typeof https.request>[] = [];
  let opened = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < WATCHERS; i++) {
      const req = https.get(`${conn.url}/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${rv}`, { agent: agents[i % WATCH_CONNECTIONS] }, (res) => {
        if (++opened === WATCHERS) resolve();
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            const m = /"name":"([^"]+)"/.exec(line);
            if (m && m[1].startsWith(prefix)) {
              const at = seen.get(m[1]) ?? [];
              at.push(performance.now());
              seen.set(m[1], at);
            }
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', reject);
      reqs.push(req);
    }
  });
  const latencies: number[] = [];
  try {
    for (let n = 0; n < 10; n++) {
      const name = `${prefix}-${n}`;
      const t0 = performance.now();
      const res = await api.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: PAYLOAD } });
      if (res.status !== 201) throw new Error(`create ${name}: ${res.status}`);
      const deadline = Date.now() + 10_000;
      while ((seen.get(name)?.length ?? 0) < WATCHERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const at = seen.get(name) ?? [];
      if (at.length < WATCHERS) throw new Error(`${name} reached ${at.length} of ${WATCHERS} watchers in 10 s`);
      for (const t of at) latencies.push(t - t0);
    }
  } finally {
    for (const r of reqs) r.destroy();
    for (const a of agents) a.destroy();
  }
  return latencies;
}
