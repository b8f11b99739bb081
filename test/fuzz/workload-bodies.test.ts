/**
 * Fuzzing the workload kinds' own code through HTTPS against a real etcd: each kind's valid
 * fixture (test/fixtures/kinds.ts) with one value, anywhere in it, replaced by a hostile one (a
 * wrong type, a negative or huge number, a bad percentage, schedule, quantity or selector, deep
 * nesting), sent as a create, an update, a merge patch of the object, of its /status and of its
 * /scale; HorizontalPodAutoscalers at v1 with hostile conversion annotations; and hostile
 * Eviction bodies. Their defaulting, validation, conversion, scale and eviction code runs on every
 * input. Each answer must be below 500 with a Status for every 4xx, a refused input must leave the
 * store as it was (harness.ts), and the process answers /livez throughout.
 */
import fc from 'fast-check';
import { hostile, expectAlive, FuzzServer, NS, startFuzzServer } from './harness';
import { checkProperty, httpRuns } from './fuzz-run';
import { kindFixtures } from '../fixtures/kinds';
import { flavors } from '../../lib/naming';

interface Target { key: string; apiVersion: string; kind: string; collection: string; status: boolean; scale: boolean }

const target = (key: string, apiVersion: string, kind: string, resource: string, status = true, scale = false): Target => ({
  key, apiVersion, kind, status, scale,
  collection: `/${apiVersion.includes('/') ? 'apis' : 'api'}/${apiVersion}/namespaces/${NS}/${resource}`,
});

