/**
 * Benchmark: the cost of encryption at rest. Create and get (a consistent read) of Secrets with a
 * 1 KiB value at concurrency 64 against two server processes on the benchmark's etcd, started
 * alike except for the --encryption-provider-config given to each: secrets by aesgcm (32-byte
 * key) on one, by identity (the same storage wrapper, no cipher) on the other, each under its own
 * --etcd-prefix (the two could not read each other's Secrets). Interleaved
 * rounds whose order alternates, as metrics-overhead does. A create encrypts once (and the
 * watch cache decrypts the event once); a get is served from the watch cache, which holds
 * plaintext, so it should cost nothing extra. No target: the figure is reported.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { loadKubeconfig } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { startServerProcess } from '../helpers/server-process';

const NAME = 'encryption';
const NAMESPACE = 'bench-encryption';
const CONCURRENCY = 64;
const ROUNDS = 6;
const PAYLOAD = Buffer.alloc(1024, 'x').toString('base64');

type Side = 'aesgcm' | 'identity';
type Op = 'create' | 'get';

function providers(side: Side): unknown[] {
  return side === 'aesgcm' ? [{ aesgcm: { keys: [{ name: 'bench', secret: Buffer.alloc(32, 7).toString('base64') }] } }] : [{ identity: {} }];
}

export const encryptionBench: Benchmark = {
  name: NAME,
  description: 'create and get of Secrets at c=64, secrets encrypted by aesgcm vs identity (same etcd, interleaved rounds)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const dirs: string[] = [];
    const servers: Awaited<ReturnType<typeof startServerProcess>>[] = [];
    const clients = {} as Record<Side, Http2ApiClient>;
    try {
      for (const side of ['aesgcm', 'identity'] as Side[]) {
        const dir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-enc-${side}-`));
        dirs.push(dir);
        const config = path.join(dir, 'encryption.json');
        await writeFile(config, JSON.stringify({
          apiVersion: 'apiserver.config.orch.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers: providers(side) }],
        }));
        const server = await startServerProcess([`--etcd-servers=${ctx.env.etcdEndpoint}`, '--secure-port=0', `--data-dir=${path.join(dir, 'data')}`,
          '--log-level=error', '--leader-elect=false', `--encryption-provider-config=${config}`,
          // Each under its own prefix: neither can read the other's Secrets (identity refuses encrypted data, aesgcm plaintext).
          `--etcd-prefix=/bench-encryption-${side}`]);
        servers.push(server);
        clients[side] = new Http2ApiClient(loadKubeconfig(server.kubeconfigPath), 1);
        const ns = await clients[side].request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
        if (ns.status !== 201) throw new Error(`creating namespace ${NAMESPACE}: ${ns.status}`);
      }
      const names: Record<Side, string[]> = { aesgcm: [], identity: [] };
      ctx.log(`${NAME}: warming up both servers`);
      for (const side of ['aesgcm', 'identity'] as Side[]) await loop(clients[side], side, 'create', names[side], -1, { durationMs: 0, maxIterations: 500, minIterations: 500, concurrency: 16 });
      const rows: ResultRow[] = [];
      for (const op of ['create', 'get'] as Op[]) {
        const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
        const results: Record<Side, LoopResult[]> = { aesgcm: [], identity: [] };
        for (let round = 0; round < rounds; round++) {
          const order: Side[] = round % 2 === 0 ? ['identity', 'aesgcm'] : ['aesgcm', 'identity'];
          for (const side of order) {
            ctx.log(`${NAME}: ${op} c=${CONCURRENCY}, round ${round + 1}/${rounds}, ${side}`);
            results[side].push(await loop(clients[side], side, op, names[side], round, perRound));
          }
        }
        const enc = mergeLoops(results.aesgcm);
        const plain = mergeLoops(results.identity);
        const label = `Secret ${op} c=${CONCURRENCY}`;
        rows.push(
          { benchmark: NAME, metric: `${label} throughput aesgcm`, unit: 'ops/s', value: enc.opsPerSec, baseline: plain.opsPerSec, ratio: enc.opsPerSec / plain.opsPerSec,
            note: `${enc.count} vs ${plain.count} ops; baseline: the same server with secrets by identity` },
          { benchmark: NAME, metric: `${label} p50 aesgcm`, unit: 'ms', value: enc.p50, baseline: plain.p50, ratio: plain.p50 / enc.p50 },
          { benchmark: NAME, metric: `${label} p99 aesgcm`, unit: 'ms', value: enc.p99, baseline: plain.p99, ratio: plain.p99 / enc.p99 },
        );
      }
      return rows;
    } finally {
      for (const c of Object.values(clients)) c.close();
      for (const server of servers) await server.stop();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  },
};

async function loop(client: Http2ApiClient, side: Side, op: Op, names: string[], round: number, opts: LoopOptions): Promise<LoopResult> {
  const base = `/api/v1/namespaces/${NAMESPACE}/secrets`;
  const expect = async (method: string, p: string, body: unknown, status: number) => {
    const res = await client.request(method, p, body);
    if (res.status !== status) throw new Error(`${method} ${p}: ${res.status}, want ${status}: ${res.body.toString('utf8').slice(0, 300)}`);
  };
  if (op === 'create') {
    return timedLoop(async (i) => {
      const name = `${side}-${round + 1}-${i}`;
      await expect('POST', base, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: { payload: PAYLOAD } }, 201);
      names.push(name);
    }, opts);
  }
  return timedLoop((i) => expect('GET', `${base}/${names[i % names.length]}`, undefined, 200), opts);
}
