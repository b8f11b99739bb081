/**
 * Benchmark (issue 18): custom resources against ConfigMaps on the same server. A namespaced CRD
 * whose schema has 20 fields (strings with patterns and lengths, integers with bounds, an enum,
 * a boolean, a nested object, a map-list keyed by name) is created first; then create and get
 * (resourceVersion=0) at c=64 of objects of that kind and of ConfigMaps whose JSON is as long,
 * in interleaved rounds whose order alternates. Target: custom resources ≥ 0.8x ConfigMaps.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { Http2ApiClient } from './http2-api-client';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';

const NAME = 'crd';
const NAMESPACE = 'bench-crd';
const GROUP = 'bench.example.com';
const PLURAL = 'widgets';
const CONCURRENCY = 64;
const ROUNDS = 4;
const TARGET = 0.8;

type Side = 'custom resource' | 'ConfigMap';
type Op = 'create' | 'get RV=0';

/** The CRD: one served and stored version whose schema has 20 leaf fields, validated on every write. */
export function benchCrd(group: string): Record<string, unknown> {
  const str = (maxLength: number, pattern?: string) => ({ type: 'string', maxLength, ...(pattern ? { pattern } : {}) });
  const int = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum });
  return {
    apiVersion: `${group}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP, scope: 'Namespaced',
      names: { plural: PLURAL, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object', required: ['title', 'replicas'],
                properties: {
                  title: str(200), owner: str(63, '^[a-z0-9-]+$'), description: str(1024), image: str(512), region: str(32),
                  replicas: int(0, 1000), priority: int(-100, 100), port: int(1, 65535), timeoutSeconds: int(0, 3600), retries: int(0, 10),
                  tier: { type: 'string', enum: ['free', 'standard', 'premium'] },
                  enabled: { type: 'boolean' },
                  ratio: { type: 'number', minimum: 0, maximum: 1 },
                  schedule: str(100),
                  resources: { type: 'object', properties: { cpu: str(16), memory: str(16) } },
                  ports: {
                    type: 'array', maxItems: 16, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: str(15), number: int(1, 65535) } },
                  },
                },
              },
            },
          },
        },
      }],
    },
  };
}

function widget(name: string, seq: number): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, namespace: NAMESPACE },
    spec: {
      title: `widget ${name}`, owner: 'bench-team', description: 'd'.repeat(400), image: 'registry.example.com/bench/widget:1.0.0',
      region: 'eu-west-1', replicas: seq % 1000, priority: 5, port: 8080, timeoutSeconds: 30, retries: 3, tier: 'standard',
      enabled: true, ratio: 0.5, schedule: '*/5 * * * *', resources: { cpu: '500m', memory: '256Mi' },
      ports: [{ name: 'http', number: 8080 }, { name: 'metrics', number: 9090 }],
    },
  };
}

/** A ConfigMap whose JSON is as long as the widget's. */
function configMap(name: string, seq: number, length: number): Record<string, unknown> {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { seq: String(seq), payload: '' } };
  base.data.payload = 'x'.repeat(Math.max(0, length - JSON.stringify(base).length));
  return base;
}

export const crdBench: Benchmark = {
  name: NAME,
  description: 'create and get RV=0 at c=64 of a custom resource with a 20-field schema vs ConfigMaps of the same size (interleaved rounds)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 10_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const setup = ctx.env.apiClient(4);
    const crdGroup = (await setup.json('GET', '/apis', undefined, 200)).groups
      .map((g: { name: string }) => g.name).find((n: string) => n.startsWith('apiextensions.'));
    if (!crdGroup) throw new Error('the server serves no apiextensions group');
    await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    await setup.json('POST', `/apis/${crdGroup}/v1/customresourcedefinitions`, benchCrd(crdGroup), 201);
    const crPath = `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/${PLURAL}`;
    const cmPath = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    await servedWithin(ctx, setup, crPath, 30_000);
    const length = JSON.stringify(widget('w-0-0', 0)).length;
    const client = ctx.env.http2ApiClient(1);
    const sides: Record<Side, { path: string; body(name: string, seq: number): unknown; names: string[] }> = {
      'custom resource': { path: crPath, body: widget, names: [] },
      ConfigMap: { path: cmPath, body: (n, s) => configMap(n, s, length), names: [] },
    };
    ctx.log(`${NAME}: objects of ${length} bytes of JSON; warming up`);
    for (const side of Object.keys(sides) as Side[]) {
      await loop(client, sides[side], 'create', 'warm', { durationMs: 0, maxIterations: 300, minIterations: 300, concurrency: 16 });
    }
    const rows: ResultRow[] = [];
    for (const op of ['create', 'get RV=0'] as Op[]) {
      const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
      const results: Record<Side, LoopResult[]> = { 'custom resource': [], ConfigMap: [] };
      for (let round = 0; round < rounds; round++) {
        const order: Side[] = round % 2 === 0 ? ['ConfigMap', 'custom resource'] : ['custom resource', 'ConfigMap'];
        for (const side of order) {
          ctx.log(`${NAME}: ${op} c=${CONCURRENCY}, round ${round + 1}/${rounds}, ${side}`);
          results[side].push(await loop(client, sides[side], op, `r${round}`, perRound));
        }
      }
      const cr = mergeLoops(results['custom resource']);
      const cm = mergeLoops(results.ConfigMap);
      const ratio = cr.opsPerSec / cm.opsPerSec;
      rows.push(
        {
          benchmark: NAME, metric: `${op} c=${CONCURRENCY} custom resource throughput`, unit: 'ops/s', value: cr.opsPerSec, baseline: cm.opsPerSec, ratio,
          ...target(`≥ ${TARGET}x`, ratio >= TARGET), note: `${cr.count} vs ${cm.count} ops; baseline: ConfigMaps of the same JSON size`,
        },
        { benchmark: NAME, metric: `${op} c=${CONCURRENCY} custom resource p50`, unit: 'ms', value: cr.p50, baseline: cm.p50, ratio: cm.p50 / cr.p50 },
        { benchmark: NAME, metric: `${op} c=${CONCURRENCY} custom resource p99`, unit: 'ms', value: cr.p99, baseline: cm.p99, ratio: cm.p99 / cr.p99 },
      );
    }
    return rows;
  },
};

async function loop(client: Http2ApiClient, side: { path: string; body(name: string, seq: number): unknown; names: string[] },
  op: Op, tag: string, opts: LoopOptions): Promise<LoopResult> {
  if (op === 'create') {
    return timedLoop(async (i) => {
      const name = `w-${tag}-${i}`;
      await expectStatus(client, 'POST', side.path, side.body(name, i), 201);
      side.names.push(name);
    }, opts);
  }
  return timedLoop((i) => expectStatus(client, 'GET', `${side.path}/${side.names[i % side.names.length]}?resourceVersion=0`, undefined, 200), opts);
}

async function expectStatus(client: Http2ApiClient, method: string, path: string, body: unknown, status: number): Promise<void> {
  const res = await client.request(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status}, want ${status}: ${res.body.toString('utf8').slice(0, 300)}`);
}

/** Waits until the custom resources' collection answers 200 (the CRD established and served). */
async function servedWithin(ctx: BenchContext, api: { request(method: string, path: string): Promise<{ status: number }> }, path: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if ((await api.request('GET', path)).status === 200) return;
    if (Date.now() > deadline) throw new Error(`${path} not served ${ms} ms after the CRD was created`);
    ctx.log(`${NAME}: waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
