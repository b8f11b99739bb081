/**
 * Benchmark quota: ConfigMap creates at c=64 (HTTP/2) in a namespace with a ResourceQuota on
 * count/configmaps (high enough never to refuse) against the same in a namespace without, in
 * alternating rounds on one server. Every create under the quota is charged to the quota's status
 * with a compare-and-swap before the object is written; concurrent creates of one namespace share
 * one charge (evaluate.ts batches them). Issue 41's target: at least 0.8x.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops } from './latency';
import { LoadWorkers } from './load-worker';

const NAME = 'quota';
const PLAIN = 'bench-unquoted';
const QUOTED = 'bench-quoted';
const ROUNDS = 4;
const GENERATOR_THREADS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const createBody = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'made-' }, data: { payload: 'x'.repeat(256) } };
const collection = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

export const quotaBench: Benchmark = {
  name: NAME,
  description: 'create at c=64 in a namespace with a ResourceQuota (count/configmaps) vs one without',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.apiClient(4);
    for (const name of [PLAIN, QUOTED]) {
      const res = await admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      if (res.status !== 201) throw new Error(`creating namespace ${name}: ${res.status}`);
    }
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'objects' }, spec: { hard: { 'count/configmaps': '100000000' } } };
    const made = await admin.request('POST', `/api/v1/namespaces/${QUOTED}/resourcequotas`, quota);
    if (made.status !== 201) throw new Error(`creating the quota: ${made.status} ${made.body.toString('utf8').slice(0, 200)}`);
    // The controller fills the status (the plugin ignores a quota until then).
    for (let i = 0; ; i++) {
      const got = await admin.request('GET', `/api/v1/namespaces/${QUOTED}/resourcequotas/objects`);
      if (JSON.parse(got.body.toString('utf8')).status?.used) break;
      if (i > 100) throw new Error('the quota controller never filled the quota status');
      await sleep(100);
    }
    const c = 64;
    const sides = {
      plain: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(PLAIN)], createBody }),
      quoted: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(QUOTED)], createBody }),
    };
    try {
      ctx.log(`${NAME}: create c=${c} under a ResourceQuota vs none: warming up`);
      const warm = { durationMs: 0, maxIterations: 1000, minIterations: 1000, concurrency: c };
      await sides.plain.loop(warm);
      await sides.quoted.loop(warm);
      const cellMs = ctx.quick ? 2_000 : 8_000;
      const rounds = ctx.quick ? 1 : ROUNDS;
      const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: c, concurrency: c };
      const results = { plain: [] as LoopResult[], quoted: [] as LoopResult[] };
      for (let round = 0; round < rounds; round++) {
        results.plain.push(await sides.plain.loop(loop));
        results.quoted.push(await sides.quoted.loop(loop));
      }
      const plain = mergeLoops(results.plain);
      const quoted = mergeLoops(results.quoted);
      const got = await admin.request('GET', `/api/v1/namespaces/${QUOTED}/resourcequotas/objects`);
      const used = JSON.parse(got.body.toString('utf8')).status?.used?.['count/configmaps'];
      const ratio = quoted.opsPerSec / plain.opsPerSec;
      const metric = `create c=${c} HTTP/2 under a ResourceQuota vs none`;
      return [
        { benchmark: NAME, metric: `${metric} throughput`, unit: 'ops/s', value: quoted.opsPerSec, baseline: plain.opsPerSec, ratio, ...target('≥ 0.8x', ratio >= 0.8),
          note: `${quoted.count} vs ${plain.count} creates; quota used ${used}` },
        { benchmark: NAME, metric: `${metric} p50`, unit: 'ms', value: quoted.p50, baseline: plain.p50, ratio: plain.p50 / quoted.p50 },
        { benchmark: NAME, metric: `${metric} p99`, unit: 'ms', value: quoted.p99, baseline: plain.p99, ratio: plain.p99 / quoted.p99 },
      ];
    } finally {
      await sides.plain.close();
      await sides.quoted.close();
    }
  },
};
