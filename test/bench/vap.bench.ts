/**
 * Benchmark vap: ConfigMap creates at c=64 (HTTP/2) in a namespace a ValidatingAdmissionPolicy
 * binding selects (one policy on ConfigMaps with two CEL validations, both passing) against the
 * same in a namespace no binding selects, in alternating rounds on one server. Issue 42's target:
 * at least 0.85x.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops } from './latency';
import { LoadWorkers } from './load-worker';

const NAME = 'vap';
const PLAIN = 'bench-unpoliced';
const POLICED = 'bench-policed';
const ROUNDS = 4;
const GENERATOR_THREADS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const createBody = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'made-', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(256) } };
const collection = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

export const vapBench: Benchmark = {
  name: NAME,
  description: 'create at c=64 in a namespace a ValidatingAdmissionPolicy binding selects (2 validations) vs one it does not',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.apiClient(4);
    const post = async (p: string, body: unknown, what: string) => {
      const res = await admin.request('POST', p, body);
      if (res.status !== 201) throw new Error(`creating ${what}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
    };
    for (const name of [PLAIN, POLICED]) await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { bench: name } } }, name);
    // The admissionregistration group of the server's flavor, from discovery.
    const groups = JSON.parse((await admin.request('GET', '/apis')).body.toString('utf8')) as { groups: Array<{ name: string }> };
    const group = groups.groups.map((g) => g.name).find((n) => n.startsWith('admissionregistration.'));
    if (!group) throw new Error('admissionregistration is not served');
    await post(`/apis/${group}/v1/validatingadmissionpolicies`, {
      apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bench-configmaps' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [
          { expression: '!has(object.data) || size(object.data) <= 16', message: 'at most 16 keys' },
          { expression: 'has(object.metadata.labels) && object.metadata.labels.app != ""', message: 'an app label is required' },
        ],
      },
    }, 'the policy');
    await post(`/apis/${group}/v1/validatingadmissionpolicybindings`, {
      apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'bench-configmaps' },
      spec: { policyName: 'bench-configmaps', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { bench: POLICED } } } },
    }, 'the binding');
    // Enforced once the plugin's caches have both: a create without the label is then refused.
    for (let i = 0; ; i++) {
      const res = await admin.request('POST', `${collection(POLICED)}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' } });
      if (res.status === 422) break;
      if (i > 100) throw new Error(`the policy is never enforced (last answer ${res.status})`);
      await sleep(100);
    }
    const c = 64;
    const sides = {
      plain: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(PLAIN)], createBody }),
      policed: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(POLICED)], createBody }),
    };
    try {
      ctx.log(`${NAME}: create c=${c} under a ValidatingAdmissionPolicy vs none: warming up`);
      const warm = { durationMs: 0, maxIterations: 1000, minIterations: 1000, concurrency: c };
      await sides.plain.loop(warm);
      await sides.policed.loop(warm);
      const cellMs = ctx.quick ? 2_000 : 8_000;
      const rounds = ctx.quick ? 1 : ROUNDS;
      const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: c, concurrency: c };
      const results = { plain: [] as LoopResult[], policed: [] as LoopResult[] };
      for (let round = 0; round < rounds; round++) {
        results.plain.push(await sides.plain.loop(loop));
        results.policed.push(await sides.policed.loop(loop));
      }
      const plain = mergeLoops(results.plain);
      const policed = mergeLoops(results.policed);
      const ratio = policed.opsPerSec / plain.opsPerSec;
      const metric = `create c=${c} HTTP/2 under a ValidatingAdmissionPolicy vs none`;
      return [
        { benchmark: NAME, metric: `${metric} throughput`, unit: 'ops/s', value: policed.opsPerSec, baseline: plain.opsPerSec, ratio, ...target('≥ 0.85x', ratio >= 0.85),
          note: `${policed.count} vs ${plain.count} creates` },
        { benchmark: NAME, metric: `${metric} p50`, unit: 'ms', value: policed.p50, baseline: plain.p50, ratio: plain.p50 / policed.p50 },
        { benchmark: NAME, metric: `${metric} p99`, unit: 'ms', value: policed.p99, baseline: plain.p99, ratio: plain.p99 / policed.p99 },
      ];
    } finally {
      await sides.plain.close();
      await sides.policed.close();
    }
  },
};
