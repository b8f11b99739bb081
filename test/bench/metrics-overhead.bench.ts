/**
 * Benchmark: the cost of recording metrics on the hot path. Create and get (resourceVersion=0) of
 * 1 KiB ConfigMaps at concurrency 64 against two server processes on the benchmark's etcd, started
 * alike (test/bench/metrics-side-main.ts) but one with metrics recording and one without, in
 * interleaved rounds whose order alternates, so drift weighs on both alike. Target (issue 17):
 * with metrics ≥ 0.95x the rate without. Both run with --leader-elect=false, so both run the
 * controllers (with election the first one started would hold the lease and carry them alone).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { ServerCrud } from './crud-sides';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { loadKubeconfig } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { startServerProcess } from '../helpers/server-process';

const NAME = 'metrics-overhead';
const NAMESPACE = 'bench-metrics';
const CONCURRENCY = 64;
const ROUNDS = 6;
const TARGET = 0.95;

type Side = 'on' | 'off';
type Op = 'create' | 'get RV=0';

export const metricsOverheadBench: Benchmark = {
  name: NAME,
  description: 'create and get RV=0 at c=64 with metrics recording vs a server without (same etcd, interleaved rounds)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const setup = ctx.env.apiClient(4);
    await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    // Two fresh processes with the same flags (neither holds the benchmark server's Lease: no
    // controllers run in either), differing only in metrics recording.
    const dataDirs: string[] = [];
    const servers: Awaited<ReturnType<typeof startServerProcess>>[] = [];
    const clients: Http2ApiClient[] = [];
    const sides = {} as Record<Side, ServerCrud>;
    try {
      for (const side of ['on', 'off'] as Side[]) {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-metrics-${side}-`));
        dataDirs.push(dataDir);
        const server = await startServerProcess([`metrics=${side}`, `--etcd-servers=${ctx.env.etcdEndpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', '--leader-elect=false'],
          { script: path.join(__dirname, 'metrics-side-main.js') });
        servers.push(server);
        const client = new Http2ApiClient(loadKubeconfig(server.kubeconfigPath), 1);
        clients.push(client);
        sides[side] = new ServerCrud(client, NAMESPACE);
      }
      const names: Record<Side, string[]> = { on: [], off: [] };
      ctx.log(`${NAME}: warming up both servers`);
      for (const side of ['on', 'off'] as Side[]) await loop(sides[side], side, 'create', names[side], -1, { durationMs: 0, maxIterations: 500, minIterations: 500, concurrency: 16 });
      const rows: ResultRow[] = [];
      for (const op of ['create', 'get RV=0'] as Op[]) {
        const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
        const results: Record<Side, LoopResult[]> = { on: [], off: [] };
        for (let round = 0; round < rounds; round++) {
          const order: Side[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
          for (const side of order) {
            ctx.log(`${NAME}: ${op} c=${CONCURRENCY}, round ${round + 1}/${rounds}, metrics ${side}`);
            results[side].push(await loop(sides[side], side, op, names[side], round, perRound));
          }
        }
        rows.push(...rowsOf(op, mergeLoops(results.on), mergeLoops(results.off)));
      }
      return rows;
    } finally {
      for (const c of clients) c.close();
      for (const server of servers) await server.stop();
      for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
    }
  },
};

async function loop(crud: ServerCrud, side: Side, op: Op, names: string[], round: number, opts: LoopOptions): Promise<LoopResult> {
  if (op === 'create') {
    return timedLoop(async (i) => {
      const name = `${side}-${round + 1}-${i}`;
      await crud.create(name, i);
      names.push(name);
    }, opts);
  }
  return timedLoop((i) => crud.get(names[i % names.length], true), opts);
}

function rowsOf(op: Op, on: LoopResult, off: LoopResult): ResultRow[] {
  const label = `${op} c=${CONCURRENCY}`;
  const ratio = on.opsPerSec / off.opsPerSec;
  return [
    {
      benchmark: NAME, metric: `${label} throughput with metrics`, unit: 'ops/s', value: on.opsPerSec, baseline: off.opsPerSec, ratio,
      ...target(`≥ ${TARGET}x`, ratio >= TARGET), note: `${on.count} vs ${off.count} ops; baseline: the same server without metrics recording`,
    },
    { benchmark: NAME, metric: `${label} p50 with metrics`, unit: 'ms', value: on.p50, baseline: off.p50, ratio: off.p50 / on.p50 },
    { benchmark: NAME, metric: `${label} p99 with metrics`, unit: 'ms', value: on.p99, baseline: off.p99, ratio: off.p99 / on.p99 },
  ];
}
