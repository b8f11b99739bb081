/**
 * Benchmark cel-crd (issue 42): creates at c=64 (HTTP/2) of a custom resource whose schema carries
 * five CEL validation rules (x-kubernetes-validations on the spec, a nested object, list items and
 * map values) against the same CRD shape without rules, in alternating rounds on one server. The
 * rules compile once per CRD version; each create evaluates all five (one per list item and map
 * value). Target: at least 0.8x.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops } from './latency';
import { LoadWorkers } from './load-worker';

const NAME = 'cel-crd';
const NAMESPACE = 'bench-cel-crd';
const PLAIN = 'plain.bench.example.com';
const RULED = 'ruled.bench.example.com';
const ROUNDS = 4;
const GENERATOR_THREADS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The Gadget CRD of `group` in `apiextensions`; with `rules`, five x-kubernetes-validations. */
function gadgetCrd(apiextensions: string, group: string, rules: boolean): Record<string, unknown> {
  const xv = (...list: Record<string, unknown>[]) => (rules ? { 'x-kubernetes-validations': list } : {});
  return {
    apiVersion: `${apiextensions}/v1`, kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                ...xv({ rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
                  { rule: "self.name.startsWith('g-')", messageExpression: "'name ' + self.name + ' must start with g-'" }),
                properties: {
                  name: { type: 'string', maxLength: 63 }, minReplicas: { type: 'integer' }, maxReplicas: { type: 'integer' },
                  resources: { type: 'object', properties: { cpu: { type: 'string', maxLength: 16 }, memory: { type: 'string', maxLength: 16 } }, ...xv({ rule: "self.cpu != ''" }) },
                  ports: {
                    type: 'array', maxItems: 16, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } }, ...xv({ rule: 'self.port > 0 && self.port < 65536' }) },
                  },
                  labels: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 63, ...xv({ rule: 'self.size() <= 63' }) } },
                },
              },
            },
          },
        },
      }],
    },
  };
}

const gadget = (group: string) => ({
  apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { generateName: 'g-' },
  spec: {
    name: 'g-bench', minReplicas: 1, maxReplicas: 5, resources: { cpu: '500m', memory: '256Mi' },
    ports: [{ name: 'http', port: 8080 }, { name: 'metrics', port: 9090 }], labels: { team: 'bench', tier: 'web' },
  },
});
const collection = (group: string) => `/apis/${group}/v1/namespaces/${NAMESPACE}/gadgets`;

export const celCrdBench: Benchmark = {
  name: NAME,
  description: 'create at c=64 of a custom resource whose schema has five CEL rules vs the same CRD without rules',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.apiClient(4);
    const groups = JSON.parse((await admin.request('GET', '/apis')).body.toString('utf8')).groups as { name: string }[];
    const apiextensions = groups.map((g) => g.name).find((n) => n.startsWith('apiextensions.'));
    if (!apiextensions) throw new Error('the server serves no apiextensions group');
    const ns = await admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    if (ns.status !== 201) throw new Error(`creating namespace: ${ns.status}`);
    for (const [group, rules] of [[PLAIN, false], [RULED, true]] as const) {
      const res = await admin.request('POST', `/apis/${apiextensions}/v1/customresourcedefinitions`, gadgetCrd(apiextensions, group, rules));
      if (res.status !== 201) throw new Error(`creating the CRD of ${group}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
    }
    for (const group of [PLAIN, RULED]) {
      for (let i = 0; (await admin.request('GET', collection(group))).status !== 200; i++) {
        if (i > 300) throw new Error(`${collection(group)} never served`);
        await sleep(100);
      }
    }
    // A rule that fails must refuse: the measured side really evaluates its rules.
    const bad = { ...gadget(RULED), spec: { ...gadget(RULED).spec, minReplicas: 9 } };
    const refused = await admin.request('POST', collection(RULED), bad);
    if (refused.status !== 422) throw new Error(`a create breaking a rule answered ${refused.status}, not 422`);
    const c = 64;
    const sides = {
      plain: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(PLAIN)], createBody: gadget(PLAIN) }),
      ruled: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(RULED)], createBody: gadget(RULED) }),
    };
    try {
      ctx.log(`${NAME}: create c=${c} with five CEL rules vs none: warming up`);
      const warm = { durationMs: 0, maxIterations: 1000, minIterations: 1000, concurrency: c };
      await sides.plain.loop(warm);
      await sides.ruled.loop(warm);
      const cellMs = ctx.quick ? 2_000 : 8_000;
      const rounds = ctx.quick ? 1 : ROUNDS;
      const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: c, concurrency: c };
      const results = { plain: [] as LoopResult[], ruled: [] as LoopResult[] };
      for (let round = 0; round < rounds; round++) {
        // Alternate which side goes first, so neither always runs on a warmer server.
        const order = round % 2 === 0 ? (['plain', 'ruled'] as const) : (['ruled', 'plain'] as const);
        for (const side of order) results[side].push(await sides[side].loop(loop));
      }
      const plain = mergeLoops(results.plain);
      const ruled = mergeLoops(results.ruled);
      const ratio = ruled.opsPerSec / plain.opsPerSec;
      const metric = `create c=${c} HTTP/2 of a custom resource with five CEL rules vs none`;
      return [
        { benchmark: NAME, metric: `${metric} throughput`, unit: 'ops/s', value: ruled.opsPerSec, baseline: plain.opsPerSec, ratio, ...target('≥ 0.8x', ratio >= 0.8),
          note: `${ruled.count} vs ${plain.count} creates` },
        { benchmark: NAME, metric: `${metric} p50`, unit: 'ms', value: ruled.p50, baseline: plain.p50, ratio: plain.p50 / ruled.p50 },
        { benchmark: NAME, metric: `${metric} p99`, unit: 'ms', value: ruled.p99, baseline: plain.p99, ratio: plain.p99 / ruled.p99 },
      ];
    } finally {
      await sides.plain.close();
      await sides.ruled.close();
    }
  },
};