const TARGETS: Target[] = [
  target('apps/deployments', 'apps/v1', 'Deployment', 'deployments', true, true),
  target('apps/replicasets', 'apps/v1', 'ReplicaSet', 'replicasets', true, true),
  target('apps/statefulsets', 'apps/v1', 'StatefulSet', 'statefulsets', true, true),
  target('apps/daemonsets', 'apps/v1', 'DaemonSet', 'daemonsets'),
  target('batch/jobs', 'batch/v1', 'Job', 'jobs'),
  target('batch/cronjobs', 'batch/v1', 'CronJob', 'cronjobs'),
  target('autoscaling/horizontalpodautoscalers', 'autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers'),
  target('autoscaling/horizontalpodautoscalers', 'autoscaling/v1', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers'),
  target('core/replicationcontrollers', 'v1', 'ReplicationController', 'replicationcontrollers', true, true),
  target('policy/poddisruptionbudgets', 'policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
];

type Json = Record<string, unknown>;

/** Every path to a value in `v` (object keys and list indexes), the root excluded. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...paths(x, [...at, i])]);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...paths(x, [...at, k])]);
  return [];
}

/** `obj` with the value at `path` (or a new key `extra` beside it) set to `value`. */
function replaced(obj: Json, path: (string | number)[], value: unknown, beside: boolean): Json {
  const copy = structuredClone(obj);
  let cur: any = copy;
  for (const seg of path.slice(0, -1)) cur = cur[seg];
  if (beside && cur && typeof cur === 'object' && !Array.isArray(cur)) cur.extra = value;
  else cur[path[path.length - 1]] = value;
  return copy;
}

/** Values that tend to break workload code. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, -1, 0, -2147483649, 2147483648, 1e308, 1.5, '', '-1%', '101%', '25%', 'abc', '1e3', '-0', '@every 1x', '@every -1h',
    '* * * * * * *', 'CRON_TZ=UTC * * * * *', '@yearly', 'Nowhere/Atlantis', '../../etc', '1Gi', '-1', 'NaN', true, [], {}, [null], { '': '' },
    { matchExpressions: [{ key: 'a', operator: 'In' }] }, { matchLabels: { 'a/b/c': 'x' } }, '\u0000', 'x'.repeat(70_000)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 30 }),
  fc.integer(),
);

/** HorizontalPodAutoscaler v1 annotations that carry v2 fields through conversion. */
const hpaAnnotation = fc.constantFrom(
  'autoscaling.alpha.kubernetes.io/metrics', 'autoscaling.alpha.kubernetes.io/current-metrics',
  'autoscaling.alpha.kubernetes.io/behavior', 'autoscaling.alpha.kubernetes.io/conditions',
);
const hpaAnnotationValue = fc.oneof(
  fc.constantFrom('', '[', '{}', '[]', 'null', '[{}]', '[{"type":"Resource"}]', '[{"type":"Pods","pods":null}]', '[{"type":"Object","object":{"target":{}}}]',
    '{"ScaleUp":{"Policies":[{"Type":"Pods","Value":-1,"PeriodSeconds":0}]}}', '[{"type":"External","external":{"metricName":"m","targetValue":"-1x"}}]',
    '[{"type":"Ready","status":"True","lastTransitionTime":"yesterday"}]'),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
);

describe('fuzz: workload kinds over HTTPS', function () {
  this.timeout(0);
  let s: FuzzServer;
  const ctx = { naming: flavors.orch, namespace: NS };
  const fixture = (t: Target, name: string): Json => ({
    apiVersion: t.apiVersion, kind: t.kind, ...kindFixtures[t.key].body(name, ctx), metadata: { name, namespace: NS },
  });

  before(async () => {
    s = await startFuzzServer();
    for (const t of TARGETS) {
      if (t.apiVersion === 'autoscaling/v1') continue;
      const res = await s.send('POST', t.collection, JSON.stringify(fixture(t, 'fz')));
      if (res.status !== 201) throw new Error(`${t.kind}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'evictable', labels: { app: 'every-kind' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const res = await s.send('POST', `/api/v1/namespaces/${NS}/pods`, JSON.stringify(pod));
    if (res.status !== 201) throw new Error(`pod: ${res.status} ${res.text.slice(0, 300)}`);
  });
  after(async () => { await s?.stop(); });
  afterEach(async () => { if (s) await expectAlive(s); });

  it('one hostile value anywhere in a valid object: create, update, merge patch of the object, its /status and its /scale', async () => {
    const ways = ['create', 'update', 'patch', 'status', 'scale'] as const;
    await checkProperty('workload-bodies', fc.asyncProperty(
      fc.constantFrom(...TARGETS), fc.constantFrom(...ways), fc.nat(), hostileValue, fc.boolean(),
      async (t, way, pick, value, beside) => {
        if (way === 'scale' && !t.scale) way = 'patch';
        if (way === 'status' && !t.status) way = 'update';
        const base = fixture(t, way === 'create' ? 'fz-new' : 'fz');
        const candidates = paths(base).filter((p) => p[0] !== 'apiVersion' && p[0] !== 'kind' && p[0] !== 'metadata');
        const path = candidates.length ? candidates[pick % candidates.length] : ['spec'];
        const body = replaced(base, path, value, beside);
        const item = `${t.collection}/fz`;
        if (way === 'create') await hostile(s, 'POST', t.collection, JSON.stringify(body));
        else if (way === 'update') await hostile(s, 'PUT', item, JSON.stringify(body));
        else if (way === 'patch') await hostile(s, 'PATCH', item, JSON.stringify(body), { 'content-type': 'application/merge-patch+json' });
        else if (way === 'status') {
          await hostile(s, 'PATCH', `${item}/status`, JSON.stringify({ status: replaced({ v: {} }, ['v'], value, beside).v }), { 'content-type': 'application/merge-patch+json' });
        } else {
          await hostile(s, 'PATCH', `${item}/scale`, JSON.stringify(replaced({ spec: { replicas: 2 }, status: { replicas: 1 } }, [['spec', 'replicas'], ['status', 'selector'], ['spec']][pick % 3] as string[], value, beside)),
            { 'content-type': 'application/merge-patch+json' });
        }
      }), httpRuns(200));
  });

  it('HorizontalPodAutoscaler at v1 with hostile conversion annotations, on create and update', async () => {
    const v1 = TARGETS.find((t) => t.apiVersion === 'autoscaling/v1')!;
    await checkProperty('hpa-v1-annotations', fc.asyncProperty(
      fc.boolean(), fc.array(fc.tuple(hpaAnnotation, hpaAnnotationValue), { minLength: 1, maxLength: 3 }),
      async (create, annotations) => {
        const body = fixture(v1, create ? 'fz-v1' : 'fz');
        (body.metadata as Json).annotations = Object.fromEntries(annotations);
        await hostile(s, create ? 'POST' : 'PUT', create ? v1.collection : `${v1.collection}/fz`, JSON.stringify(body));
      }), httpRuns(100));
  });

  it('hostile Eviction bodies (both versions, DeleteOptions inside)', async () => {
    const eviction = fc.record({
      apiVersion: fc.constantFrom('policy/v1', 'policy/v1beta1', 'v1', 'policy/v2'),
      kind: fc.constantFrom('Eviction', 'DeleteOptions', ''),
      metadata: fc.oneof(fc.constant({ name: 'evictable' }), fc.constant({ name: 'other' }), fc.constant({}), hostileValue),
      deleteOptions: fc.oneof(fc.constant({ dryRun: ['All'] }), fc.constant({ gracePeriodSeconds: -5, dryRun: ['All'] }),
        fc.constant({ preconditions: { uid: 'nope' } }), fc.constant({ propagationPolicy: 'Sideways', dryRun: ['All'] }), hostileValue),
    }, { requiredKeys: [] });
    await checkProperty('eviction-bodies', fc.asyncProperty(
      eviction, fc.constantFrom('?dryRun=All', '', '?dryRun=Nope'),
      async (body, q) => {
        // Keep the pod: a body that would really evict it is sent as a dry run.
        const dry = { ...body, deleteOptions: { ...(typeof body.deleteOptions === 'object' && body.deleteOptions ? body.deleteOptions : {}), dryRun: ['All'] } };
        const res = await hostile(s, 'POST', `/api/v1/namespaces/${NS}/pods/evictable/eviction${q || '?dryRun=All'}`, JSON.stringify(q === '' ? dry : body));
        if (res.status < 300 && (await s.send('GET', `/api/v1/namespaces/${NS}/pods/evictable`)).status !== 200) {
          throw new Error(`a dry-run eviction removed the pod: ${JSON.stringify(body)}`);
        }
      }), httpRuns(100));
  });
});
