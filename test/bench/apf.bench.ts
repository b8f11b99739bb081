/**
 * Benchmark: the cost of API priority and fairness on the get path. Gets (resourceVersion=0) of
 * 1 KiB ConfigMaps at concurrency 64 against two server processes on the benchmark's etcd, started
 * alike but one with priority and fairness (the default) and one with
 * --enable-priority-and-fairness=false (the plain in-flight limits), in interleaved rounds whose
 * order alternates, so drift weighs on both alike. Target (issue 41): with APF ≥ 0.95x the rate
 * without. Two clients: the benchmark's admin (system:masters: classified, then dispatched by the
 * exempt level) and a user outside system:masters bound to cluster-admin, whose gets land in the
 * `global-default` level (49 of the 600 seats with the default flags) and go through its queue set:
 * the path an ordinary client's requests take.
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
import { Pki, signClientCertificate } from '../../lib/server/pki';
import { BORROWING_ADJUSTMENT_PERIOD_MS } from '../../lib/flowcontrol/concurrency';

const NAME = 'apf';
const NAMESPACE = 'bench-apf';
const CONCURRENCY = 64;
const ROUNDS = 6;
const TARGET = 0.95;
const OBJECTS = 500;

type Side = 'on' | 'off';
type Who = 'masters' | 'user';
const USER = 'apf-bench-user';
const USER_LEVEL = 'global-default';

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
    const sides = {} as Record<Who, Record<Side, ServerCrud>>;
    sides.masters = {} as Record<Side, ServerCrud>;
    sides.user = {} as Record<Side, ServerCrud>;
    try {
      for (const side of ['on', 'off'] as Side[]) {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-apf-${side}-`));
        dataDirs.push(dataDir);
        const server = await startServerProcess([`--enable-priority-and-fairness=${side === 'on'}`, `--etcd-servers=${ctx.env.etcdEndpoint}`,
          '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', '--leader-elect=false'], { nodeArgs: ctx.serverNodeArgs });
        servers.push(server);
        const conn = loadKubeconfig(server.kubeconfigPath);
        const client = new Http2ApiClient(conn, 1);
        clients.push(client);
        sides.masters[side] = new ServerCrud(client, NAMESPACE);
        const bound = await client.request('POST', '/apis/rbac.authorization.orch.io/v1/clusterrolebindings', {
          metadata: { name: 'apf-bench-user' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: USER }],
        });
        if (bound.status !== 201 && bound.status !== 409) throw new Error(`binding: ${bound.status}`);
        const pkiDir = path.join(dataDir, 'pki');
        const pki = { caCertFile: path.join(pkiDir, 'ca.crt'), caKeyFile: path.join(pkiDir, 'ca.key'), caCertPem: conn.ca.toString('utf8') } as Pki;
        const id = signClientCertificate(pki, { commonName: USER, organizations: ['apf-benchers'] });
        const userClient = new Http2ApiClient({ ...conn, cert: Buffer.from(id.certPem), key: Buffer.from(id.keyPem) }, 1);
        clients.push(userClient);
        sides.user[side] = new ServerCrud(userClient, NAMESPACE);
      }
      const names: string[] = [];
      ctx.log(`${NAME}: creating ${OBJECTS} ConfigMaps`);
      await timedLoop(async (i) => { await sides.masters.off.create(`cm-${i}`, i); names.push(`cm-${i}`); },
        { durationMs: 0, maxIterations: OBJECTS, minIterations: OBJECTS, concurrency: 16 });
      ctx.log(`${NAME}: warming up both servers`);
      for (const who of ['masters', 'user'] as Who[]) {
        for (const side of ['on', 'off'] as Side[]) {
          // The binding reaches the RBAC index of each server within a moment.
          for (let i = 0; ; i++) {
            try { await sides[who][side].get(names[0], true); break; } catch (err) { if (i > 100) throw err; await new Promise((r) => setTimeout(r, 100)); }
          }
          await getLoop(sides[who][side], names, { durationMs: 0, maxIterations: 2000, minIterations: 2000, concurrency: 16 });
        }
      }
      const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
      const rows: ResultRow[] = [];
      const onAdmin = clients[0];
      let limits = '';
      for (const who of ['masters', 'user'] as Who[]) {
        if (who === 'user') {
          // A level's seats follow its demand: every 10 s (kube's borrowing adjustment period) the
          // levels are given seats by their seat demand over the period, and global-default may
          // borrow what idle levels lend. A client that keeps 64 requests going meets the level
          // after such a round, so both servers first carry this load for one period (the off
          // side alike, so both are equally warm); the rows say the limit before and after.
          const before = await currentLimit(onAdmin, USER_LEVEL);
          ctx.log(`${NAME}: get RV=0 c=${CONCURRENCY} as ${who}: one borrowing period of load on both servers (${USER_LEVEL} at ${before} seats)`);
          const warm: LoopOptions = { durationMs: BORROWING_ADJUSTMENT_PERIOD_MS + 1_000, maxIterations: 10_000_000, minIterations: 0, concurrency: CONCURRENCY };
          for (const side of ['on', 'off'] as Side[]) await getLoop(sides[who][side], names, warm);
          limits = `; ${USER_LEVEL} seats: ${before} before one period of this load, ${await currentLimit(onAdmin, USER_LEVEL)} after`;
        }
        const results: Record<Side, LoopResult[]> = { on: [], off: [] };
        for (let round = 0; round < rounds; round++) {
          const order: Side[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
          for (const side of order) {
            ctx.log(`${NAME}: get RV=0 c=${CONCURRENCY} as ${who}, round ${round + 1}/${rounds}, APF ${side}`);
            results[side].push(await getLoop(sides[who][side], names, perRound));
          }
        }
        if (who === 'user') limits += `, ${await currentLimit(onAdmin, USER_LEVEL)} at the end; ${await waitedInQueue(onAdmin, USER_LEVEL)} of its requests waited in a queue`;
        rows.push(...rowsOf(who, mergeLoops(results.on), mergeLoops(results.off), who === 'user' ? limits : ''));
      }
      return rows;
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

/** A priority level's current limit (seats, after borrowing) from the server's /metrics. */
async function currentLimit(client: Http2ApiClient, level: string): Promise<string> {
  const res = await client.request('GET', '/metrics');
  const line = res.body.toString('utf8').split('\n').find((l) => l.startsWith(`apiserver_flowcontrol_current_limit_seats{priority_level="${level}"}`));
  return line?.split(' ').pop() ?? '?';
}

