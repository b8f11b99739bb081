/**
 * Benchmark (issue 39): Deployments against ConfigMaps on the same server. A Deployment's create
 * defaults and validates a whole pod template (containers, probes, resources, volumes) as a Pod's
 * spec is validated, which is real work; the target is ≥ 0.7x the ConfigMaps' throughput at c=64,
 * for create and get (resourceVersion=0), with ConfigMaps whose JSON is as long (side-by-side.ts).
 */
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { compareSides, configMapOfLength } from './side-by-side';

const NAME = 'workloads';
const NAMESPACE = 'bench-workloads';
const CONCURRENCY = 64;
const ROUNDS = 4;
const TARGET = 0.7;

/** A typical application Deployment: two containers with ports, env, probes, resources and a volume. */
function deployment(name: string, seq: number): Record<string, unknown> {
  const labels = { app: name, tier: 'web' };
  const probe = (path: string) => ({ httpGet: { path, port: 8080 }, initialDelaySeconds: 5, periodSeconds: 10 });
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NAMESPACE, labels },
    spec: {
      replicas: 1 + (seq % 5),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { 'prometheus.io/scrape': 'true' } },
        spec: {
          containers: [
            {
              name: 'web', image: 'registry.example.com/bench/web:1.4.2', ports: [{ name: 'http', containerPort: 8080 }],
              env: [{ name: 'MODE', value: 'production' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
              readinessProbe: probe('/ready'), livenessProbe: probe('/healthz'),
              volumeMounts: [{ name: 'config', mountPath: '/etc/web' }],
            },
            { name: 'sidecar', image: 'registry.example.com/bench/proxy:2.0.0', args: ['--port=9090'], ports: [{ name: 'metrics', containerPort: 9090 }] },
          ],
          volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
        },
      },
    },
  };
}

export const workloadsBench: Benchmark = {
  name: NAME,
  description: 'create and get RV=0 at c=64 of Deployments (a 2-container pod template) vs ConfigMaps of the same size (interleaved rounds)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const setup = ctx.env.apiClient(4);
    await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    const length = JSON.stringify(deployment('w-0-0', 0)).length;
    ctx.log(`${NAME}: Deployments of ${length} bytes of JSON`);
    return compareSides(ctx, ctx.env.http2ApiClient(1), {
      benchmark: NAME, concurrency: CONCURRENCY, rounds: ROUNDS, target: TARGET,
      measured: { label: 'Deployment', path: `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, body: deployment },
      baseline: { label: 'ConfigMap', path: `/api/v1/namespaces/${NAMESPACE}/configmaps`, body: (n, s) => configMapOfLength(NAMESPACE, n, s, length) },
    });
  },
};
