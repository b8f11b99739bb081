/**
 * Benchmark: the cost of API priority and fairness on the get path. Gets (resourceVersion=0) of
 * 1 KiB ConfigMaps at concurrency 64 against two server processes on the benchmark's etcd, started
 * alike but one with priority and fairness (the default) and one with
 * --enable-priority-and-fairness=false (the plain in-flight limits), in interleaved rounds whose
 * order alternates, so drift weighs on both alike. Target (issue 41): with APF ≥ 0.95x the rate
 * without. The client is the benchmark's admin (system:masters): every get is classified (the
 * cached classification, headers, metrics) and dispatched by the exempt level; the queue sets'
 * path is not measured here.
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

const NAME = 'apf';
const NAMESPACE = 'bench-apf';
const CONCURRENCY = 64;
const ROUNDS = 6;
const TARGET = 0.95;
const OBJECTS = 500;

type Side = 'on' | 'off';

export const apfBench: Benchmark = {
  name: NAME,
  description: 'get RV=0 at c=64 with API priority and fairness vs --enable-priority-and-fairness=false (same etcd, interleaved rounds)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const setup = ctx.env.apiClient(4);
    await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const dataDirs: string[] = [];
    const servers: Awaited<ReturnType<typeof startServerProcess>>[] = [];
    const clients: Http2ApiClient[] = [];
    const sides = {} as Record<Side, ServerCrud>;
    try {
      for (const side of ['on', 'off'] as Side[]) {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-apf-${side}-`));
        dataDirs.push(dataDir);
        const server = await startServerProcess([`--enable-priority-and-fairness=${side === 'on'}`, `--etcd-servers=${ctx.env.etcdEndpoint}`,
          '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', '--leader-elect=false']);
        servers.push(server);
        const client = new Http2ApiClient(loadKubeconfig(server.kubeconfigPath), 1);
        clients.push(client);
        sides[side] = new ServerCrud(client, NAMESPACE);
      }
      const names: string[] = [];
      ctx.log(`${NAME}: creating ${OBJECTS} ConfigMaps`);
      await timedLoop(async (i) => { await sides.off.create(`cm-${i}`, i); names.push(`cm-${i}`); },
        { durationMs: 0, maxIterations: OBJECTS, minIterations: OBJECTS, concurrency: 16 });
      ctx.log(`${NAME}: warming up both servers`);
      for (const side of ['on', 'off'] as Side[]) await getLoop(sides[side], names, { durationMs: 0, maxIterations: 2000, minIterations: 2000, concurrency: 16 });
      const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
      const results: Record<Side, LoopResult[]> = { on: [], off: [] };
      for (let round = 0; round < rounds; round++) {
        const order: Side[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        for (const side of order) {
          ctx.log(`${NAME}: get RV=0 c=${CONCURRENCY}, round ${round + 1}/${rounds}, APF ${side}`);
          results[side].push(await getLoop(sides[side], names, perRound));
        }
      }
      return rowsOf(mergeLoops(results.on), mergeLoops(results.off));
    } finally {
      for (const c of clients) c.close();
      for (const server of servers) await server.stop();
      for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
    }
  },
};

function getLoop(crud: ServerCrud, names: string[], opts: LoopOptions): Promise<LoopResult> {
  return timedLoop((i) => crud.get(names[i % names.length], true), opts);
}

function rowsOf(on: LoopResult, off: LoopResult): ResultRow[] {
  const label = `get RV=0 c=${CONCURRENCY}`;
  const ratio = on.opsPerSec / off.opsPerSec;
  return [
    {
      benchmark: NAME, metric: `${label} throughput with APF`, unit: 'ops/s', value: on.opsPerSec, baseline: off.opsPerSec, ratio,
      ...target(`≥ ${TARGET}x`, ratio >= TARGET), note: `${on.count} vs ${off.count} ops; baseline: the same server with --enable-priority-and-fairness=false`,
    },
    { benchmark: NAME, metric: `${label} p50 with APF`, unit: 'ms', value: on.p50, baseline: off.p50, ratio: off.p50 / on.p50 },
    { benchmark: NAME, metric: `${label} p99 with APF`, unit: 'ms', value: on.p99, baseline: off.p99, ratio: off.p99 / on.p99 },
  ];
}
