/**
 * TokenRequests as kubelets make them (issue 45): NODES node identities (`system:node:<n>`, group
 * system:nodes) ask for tokens of the `default` ServiceAccount bound to their own pods, CONCURRENCY
 * in flight in all, while an admin writer creates pods on another node at WRITES_PER_SEC, so that
 * the pods' watch cache is always a little behind etcd (as in the density benchmark). The server
 * runs with the Node authorizer and NodeRestriction. Rows: token requests' p50 and p99, their
 * throughput and the server's CPU per token request (the writer's creates included, alike on both
 * sides).
 *
 * With `--base-build=DIR` (a dist/ of another commit) and/or `--base-arg=FLAG` the base build runs
 * beside this one, each on an etcd of its own, in alternating rounds, and each row compares them;
 * without, this build alone.
 *
 *   node dist/test/bench/run.js --only=token-requests --base-build=/work/main/dist
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopResult, mergeLoops, timedLoop } from './latency';
import { CpuAccumulator } from './cpu-usage';
import { startServerProcess } from '../helpers/server-process';
import { ApiClient, ApiResponse, loadKubeconfig } from './api-client';
import { startTestEtcd } from '../helpers/etcd-harness';
import { Pki, signClientCertificate } from '../../lib/server/pki';
import { flavors } from '../../lib/naming';

const NAME = 'token-requests';
const NAMESPACE = 'bench-tokens';
const NODES = 8;
const PODS_PER_NODE = 4;
const CONCURRENCY = 32;
const WRITES_PER_SEC = 40;
const container = [{ name: 'c', image: 'registry.example.com/app:1' }];
type Side = 'base' | 'this';

interface SideState {
  admin: ApiClient;
  /** One client per node, with its identity. */
  nodes: ApiClient[];
  /** uids[node][pod] */
  uids: string[][];
  cpu: CpuAccumulator;
}

const podName = (node: number, pod: number) => `tp-${node}-${pod}`;
const tokenPath = `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/default/token`;
const tokenRequest = (node: number, pod: number, uid: string) => ({
  apiVersion: `${flavors.orch.group('authentication')}/v1`, kind: 'TokenRequest',
  spec: { audiences: ['api'], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: podName(node, pod), uid } },
});

async function expectStatus(what: string, pending: Promise<ApiResponse>, ...ok: number[]): Promise<ApiResponse> {
  const res = await pending;
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
  return res;
}

/** Creates pods on node `busy` at `perSec` until stopped; stop() waits for those in flight. */
function steadyWriter(admin: ApiClient, prefix: string, perSec: number): { stop(): Promise<number> } {
  const pending = new Set<Promise<unknown>>();
  let made = 0;
  const timer = setInterval(() => {
    const name = `${prefix}-${made++}`;
    const p = expectStatus(`create ${name}`, admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'busy', containers: container },
    }), 201).finally(() => pending.delete(p));
    pending.add(p);
  }, 1000 / perSec);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return made;
    },
  };
}

