/**
 * Benchmark workers (issue 20 item 3): the environment's server (one process) against servers
 * with `--workers=2` (one serving worker, the controllers in the other) and `--workers=3` (two
 * serving) (lib/server/workers.ts), each on an etcd of its own (on a shared etcd each server's
 * watch caches would decode the others' writes too), in alternating rounds:
 * - create and get (resourceVersion=0) of 1 KiB ConfigMaps at c=64 over 64 HTTP/1.1 keep-alive
 *   connections (spread over the workers), with the raw etcd3 transaction rate of the same
 *   moment for creates (crud.bench.ts's baseline, on the environment's etcd) and each side's CPU;
 * - the same creates over one HTTP/2 session, as client-go and kubectl connect: one connection
 *   is one worker;
 * - memory: the RSS of the workers and the primary, against the one-process server's;
 * - watch fan-out: the etcd watches each server holds (one per resource per worker), and the
 *   delivery latency of one write to 200 watchers held over 20 HTTP/1.1 connections.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, summarize, timedLoop } from './latency';
import { CpuAccumulator, CpuShares } from './cpu-usage';
import { childPids, startServerProcess } from '../helpers/server-process';
import { ApiClient, loadKubeconfig, ServerConnection } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { PAYLOAD, RawEtcdCrud, ServerCrud } from './crud-sides';
import { processMemory } from './process-memory';
import { readEtcdWatchGauges } from './etcd-metrics';
import { startTestEtcd } from '../helpers/etcd-harness';

const NAME = 'workers';
const CONCURRENCY = 64;
const ROUNDS = 4;
/** Untimed operations of each kind per side before the first cell (crud.bench.ts's count). */
const WARM_UP_OPS = (quick: boolean) => (quick ? 200 : 2_000);
const WATCHERS = 200;
const WATCH_CONNECTIONS = 20;
const SIDES = ['w1', 'w2', 'w3'] as const;
type Side = typeof SIDES[number];
const WORKERS: Record<Side, number> = { w1: 1, w2: 2, w3: 3 };
const label = (s: Side) => (s === 'w1' ? 'one process' : `--workers=${WORKERS[s]}`);

interface Measured { result: LoopResult; cpu: CpuShares }

const pct = (share: number | undefined) => share?.toFixed(0) ?? '?';
const mib = (bytes: number) => bytes / (1 << 20);

