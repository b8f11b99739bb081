/**
 * Benchmark authn: the cost of authentication on the hot path. GET of a ConfigMap with
 * resourceVersion=0 (served from the watch cache) at concurrency 64 over one HTTP/2 session, once
 * presenting a service-account token (a bearer JWT on every request, as a pod's client does) and
 * once with the admin client certificate (authenticated once per connection), in alternating
 * rounds in the same run. Issue 13's target: the token side at least 0.9x the certificate side.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { CpuAccumulator } from './cpu-usage';
import { Http2ApiClient } from './http2-api-client';

const NAME = 'authn';
const NAMESPACE = 'bench-authn';
const CONCURRENCY = 64;
const ROUNDS = 4;
const OBJECTS = 64;

async function expectStatus(api: Http2ApiClient, method: string, path: string, body: unknown, status: number): Promise<any> {
  const res = await api.request(method, path, body);
  const text = res.body.toString('utf8');
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status}, want ${status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export const authnBench: Benchmark = {
  name: NAME,
  description: 'get RV=0 at c=64 with a service-account token vs the admin client certificate',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.http2ApiClient(1);
    await expectStatus(admin, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    for (let i = 0; i < OBJECTS; i++) {
      await expectStatus(admin, 'POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(1024) } }, 201);
    }
    await expectStatus(admin, 'POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } }, 201);
    const issued = await expectStatus(admin, 'POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/reader/token`, {
      apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 },
    }, 201);
    const sides = { certificate: ctx.env.http2ApiClient(1), token: ctx.env.http2ApiClient(1, { bearerToken: issued.status.token }) };
    const get = (api: Http2ApiClient) => async (i: number) => {
      const res = await api.request('GET', `${base}/cm-${i % OBJECTS}?resourceVersion=0`);
      if (res.status !== 200) throw new Error(`GET: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
    };
    ctx.log(`${NAME}: warming up`);
    const warm = { durationMs: 0, maxIterations: 2000, minIterations: 2000, concurrency: CONCURRENCY };
    for (const api of Object.values(sides)) await timedLoop(get(api), warm);

    const cellMs = ctx.quick ? 2_000 : 10_000;
    const rounds = ctx.quick ? 1 : ROUNDS;
    const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: CONCURRENCY, concurrency: CONCURRENCY };
    const results = { certificate: [] as LoopResult[], token: [] as LoopResult[] };
    const cpu = { certificate: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid), token: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid) };
    ctx.log(`${NAME}: get RV=0 c=${CONCURRENCY}, ${cellMs / 1000} s per side in ${rounds} round(s)`);
    for (let round = 0; round < rounds; round++) {
      for (const side of ['certificate', 'token'] as const) {
        cpu[side].start();
        results[side].push(await timedLoop(get(sides[side]), loop));
        cpu[side].stop();
      }
    }
    const token = mergeLoops(results.token);
    const cert = mergeLoops(results.certificate);
    const ratio = token.opsPerSec / cert.opsPerSec;
    const label = `get RV=0 c=${CONCURRENCY}, service-account token vs admin certificate`;
    const shares = (s: 'certificate' | 'token') => `server ${cpu[s].shares().server?.toFixed(0) ?? '?'}%`;
    return [
      {
        benchmark: NAME, metric: `${label} throughput`, unit: 'ops/s', value: token.opsPerSec, baseline: cert.opsPerSec, ratio,
        ...target('≥ 0.9x', ratio >= 0.9),
        note: `${token.count} vs ${cert.count} gets; CPU of a core: ${shares('token')} with the token, ${shares('certificate')} with the certificate`,
      },
      { benchmark: NAME, metric: `${label} p50`, unit: 'ms', value: token.p50, baseline: cert.p50, ratio: cert.p50 / token.p50 },
      { benchmark: NAME, metric: `${label} p99`, unit: 'ms', value: token.p99, baseline: cert.p99, ratio: cert.p99 / token.p99 },
    ];
  },
};
