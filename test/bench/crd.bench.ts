/**
 * Benchmark (issue 18): custom resources against ConfigMaps on the same server. A namespaced CRD
 * whose schema has 20 fields (strings with patterns and lengths, integers with bounds, an enum,
 * a boolean, a nested object, a map-list keyed by name) is created first; then create and get
 * (resourceVersion=0) at c=64 of objects of that kind and of ConfigMaps whose JSON is as long,
 * in interleaved rounds whose order alternates. Target: custom resources ≥ 0.8x ConfigMaps.
 */
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { compareSides, configMapOfLength } from './side-by-side';

const NAME = 'crd';
const NAMESPACE = 'bench-crd';
const GROUP = 'bench.example.com';
const PLURAL = 'widgets';
const CONCURRENCY = 64;
const ROUNDS = 4;
const TARGET = 0.8;


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

export const crdBench: Benchmark = {
  name: NAME,
  description: 'create and get RV=0 at c=64 of a custom resource with a 20-field schema vs ConfigMaps of the same size (interleaved rounds)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const setup = ctx.env.apiClient(4);
    const crdGroup = (await setup.json('GET', '/apis', undefined, 200)).groups
      .map((g: { name: string }) => g.name).find((n: string) => n.startsWith('apiextensions.'));
    if (!crdGroup) throw new Error('the server serves no apiextensions group');
    await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    await setup.json('POST', `/apis/${crdGroup}/v1/customresourcedefinitions`, benchCrd(crdGroup), 201);
    const crPath = `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/${PLURAL}`;
    await servedWithin(ctx, setup, crPath, 30_000);
    const length = JSON.stringify(widget('w-0-0', 0)).length;
    ctx.log(`${NAME}: objects of ${length} bytes of JSON`);
    return compareSides(ctx, ctx.env.http2ApiClient(1), {
      benchmark: NAME, concurrency: CONCURRENCY, rounds: ROUNDS, target: TARGET,
      measured: { label: 'custom resource', path: crPath, body: widget },
      baseline: { label: 'ConfigMap', path: `/api/v1/namespaces/${NAMESPACE}/configmaps`, body: (n, s) => configMapOfLength(NAMESPACE, n, s, length) },
    });
  },
};

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
