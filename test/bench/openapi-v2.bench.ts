/**
 * Benchmark (issue 43): how long the server's event loop stops while `/openapi/v2` is rebuilt
 * with many custom resources. 200 CRDs (--quick 50), each its own group with bench crd.bench.ts's
 * 20-field schema, are created; then, each round, one more CRD (the served document changes) and
 * a GET of `/openapi/v2` while a probe sends GET /version one after another on a connection of
 * its own: the probe's longest wait is the stall a request meets. The baseline is the same probe
 * for as long with nothing else asked, in the same round.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import type { ApiClient } from './api-client';
import { benchCrd } from './crd.bench';

const NAME = 'openapi-v2';
const STALL_TARGET_MS = 100;

/** The longest GET /version while `until` is pending (at least one probe). */
async function probeWhile(api: ApiClient, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => { done = true; });
  let longest = 0;
  do {
    const t0 = performance.now();
    const r = await api.request('GET', '/version', undefined, 'application/json', true);
    if (r.status !== 200) throw new Error(`GET /version: ${r.status}`);
    longest = Math.max(longest, performance.now() - t0);
  } while (!done);
  await until;
  return longest;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export const openApiV2Bench: Benchmark = {
  name: NAME,
  description: 'the longest wait of a GET /version probe while /openapi/v2 is rebuilt with 200 CRDs, against the probe alone',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const crds = ctx.quick ? 50 : 200;
    const rounds = ctx.quick ? 3 : 5;
    const setup = ctx.env.apiClient(4);
    const probe = ctx.env.apiClient(1);
    const docs = ctx.env.apiClient(1);
    const crdGroup = (await setup.json('GET', '/apis', undefined, 200)).groups
      .map((g: { name: string }) => g.name).find((n: string) => n.startsWith('apiextensions.'));
    if (!crdGroup) throw new Error('the server serves no apiextensions group');
    const create = async (group: string) => {
      const crd = benchCrd(crdGroup) as { metadata: { name: string }; spec: { group: string } };
      crd.metadata.name = `widgets.${group}`;
      crd.spec.group = group;
      await setup.json('POST', `/apis/${crdGroup}/v1/customresourcedefinitions`, crd, 201);
    };
    const served = async (group: string) => {
      for (let i = 0; (await setup.request('GET', `/apis/${group}/v1`)).status !== 200; i++) {
        if (i > 600) throw new Error(`${group} not served`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    for (let i = 0; i < crds; i++) await create(`g${i}.openapi.bench.example.com`);
    await served(`g${crds - 1}.openapi.bench.example.com`);
    ctx.log(`${NAME}: ${crds} CRDs served`);
    const getDocument = async () => {
      const r = await docs.request('GET', '/openapi/v2', undefined, 'application/json', true);
      if (r.status !== 200) throw new Error(`GET /openapi/v2: ${r.status}`);
    };
    await getDocument();
    const during: number[] = [];
    const idle: number[] = [];
    const builds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const group = `x${round}.openapi.bench.example.com`;
      await create(group);
      await served(group);
      await new Promise((r) => setTimeout(r, 300));
      const t0 = performance.now();
      during.push(await probeWhile(probe, getDocument()));
      const took = performance.now() - t0;
      builds.push(took);
      idle.push(await probeWhile(probe, new Promise((r) => setTimeout(r, took))));
      ctx.log(`${NAME}: round ${round + 1}: GET /openapi/v2 ${took.toFixed(0)} ms, probe's longest wait ${during.at(-1)!.toFixed(1)} ms (alone ${idle.at(-1)!.toFixed(1)} ms)`);
    }
    const stall = median(during);
    const alone = median(idle);
    return [
      {
        benchmark: NAME, metric: `longest probe wait during the rebuild, ${crds} CRDs (median of ${rounds})`, unit: 'ms',
        value: stall, baseline: alone, ratio: alone / stall, ...target(`< ${STALL_TARGET_MS} ms`, stall < STALL_TARGET_MS),
        note: 'baseline: the same probe for as long, nothing else asked',
      },
      { benchmark: NAME, metric: `GET /openapi/v2 after a change, ${crds} CRDs (median of ${rounds})`, unit: 'ms', value: median(builds) },
    ];
  },
};
