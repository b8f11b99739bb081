/**
 * Benchmark etcd-client: the storage layer alone (Etcd3Storage, no HTTP, no server), once on the
 * lean client written here and once on the etcd3 npm package (`--etcd-client=etcd3`), in this
 * process against the benchmark's etcd: create and get of 1 KiB values at concurrency 64, the two
 * clients in alternating rounds (as crud.bench.ts alternates the server and raw etcd3), so that
 * etcd's growing database and the machine's other load weigh on both alike.
 *
 * Rows: throughput (value: etcd3, baseline: lean, ratio etcd3/lean) and this process's CPU time
 * per operation, which is the client's own cost (the reason the lean client exists), with the
 * ratio etcd3/lean too. This is the "ratio of the two"; the faster one is the default.
 *
 * Then the same for the whole server: a second server process on the same etcd with
 * `--etcd-client=etcd3` next to the environment's (lean, the default), ConfigMap creates over
 * HTTPS (HTTP/2) at c=64 on each in alternating rounds, with each server's CPU per create.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { CpuAccumulator, CpuShares } from './cpu-usage';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { createEtcdKv } from '../../lib/storage/etcd3/kv-factory';
import type { EtcdClientKind } from '../../lib/config';
import { startServerProcess } from '../helpers/server-process';
import { loadKubeconfig } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { ServerCrud } from './crud-sides';

const NAME = 'etcd-client';
const CONCURRENCY = 64;
const ROUNDS = 4;
const KINDS: EtcdClientKind[] = ['lean', 'etcd3'];
type Op = 'create' | 'get';

interface Measured { result: LoopResult; cpu: CpuShares }

export const etcdClientBench: Benchmark = {
  name: NAME,
  description: 'the storage layer alone on the lean etcd client vs the etcd3 package: create/get of 1 KiB at c=64, alternating rounds',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const value = Buffer.alloc(1024, 'v');
    const storages = Object.fromEntries(KINDS.map((k) => [k, new Etcd3Storage(createEtcdKv(k, { endpoints: [ctx.env.etcdEndpoint] }))])) as Record<EtcdClientKind, Etcd3Storage>;
    const keys: Record<EtcdClientKind, string[]> = { lean: [], etcd3: [] };
    const prefix = (k: EtcdClientKind) => `/bench-etcd-client/${k}/`;
    try {
      // Warm-up: connections and JIT on both sides.
      for (const k of KINDS) {
        await timedLoop(async (i) => { await storages[k].create(`${prefix(k)}warm-${i}`, value); }, { durationMs: 0, maxIterations: 500, minIterations: 500, concurrency: 16 });
      }
      const rows: ResultRow[] = [];
      for (const op of ['create', 'get'] as Op[]) {
        const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
        const results: Record<EtcdClientKind, LoopResult[]> = { lean: [], etcd3: [] };
        const cpu = Object.fromEntries(KINDS.map((k) => [k, new CpuAccumulator(undefined, ctx.env.etcdPid)])) as Record<EtcdClientKind, CpuAccumulator>;
        for (let round = 0; round < rounds; round++) {
          // Alternate which side goes first, too.
          for (const k of round % 2 ? [...KINDS].reverse() : KINDS) {
            ctx.log(`${NAME}: ${op} c=${CONCURRENCY}, ${k}, round ${round + 1}/${rounds}`);
            const s = storages[k];
            const ks = keys[k];
            cpu[k].start();
            const r = op === 'create'
              ? await timedLoop(async (i) => {
                const key = `${prefix(k)}${round}-${i}`;
                const res = await s.create(key, value);
                if (!res.ok) throw new Error(`create of ${key} lost its compare`);
                ks.push(key);
              }, perRound)
              : await timedLoop(async (i) => {
                const got = await s.get(ks[i % ks.length]);
                if (!got.kv) throw new Error('a created key is missing');
              }, perRound);
            cpu[k].stop();
            results[k].push(r);
          }
        }
        rows.push(...rowsOf(op, { lean: { result: mergeLoops(results.lean), cpu: cpu.lean.shares() }, etcd3: { result: mergeLoops(results.etcd3), cpu: cpu.etcd3.shares() } }));
      }
      for (const k of KINDS) await storages[k].close();
      rows.push(...await serverRows(ctx, cellMs, rounds));
      return rows;
    } finally {
      for (const k of KINDS) await storages[k].close().catch(() => undefined);
    }
  },
};

/** Creates at c=64 through the environment's server (lean) and a second one on --etcd-client=etcd3. */
async function serverRows(ctx: BenchContext, cellMs: number, rounds: number): Promise<ResultRow[]> {
  const namespace = 'bench-etcd-client';
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'orch-bench-etcd3-'));
  const cleanups: Array<() => Promise<unknown> | unknown> = [() => rm(dataDir, { recursive: true, force: true })];
  try {
    ctx.log(`${NAME}: starting a second server with --etcd-client=etcd3`);
    const other = await startServerProcess([
      `--etcd-servers=${ctx.env.etcdEndpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', '--etcd-client=etcd3',
    ]);
    cleanups.push(() => other.stop());
    const lean = ctx.env.http2ApiClient(1);
    const etcd3 = new Http2ApiClient(loadKubeconfig(other.kubeconfigPath), 1);
    cleanups.push(() => etcd3.close());
    await ctx.env.apiClient(1).json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const sides = { lean: new ServerCrud(lean, namespace), etcd3: new ServerCrud(etcd3, namespace) };
    const pids = { lean: ctx.env.serverPid, etcd3: other.process.pid };
    const warm = { durationMs: 0, maxIterations: 300, minIterations: 300, concurrency: 16 };
    for (const k of KINDS) await timedLoop(async (i) => { await sides[k].create(`${k}-warm-${i}`, i); }, warm);
    const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
    const results: Record<EtcdClientKind, LoopResult[]> = { lean: [], etcd3: [] };
    const cpu = { lean: new CpuAccumulator(pids.lean, ctx.env.etcdPid), etcd3: new CpuAccumulator(pids.etcd3, ctx.env.etcdPid) };
    for (let round = 0; round < rounds; round++) {
      for (const k of round % 2 ? [...KINDS].reverse() : KINDS) {
        ctx.log(`${NAME}: server create c=${CONCURRENCY}, ${k}, round ${round + 1}/${rounds}`);
        cpu[k].start();
        results[k].push(await timedLoop(async (i) => { await sides[k].create(`${k}-${round}-${i}`, i); }, perRound));
        cpu[k].stop();
      }
    }
    const m = { lean: { result: mergeLoops(results.lean), cpu: cpu.lean.shares() }, etcd3: { result: mergeLoops(results.etcd3), cpu: cpu.etcd3.shares() } };
    const serverMs = (x: Measured) => ((x.cpu.server ?? NaN) / 100) / x.result.opsPerSec * 1000;
    const label = `server create c=${CONCURRENCY}`;
    return [
      {
        benchmark: NAME, metric: `${label}: etcd3/lean throughput`, unit: 'ops/s',
        value: m.etcd3.result.opsPerSec, baseline: m.lean.result.opsPerSec, ratio: m.etcd3.result.opsPerSec / m.lean.result.opsPerSec,
        note: `ConfigMap POST over HTTP/2; ${m.etcd3.result.count} vs ${m.lean.result.count} ops; CPU % of a core: server etcd3 ${pct(m.etcd3.cpu.server)} / lean ${pct(m.lean.cpu.server)}, `
          + `etcd ${pct(m.etcd3.cpu.etcd)} / ${pct(m.lean.cpu.etcd)}, load generator ${pct(m.etcd3.cpu.generator)} / ${pct(m.lean.cpu.generator)}`,
      },
      {
        benchmark: NAME, metric: `${label}: etcd3/lean server CPU per op`, unit: 'ms',
        value: serverMs(m.etcd3), baseline: serverMs(m.lean), ratio: serverMs(m.etcd3) / serverMs(m.lean),
        note: 'CPU time of the server process per create; ratio > 1: the server on the etcd3 package costs more',
      },
    ];
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
  }
}

/** CPU milliseconds of this process per completed operation. */
const cpuMsPerOp = (m: Measured) => (m.cpu.generator / 100) / m.result.opsPerSec * 1000;
const pct = (share: number | undefined) => share?.toFixed(0) ?? '?';

function rowsOf(op: Op, m: Record<EtcdClientKind, Measured>): ResultRow[] {
  const label = `storage ${op} c=${CONCURRENCY}`;
  const note = `${m.etcd3.result.count} vs ${m.lean.result.count} ops; CPU % of a core: client process etcd3 ${pct(m.etcd3.cpu.generator)} / lean ${pct(m.lean.cpu.generator)}, `
    + `etcd ${pct(m.etcd3.cpu.etcd)} / ${pct(m.lean.cpu.etcd)}`;
  const leanCpu = cpuMsPerOp(m.lean);
  const etcd3Cpu = cpuMsPerOp(m.etcd3);
  return [
    {
      benchmark: NAME, metric: `${label}: etcd3/lean throughput`, unit: 'ops/s',
      value: m.etcd3.result.opsPerSec, baseline: m.lean.result.opsPerSec, ratio: m.etcd3.result.opsPerSec / m.lean.result.opsPerSec, note,
    },
    {
      benchmark: NAME, metric: `${label}: etcd3/lean client CPU per op`, unit: 'ms',
      value: etcd3Cpu, baseline: leanCpu, ratio: etcd3Cpu / leanCpu,
      note: 'CPU time of the process running the storage layer per operation; ratio > 1: the etcd3 package costs more',
    },
    {
      benchmark: NAME, metric: `${label}: etcd3/lean p99`, unit: 'ms',
      value: m.etcd3.result.p99, baseline: m.lean.result.p99, ratio: m.etcd3.result.p99 / m.lean.result.p99,
    },
  ];
}