export const workersBench: Benchmark = {
  name: NAME,
  description: 'one server process vs --workers=2 and --workers=3, each on its own etcd: create/get RV=0 at c=64 over HTTP/1.1 and HTTP/2, memory per worker, watch fan-out',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const namespace = 'bench-workers';
    const cleanups: Array<() => Promise<unknown> | unknown> = [];
    try {
      const conns = {} as Record<Side, ServerConnection>;
      const pids = {} as Record<Side, number | undefined>;
      const etcdPids = {} as Record<Side, number | undefined>;
      const etcdWatches = {} as Record<Side, number>;
      conns.w1 = ctx.env.server;
      pids.w1 = ctx.env.serverPid;
      etcdPids.w1 = ctx.env.etcdPid;
      etcdWatches.w1 = (await readEtcdWatchGauges(ctx.env.etcdEndpoint)).watchers - ctx.env.etcdWatchesBeforeServer.watchers;
      for (const side of SIDES.slice(1)) {
        // Its own etcd: on a shared one, each server's watch caches would also decode the others' writes.
        const etcd = await startTestEtcd();
        cleanups.push(() => etcd.stop());
        const before = (await readEtcdWatchGauges(etcd.endpoint)).watchers;
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-${side}-`));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        ctx.log(`${NAME}: starting a server with ${label(side)} on an etcd of its own`);
        const server = await startServerProcess([
          `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', `--workers=${WORKERS[side]}`,
        ], { timeoutMs: 60_000 });
        cleanups.push(() => server.stop());
        conns[side] = loadKubeconfig(server.kubeconfigPath);
        pids[side] = server.process.pid;
        etcdPids[side] = etcd.pid;
        etcdWatches[side] = (await readEtcdWatchGauges(etcd.endpoint)).watchers - before;
      }
      const h1 = Object.fromEntries(SIDES.map((s) => [s, new ApiClient(conns[s], CONCURRENCY)])) as Record<Side, ApiClient>;
      // HTTP/2 sessions are opened for their cell: left idle through the others, the server's idle timeout (90 s) would end them.
      const h2 = {} as Record<Side, Http2ApiClient>;
      for (const s of SIDES) cleanups.push(() => h1[s].close(), () => h2[s]?.close());
      for (const side of SIDES) await h1[side].request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      // One ServerCrud per side and protocol (the HTTP/2 ones once their sessions are open).
      const cruds = { h1: Object.fromEntries(SIDES.map((s) => [s, new ServerCrud(h1[s], namespace)])) as Record<Side, ServerCrud>, h2: {} as Record<Side, ServerCrud> };
      const crud = (s: Side, proto: 'h1' | 'h2') => cruds[proto][s];
      const etcd = ctx.env.etcdClient();
      // The raw side stores what the server stored for one ConfigMap.
      await crud('w1', 'h1').create('bench-shape', 0);
      const stored = await etcd.kv.range({ key: Buffer.from(`/registry/configmaps/${namespace}/bench-shape`) });
      if (stored.kvs.length !== 1) throw new Error('the server did not store the ConfigMap under /registry/configmaps/');
      const raw = new RawEtcdCrud(etcd, '/bench-raw/configmaps/bench-workers/', stored.kvs[0].value);
      // Warm-up of every server (every worker: 64 connections) and the raw client, as crud.bench.ts's:
      // creates and gets at c=64, so that each server's code is compiled before anything is timed
      // (with 400 creates, the first rounds measured servers still compiling).
      const warm = { durationMs: 0, maxIterations: WARM_UP_OPS(ctx.quick), minIterations: WARM_UP_OPS(ctx.quick), concurrency: CONCURRENCY };
      for (const s of SIDES) {
        await timedLoop(async (i) => { await crud(s, 'h1').create(`${s}-warm-${i}`, i); }, warm);
        await timedLoop(async (i) => { await crud(s, 'h1').get(`${s}-warm-${i}`, true); }, warm);
      }
      await timedLoop(async (i) => { await raw.create(`warm-${i}`, i); }, warm);

      const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
      const names = Object.fromEntries(SIDES.map((s) => [s, [] as string[]])) as Record<Side, string[]>;
      let rawSeq = 0;
      type Any = Side | 'raw';
      const measure = async (cell: string, op: (s: Any, round: number) => (i: number) => Promise<void>, withRaw: boolean) => {
        const all: Any[] = withRaw ? ['w1', 'raw', 'w2', 'w3', 'raw'] : [...SIDES];
        const results = Object.fromEntries(all.map((s) => [s, [] as LoopResult[]])) as Record<Any, LoopResult[]>;
        const cpu = Object.fromEntries(all.map((s) => [s, new CpuAccumulator(s === 'raw' ? undefined : pids[s], s === 'raw' ? ctx.env.etcdPid : etcdPids[s])])) as Record<Any, CpuAccumulator>;
        for (let round = 0; round < rounds; round++) {
          for (const s of round % 2 ? [...all].reverse() : all) {
            ctx.log(`${NAME}: ${cell}, ${s === 'raw' ? 'raw etcd3' : label(s)}, round ${round + 1}/${rounds}`);
            cpu[s].start();
            results[s].push(await timedLoop(op(s, round), perRound));
            cpu[s].stop();
          }
        }
        const out = {} as Record<Any, Measured>;
        for (const s of new Set(all)) out[s] = { result: mergeLoops(results[s]), cpu: cpu[s].shares() };
        return out;
      };
      const rows: ResultRow[] = [];
      const serverMs = (x: Measured) => ((x.cpu.server ?? NaN) / 100) / x.result.opsPerSec * 1000;
      const rowsOf = (cell: string, m: Partial<Record<Any, Measured>>, target: boolean) => {
        for (const s of SIDES) {
          const x = m[s]!;
          const one = m.w1!;
          const cpuNote = `CPU % of a core: server ${pct(x.cpu.server)}, etcd ${pct(x.cpu.etcd)}, load generator ${pct(x.cpu.generator)}; server CPU per op ${serverMs(x).toFixed(3)} ms`;
          if (s !== 'w1') {
            rows.push({
              benchmark: NAME, metric: `${cell}: ${label(s)} / one process throughput`, unit: 'ops/s',
              value: x.result.opsPerSec, baseline: one.result.opsPerSec, ratio: x.result.opsPerSec / one.result.opsPerSec,
              note: `${x.result.count} vs ${one.result.count} ops; ${cpuNote} (one process: ${serverMs(one).toFixed(3)} ms)`,
            });
          }
          if (m.raw) {
            const ratio = x.result.opsPerSec / m.raw.result.opsPerSec;
            rows.push({
              benchmark: NAME, metric: `${cell}: ${label(s)} vs raw etcd3`, unit: 'ops/s',
              value: x.result.opsPerSec, baseline: m.raw.result.opsPerSec, ratio,
              ...(target ? { target: '≥ 1.0x', met: ratio >= 1 } : {}),
              note: `raw etcd3 txn create_revision==0 -> put in the rounds between (load generator ${pct(m.raw.cpu.generator)}% of a core, etcd ${pct(m.raw.cpu.etcd)}%)${s === 'w1' ? `; ${cpuNote}` : ''}`,
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
      for (const s of SIDES) {
        h2[s] = new Http2ApiClient(conns[s], 1);
        cruds.h2[s] = new ServerCrud(h2[s], namespace);
        await timedLoop(async (i) => { await crud(s, 'h2').create(`${s}-h2-warm-${i}`, i); }, warm);
      }
      rowsOf(`create c=${CONCURRENCY} HTTP/2 (one session)`, await measure('create HTTP/2', (s, round) => async (i) => {
        if (s === 'raw') { await raw.create(`h2-${rawSeq++}`, i); return; }
        await crud(s, 'h2').create(`${s}-h2-${round}-${i}`, i);
      }, true), true);

      // Memory: every server holds every object it stored in its watch caches (as many as it created).
      await new Promise((r) => setTimeout(r, 3_000));
      const oneRss = processMemory(pids.w1).rss;
      for (const s of SIDES.slice(1)) {
        const workerRss = childPids(pids[s]).map((p) => processMemory(p).rss);
        const primaryRss = processMemory(pids[s]).rss;
        const total = primaryRss + workerRss.reduce((a, b) => a + b, 0);
        rows.push({
          benchmark: NAME, metric: `RSS of the whole ${label(s)} server vs the one-process server`, unit: 'MiB',
          value: mib(total), baseline: mib(oneRss), ratio: oneRss / total,
          note: `workers ${workerRss.map((b) => mib(b).toFixed(0)).join(', ')} MiB, primary ${mib(primaryRss).toFixed(0)} MiB; `
            + `holding ${names[s].length} ConfigMaps of ~1.4 KiB (one process: ${names.w1.length}); each worker holds them all`,
        });
        rows.push({
          benchmark: NAME, metric: `etcd watches held (${label(s)} vs one process)`, unit: 'watches',
          value: etcdWatches[s], baseline: etcdWatches.w1,
          note: 'one etcd watch per resource in each worker: every etcd event is decoded once per worker',
        });
      }

      // Watch fan-out: 200 watchers over 20 connections on each server, one create, time to the last watcher.
      for (const s of SIDES) {
        const latencies = await watchFanout(conns[s], namespace, `fanout-${s}`, h1[s]);
        const sum = summarize(Float64Array.from(latencies));
        rows.push({
          benchmark: NAME, metric: `watch delivery to ${WATCHERS} watchers over ${WATCH_CONNECTIONS} connections, ${label(s)} p99`, unit: 'ms',
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