export const tokenRequestsBench: Benchmark = {
  name: NAME,
  description: `TokenRequests bound to pods, as ${NODES} kubelets (Node authorizer, NodeRestriction) at c=${CONCURRENCY} while pods are created at ${WRITES_PER_SEC}/s: p50, p99, server CPU per request; with --base-build=DIR against that build`,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const baseMain = ctx.baseBuild ? path.resolve(ctx.baseBuild, 'lib/server/main.js') : undefined;
    if (baseMain && !existsSync(baseMain)) throw new Error(`${baseMain} does not exist: --base-build names a dist/ directory`);
    const sides: Side[] = baseMain || ctx.baseArgs.length ? ['base', 'this'] : ['this'];
    const rounds = ctx.quick ? 2 : 6;
    const roundMs = ctx.quick ? 2_000 : 5_000;
    const cleanups: Array<() => Promise<unknown> | unknown> = [];
    try {
      const state = {} as Record<Side, SideState>;
      for (const side of sides) {
        const etcd = await startTestEtcd();
        cleanups.push(() => etcd.stop());
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-tokens-${side}-`));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        ctx.log(`${NAME}: starting the ${side} build's server`);
        const server = await startServerProcess([
          `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error',
          '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', ...ctx.serverArgs,
          ...(side === 'base' ? ctx.baseArgs : []),
        ], { script: side === 'base' ? baseMain : undefined, timeoutMs: 60_000, nodeArgs: [...ctx.serverNodeArgs, ...(side === 'base' ? ctx.baseNodeArgs : [])] });
        cleanups.push(() => server.stop());
        const conn = loadKubeconfig(server.kubeconfigPath);
        const admin = new ApiClient(conn, 16);
        cleanups.push(() => admin.close());
        await expectStatus('namespace', admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }), 201);
        await expectStatus('service account', admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }), 201, 409);
        const pkiDir = path.join(dataDir, 'pki');
        const pki = { caCertFile: path.join(pkiDir, 'ca.crt'), caKeyFile: path.join(pkiDir, 'ca.key'), caCertPem: conn.ca.toString('utf8') } as Pki;
        const nodes: ApiClient[] = [];
        const uids: string[][] = [];
        for (let n = 0; n < NODES; n++) {
          const id = signClientCertificate(pki, { commonName: `system:node:tn-${n}`, organizations: ['system:nodes'] });
          const client = new ApiClient({ ...conn, cert: Buffer.from(id.certPem), key: Buffer.from(id.keyPem) }, CONCURRENCY / NODES);
          cleanups.push(() => client.close());
          nodes.push(client);
          uids.push([]);
          for (let p = 0; p < PODS_PER_NODE; p++) {
            const res = await expectStatus('pod', admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, {
              apiVersion: 'v1', kind: 'Pod', metadata: { name: podName(n, p) },
              spec: { nodeName: `tn-${n}`, serviceAccountName: 'default', containers: container },
            }), 201);
            uids[n].push(JSON.parse(res.body.toString('utf8')).metadata.uid);
          }
        }
        state[side] = { admin, nodes, uids, cpu: new CpuAccumulator(server.process.pid, etcd.pid) };
        // The Node authorizer learns the pods from its watch: wait until every node may ask.
        for (let n = 0; n < NODES; n++) {
          for (let tries = 0; ; tries++) {
            const res = await nodes[n].request('POST', tokenPath, tokenRequest(n, 0, uids[n][0]));
            if (res.status === 201) break;
            if (tries > 100) throw new Error(`node tn-${n}: token request ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }
      const results = { base: [] as LoopResult[], this: [] as LoopResult[] };
      let failures = 0;
      const issue = (s: Side) => async (i: number) => {
        const n = i % NODES;
        const p = Math.floor(i / NODES) % PODS_PER_NODE;
        const res = await state[s].nodes[n].request('POST', tokenPath, tokenRequest(n, p, state[s].uids[n][p]), 'application/json', true);
        if (res.status !== 201) failures++;
      };
      // Warm both sides' code paths before measuring.
      for (const s of sides) await timedLoop(issue(s), { durationMs: 0, maxIterations: 500, minIterations: 500, concurrency: CONCURRENCY });
      for (let round = 0; round < rounds; round++) {
        for (const s of round % 2 ? [...sides].reverse() : sides) {
          ctx.log(`${NAME}: ${s}, round ${round + 1}/${rounds}`);
          const writer = steadyWriter(state[s].admin, `w-${round}`, WRITES_PER_SEC);
          state[s].cpu.start();
          results[s].push(await timedLoop(issue(s), { durationMs: roundMs, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY }));
          state[s].cpu.stop();
          await writer.stop();
        }
      }
      if (failures) throw new Error(`${failures} token requests were not 201`);
      const mine = mergeLoops(results.this);
      const base = sides.length > 1 ? mergeLoops(results.base) : undefined;
      const cpuMs = (s: Side, r: LoopResult) => ((state[s].cpu.shares().server ?? NaN) / 100 / r.opsPerSec) * 1000;
      const myCpu = cpuMs('this', mine);
      const baseCpu = base ? cpuMs('base', base) : undefined;
      const cpuNote = (s: Side) => {
        const c = state[s].cpu.shares();
        return `${s}: server ${c.server?.toFixed(0)}%, etcd ${c.etcd?.toFixed(0)}%, generator ${c.generator.toFixed(0)}% of a core`;
      };
      const note = `${mine.count}${base ? ` vs ${base.count}` : ''} requests in ${rounds} ${base ? 'alternating ' : ''}rounds of ${roundMs} ms; ${sides.map(cpuNote).join('; ')}`;
      const cmp = (value: number, baseline: number | undefined, lowerIsBetter: boolean) => (baseline === undefined ? {}
        : { baseline, ratio: lowerIsBetter ? baseline / value : value / baseline });
      return [
        { benchmark: NAME, metric: `token request p50 c=${CONCURRENCY}`, unit: 'ms', value: mine.p50, ...cmp(mine.p50, base?.p50, true), note },
        { benchmark: NAME, metric: `token request p99 c=${CONCURRENCY}`, unit: 'ms', value: mine.p99, ...cmp(mine.p99, base?.p99, true) },
        { benchmark: NAME, metric: `token requests c=${CONCURRENCY}`, unit: 'ops/s', value: mine.opsPerSec, ...cmp(mine.opsPerSec, base?.opsPerSec, false) },
        { benchmark: NAME, metric: 'server CPU per token request (with the writer\'s share)', unit: 'ms', value: myCpu, ...cmp(myCpu, baseCpu, true) },
      ];
    } finally {
      for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
    }
  },
};
