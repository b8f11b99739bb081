/**
 * Overload at 4x capacity (loopback only, bounded in time): as a client-certificate user outside
 * system:masters (so the in-flight limits apply, at their defaults 400/200),
 *  1. capacity C: creates/s of 1 KiB-class ConfigMaps at c=64 over HTTP/2 (closed loop);
 *  2. an open loop offering 4 x C creates/s for 25 s (10 s with --quick) from two worker threads;
 *     meanwhile /healthz is probed every 50 ms on a connection of its own and the server's RSS
 *     sampled;
 *  3. when the offering stops, a create is tried every 20 ms until one succeeds.
 * Reported: the share of 429s among answers, the creates that succeeded per second against C,
 * /healthz p50/p99 under load, peak RSS against the RSS before, the time to the first successful
 * create after the load, and answers other than 201/429 (should be none).
 */
import http2 from 'node:http2';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoadWorkers } from './load-worker';
import { Http2ApiClient } from './http2-api-client';
import { processMemory } from './process-memory';
import { OpenLoopResult, startOpenLoop } from './open-loop-worker';

const NAME = 'load-4x';
const NS = 'load';
const USER = 'loader';
const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'load-' }, data: { payload: 'x'.repeat(1000) } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;

function quantile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

async function run(ctx: BenchContext): Promise<ResultRow[]> {
  const { env } = ctx;
  const admin = env.http2ApiClient(1);
  const must = async (p: Promise<{ status: number; body: Buffer }>, want: number, what: string) => {
    const r = await p;
    if (r.status !== want) throw new Error(`${what}: ${r.status} ${r.body.toString('utf8').slice(0, 200)}`);
  };
  await must(admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201, 'namespace');
  await must(admin.request('POST', '/apis/rbac.authorization.orch.io/v1/clusterrolebindings', {
    metadata: { name: 'loader-admin' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: USER }],
  }), 201, 'binding');
  const loaderConn = env.connectionAs(USER, ['load-testers']);
  const loader = new Http2ApiClient(loaderConn, 1);
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  // The RBAC index catches up with the binding.
  for (let i = 0; (await loader.request('GET', path)).status !== 200; i++) {
    if (i > 100) throw new Error('the loader is not authorized');
    await sleep(100);
  }

  // 1. Capacity.
  const workers = new LoadWorkers(2, { conn: loaderConn, transport: 'HTTP/2', paths: [path], createBody: body });
  let capacity: number;
  try {
    await workers.loop({ durationMs: 1_000, minIterations: 64, maxIterations: 100_000, concurrency: 64 });
    const cap = await workers.loop({ durationMs: ctx.quick ? 3_000 : 6_000, minIterations: 64, maxIterations: 1_000_000, concurrency: 64 });
    capacity = cap.opsPerSec;
  } finally {
    await workers.close();
  }
  ctx.log(`${NAME}: capacity ${capacity.toFixed(0)} creates/s at c=64`);

  // 2. 4x capacity, open loop.
  const durationMs = ctx.quick ? 10_000 : 25_000;
  const rssBefore = processMemory(env.serverPid).rss;
  const loops = [0, 1].map(() => startOpenLoop({
    // At most ~800 requests outstanding per connection, under the server's 1,000 streams: as Go's
    // transport (client-go) opens another connection when one is full, instead of having its
    // streams refused and its session closed for it.
    conn: loaderConn, path, body, ratePerSec: 2 * capacity, durationMs, sessions: 20, maxOutstanding: 16_000, drainMs: 20_000,
  }));
  const probe = http2.connect(env.server.url, { ca: env.server.ca, cert: env.server.cert, key: env.server.key });
  probe.on('error', () => undefined);
  const healthz: number[] = [];
  let healthFailures = 0;
  let peakRss = rssBefore;
  let loading = true;
  const probing = (async () => {
    while (loading) {
      const t0 = performance.now();
      const status = await new Promise<number>((resolve) => {
        const req = probe.request({ ':path': '/healthz' });
        let s = 0;
        req.on('response', (h) => { s = Number(h[':status']); });
        req.on('end', () => resolve(s));
        req.on('error', () => resolve(-1));
        req.setTimeout(10_000, () => { req.close(); resolve(-1); });
        req.resume();
        req.end();
      });
      healthz.push(performance.now() - t0);
      if (status !== 200) healthFailures++;
      try { peakRss = Math.max(peakRss, processMemory(env.serverPid).rss); } catch { /* gone */ }
      await sleep(50);
    }
  })();
  await Promise.all(loops.map((l) => l.offered));
  const loadEnd = performance.now();
  loading = false;
  await probing;
  // 3. Recovery: the first create that succeeds after the offering stopped.
  let recoveryMs = NaN;
  for (let i = 0; i < 3_000; i++) {
    const r = await loader.request('POST', path, body).catch(() => ({ status: 0 }));
    if (r.status === 201) { recoveryMs = performance.now() - loadEnd; break; }
    await sleep(20);
  }
  const results: OpenLoopResult[] = await Promise.all(loops.map((l) => l.done));
  probe.close();
  loader.close();

  const sum = (f: (r: OpenLoopResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const by = (code: string) => sum((r) => r.byStatus[code] ?? 0);
  const answered = sum((r) => Object.values(r.byStatus).reduce((a, b) => a + b, 0));
  const sent = sum((r) => r.sent);
  const skipped = sum((r) => r.skipped);
  const offerSeconds = Math.max(...results.map((r) => r.offerMs)) / 1000;
  const other = answered - by('201') - by('429');
  const otherCodes = [...new Set(results.flatMap((r) => Object.keys(r.byStatus)))].filter((c) => c !== '201' && c !== '429');
  healthz.sort((a, b) => a - b);
  const p99 = quantile(healthz, 0.99);
  ctx.log(`${NAME}: sent ${sent} (skipped ${skipped}), answered ${answered}: 201 ${by('201')}, 429 ${by('429')}, other ${other} [${otherCodes.join(',')}], errors ${sum((r) => r.errors)} ${JSON.stringify(results.map((r) => r.errorKinds))}, unanswered ${sum((r) => r.unanswered)}`);
  return [
    { benchmark: NAME, metric: 'capacity: creates at c=64, HTTP/2, non-masters user', unit: 'ops/s', value: capacity },
    { benchmark: NAME, metric: 'offered load (open loop, 2 workers)', unit: 'ops/s', value: (sent + skipped) / offerSeconds, baseline: capacity,
      ratio: (sent + skipped) / offerSeconds / capacity, note: `${skipped} not sent (generator cap of 16000 outstanding)` },
    { benchmark: NAME, metric: 'share of answers that are 429', unit: '%', value: answered ? (100 * by('429')) / answered : NaN, note: `${by('429')} of ${answered}` },
    { benchmark: NAME, metric: 'creates served (201) per second under load', unit: 'ops/s', value: by('201') / offerSeconds, baseline: capacity,
      ratio: by('201') / offerSeconds / capacity },
    { benchmark: NAME, metric: 'answers other than 201/429, and request errors', unit: 'requests', value: other + sum((r) => r.errors),
      ...target('0', other + sum((r) => r.errors) === 0), note: otherCodes.length ? `codes ${otherCodes.join(',')}` : undefined },
    { benchmark: NAME, metric: '/healthz p50 under load', unit: 'ms', value: quantile(healthz, 0.5) },
    { benchmark: NAME, metric: '/healthz p99 under load', unit: 'ms', value: p99, ...target('< 200 ms', p99 < 200),
      note: `${healthz.length} probes, ${healthFailures} not 200` },
    { benchmark: NAME, metric: 'server RSS: peak under load (baseline: before)', unit: 'MiB', value: peakRss / MiB, baseline: rssBefore / MiB },
    { benchmark: NAME, metric: 'recovery: first successful create after the load stopped', unit: 'ms', value: recoveryMs },
  ];
}

export const load4xBench: Benchmark = {
  name: NAME,
  description: 'overload: 4x capacity of creates offered open-loop as a non-masters user; 429 share, /healthz latency, RSS, recovery',
  run,
};