/** How many requests of a level's flow schema of the same name waited in a queue (the queue-length histogram's count). */
async function waitedInQueue(client: Http2ApiClient, level: string): Promise<string> {
  const res = await client.request('GET', '/metrics');
  const prefix = `apiserver_flowcontrol_request_queue_length_after_enqueue_count{priority_level="${level}",flow_schema="${level}"}`;
  const line = res.body.toString('utf8').split('\n').find((l) => l.startsWith(prefix));
  return line?.split(' ').pop() ?? '0';
}

function rowsOf(who: Who, on: LoopResult, off: LoopResult, limits: string): ResultRow[] {
  const label = `get RV=0 c=${CONCURRENCY} ${who === 'masters' ? 'as system:masters (exempt level)' : 'as a user (global-default level, queued)'}`;
  const ratio = on.opsPerSec / off.opsPerSec;
  return [
    {
      benchmark: NAME, metric: `${label} throughput with APF`, unit: 'ops/s', value: on.opsPerSec, baseline: off.opsPerSec, ratio,
      ...target(`≥ ${TARGET}x`, ratio >= TARGET), note: `${on.count} vs ${off.count} ops; baseline: the same server with --enable-priority-and-fairness=false${limits}`,
    },
    { benchmark: NAME, metric: `${label} p50 with APF`, unit: 'ms', value: on.p50, baseline: off.p50, ratio: off.p50 / on.p50 },
    { benchmark: NAME, metric: `${label} p99 with APF`, unit: 'ms', value: on.p99, baseline: off.p99, ratio: off.p99 / on.p99 },
  ];
}
