/**
 * Removed versions of events and autoscaling, through HTTP against a real etcd: events.k8s.io/v1beta1
 * Event (removed in 1.25), autoscaling/v2beta1 (1.25) and v2beta2 (1.26) HorizontalPodAutoscaler.
 * Off by default (404); with `--runtime-config` on, each is served over the current version's
 * objects with Kubernetes' deprecation warning: written at the old version and read at the
 * current one (fields mapped) and back (as written, plus defaults); written at the current one,
 * read, updated and read back through the old one without loss; listed and watched at the old
 * version; bad input refused with a 422 that leaves the store as it was.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { rejectedLeavingStore } from '../helpers/kind-checks';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { flavors } from '../../lib/naming';

const naming = flavors.orch;
const EVENTS = naming.group('events');
const NS = 'removed-ev-hpa';
type Body = Record<string, any>;

const eventsPath = (version: string, name = '') => `/apis/${EVENTS}/${version}/namespaces/${NS}/events${name ? `/${name}` : ''}`;
const corePath = (name = '') => `/api/v1/namespaces/${NS}/events${name ? `/${name}` : ''}`;
const hpaPath = (version: string, name = '') => `/apis/autoscaling/${version}/namespaces/${NS}/horizontalpodautoscalers${name ? `/${name}` : ''}`;
const REF = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const SELECTOR = { matchLabels: { tier: 'front' } };
const warning = (gv: string, kind: string, d: number, r: number, use: string) =>
  `${gv} ${kind} is deprecated in v1.${d}+, unavailable in v1.${r}+; use ${use} ${kind}`;

/** The object without the fields the server sets. */
const userFields = (o: Body): Body => {
  const { metadata, ...rest } = o;
  const { name, namespace, labels, annotations } = metadata;
  return { ...rest, metadata: { name, namespace, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) } };
};

describe('removed versions: events.k8s.io/v1beta1, autoscaling/v2beta1 and v2beta2', () => {
  describe('without --runtime-config (and with =false)', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--flavor=orch', '--runtime-config=autoscaling/v2beta2=false']); });
    after(async () => { await t?.stop(); });

    it('serves none of them: 404, and discovery lists only the current versions', async () => {
      for (const gv of [`${EVENTS}/v1beta1`, 'autoscaling/v2beta1', 'autoscaling/v2beta2']) {
        expect((await t.get(`/apis/${gv}`)).status, gv).to.equal(404);
      }
      expect((await t.get(hpaPath('v2beta1'))).status).to.equal(404);
      const groups = (await t.get('/apis')).body.groups as Body[];
      expect(groups.find((g) => g.name === 'autoscaling')!.versions.map((v: Body) => v.version)).to.deep.equal(['v2', 'v1']);
      expect(groups.find((g) => g.name === EVENTS)!.versions.map((v: Body) => v.version)).to.deep.equal(['v1']);
    });
  });

  describe('switched on', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(['--flavor=orch', `--runtime-config=${EVENTS}/v1beta1=true,autoscaling/v2beta1=true,autoscaling/v2beta2=true`]);
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    });
    after(async () => { await t?.stop(); });

    it('discovery lists the old versions after the preferred one', async () => {
      const groups = (await t.get('/apis')).body.groups as Body[];
      const autoscaling = groups.find((g) => g.name === 'autoscaling')!;
      expect(autoscaling.versions.map((v: Body) => v.version)).to.include.members(['v2', 'v1', 'v2beta2', 'v2beta1']);
      expect(autoscaling.preferredVersion.version).to.equal('v2');
      const events = groups.find((g) => g.name === EVENTS)!;
      expect(events.versions.map((v: Body) => v.version)).to.deep.equal(['v1', 'v1beta1']);
      const hpa = (await t.get('/apis/autoscaling/v2beta1')).body.resources.map((r: Body) => r.name);
      expect(hpa).to.deep.equal(['horizontalpodautoscalers', 'horizontalpodautoscalers/status']);
    });

    describe('events.k8s.io/v1beta1 Event', () => {
      const full = (name: string): Body => ({
        apiVersion: `${EVENTS}/v1beta1`, kind: 'Event', metadata: { name, namespace: NS },
        eventTime: '2026-01-02T03:04:05.123456Z',
        series: { count: 3, lastObservedTime: '2026-01-02T03:05:06.654321Z' },
        reportingController: 'example.com/scaler', reportingInstance: 'scaler-1',
        action: 'Scale', reason: 'Scaled',
        regarding: { kind: 'Deployment', namespace: NS, name: 'web', uid: 'u-1', apiVersion: 'apps/v1', resourceVersion: '7', fieldPath: 'spec' },
        related: { kind: 'ReplicaSet', namespace: NS, name: 'web-1', apiVersion: 'apps/v1' },
        note: 'scaled to 3',
        // Allowed at v1beta1 (legacy validation only), refused at v1.
        type: 'Custom',
        deprecatedSource: { component: 'scaler', host: 'node-1' },
        deprecatedFirstTimestamp: '2026-01-02T03:00:00Z', deprecatedLastTimestamp: '2026-01-02T03:05:00Z', deprecatedCount: 3,
      });

      it('created at v1beta1 with every field (deprecation warning), read at v1, at core/v1 and back', async () => {
        const body = full('all-fields');
        const created = await t.post(eventsPath('v1beta1'), body);
        expect(created.status, created.text).to.equal(201);
        expect(String(created.headers.warning)).to.contain(warning(`${EVENTS}/v1beta1`, 'Event', 22, 25, `${EVENTS}/v1`));
        const atV1 = (await t.get(eventsPath('v1', 'all-fields'))).body;
        expect(userFields(atV1)).to.deep.equal({ ...body, apiVersion: `${EVENTS}/v1` });
        const core = (await t.get(corePath('all-fields'))).body;
        expect(core).to.deep.include({
          involvedObject: body.regarding, message: 'scaled to 3', source: body.deprecatedSource, reportingComponent: 'example.com/scaler',
          reportingInstance: 'scaler-1', firstTimestamp: '2026-01-02T03:00:00Z', lastTimestamp: '2026-01-02T03:05:00Z', count: 3, type: 'Custom',
        });
        const back = (await t.get(eventsPath('v1beta1', 'all-fields'))).body;
        expect(userFields(back)).to.deep.equal(body);
        expect(back.metadata.uid).to.equal(created.body.metadata.uid);
      });

      it('v1 refuses what v1beta1 accepts (its strict create rules)', async () => {
        const atV1 = await t.post(eventsPath('v1'), { ...full('strict'), apiVersion: `${EVENTS}/v1` });
        expect(atV1.status, atV1.text).to.equal(422);
        expect(atV1.body.details.causes.map((c: Body) => c.field)).to.include.members(['type', 'firstTimestamp', 'lastTimestamp', 'count', 'source']);
      });

      it('created at v1, updated at v1beta1 (no immutable fields there), read at v1 with nothing lost', async () => {
        const v1Body: Body = { ...full('from-v1'), apiVersion: `${EVENTS}/v1`, type: 'Normal' };
        for (const k of ['deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount']) delete v1Body[k];
        expect((await t.post(eventsPath('v1'), v1Body)).status).to.equal(201);
        const beta = (await t.get(eventsPath('v1beta1', 'from-v1'))).body;
        expect(userFields(beta)).to.deep.equal({ ...v1Body, apiVersion: `${EVENTS}/v1beta1` });
        const put = await t.put(eventsPath('v1beta1', 'from-v1'), { ...beta, note: 'scaled to 4', reason: 'Rescaled' });
        expect(put.status, put.text).to.equal(200);
        const after = (await t.get(eventsPath('v1', 'from-v1'))).body;
        expect(userFields(after)).to.deep.equal({ ...v1Body, note: 'scaled to 4', reason: 'Rescaled' });
      });

      it('lists and watches at v1beta1 what other groups write', async () => {
        const rv = (await t.get(eventsPath('v1beta1'))).body.metadata.resourceVersion;
        const watch = openWatch(adminTarget(t.server), `${eventsPath('v1beta1')}?watch=1&resourceVersion=${rv}`);
        try {
          const core = await t.post(corePath(), { apiVersion: 'v1', kind: 'Event', metadata: { name: 'w-core' }, involvedObject: { kind: 'Pod', namespace: NS, name: 'p' }, reason: 'R', message: 'm' });
          expect(core.status, core.text).to.equal(201);
          const seen = await watch.waitFor((e) => e.object.metadata.name === 'w-core');
          expect(seen.type).to.equal('ADDED');
          expect(seen.object).to.deep.include({ apiVersion: `${EVENTS}/v1beta1`, note: 'm', reason: 'R', regarding: { kind: 'Pod', namespace: NS, name: 'p' } });
        } finally {
          watch.close();
        }
        const list = (await t.get(eventsPath('v1beta1'))).body;
        expect(list.kind).to.equal('EventList');
        expect(list.items.map((e: Body) => e.metadata.name)).to.include.members(['all-fields', 'from-v1', 'w-core']);
        expect(list.items.every((e: Body) => e.apiVersion === `${EVENTS}/v1beta1`)).to.equal(true);
      });

      it('refuses a new-style event without its reporting fields (legacy rules), storing nothing', async () => {
        const res = await rejectedLeavingStore(t, corePath(), () => t.post(eventsPath('v1beta1'), {
          apiVersion: `${EVENTS}/v1beta1`, kind: 'Event', metadata: { name: 'bad' }, eventTime: '2026-01-02T03:04:05.000000Z',
          regarding: { kind: 'Pod', namespace: NS, name: 'p' },
        }));
        expect(res.status, res.text).to.equal(422);
        const required = res.body.details.causes.filter((c: Body) => c.reason === 'FieldValueRequired').map((c: Body) => c.field);
        expect(required).to.have.members(['reportingController', 'reportingInstance', 'action', 'reason']);
      });
    });

    describe('autoscaling/v2beta1 HorizontalPodAutoscaler', () => {
      const METRICS = [
        { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 70 } },
        { type: 'Resource', resource: { name: 'memory', targetAverageValue: '1Gi' } },
        { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10', selector: SELECTOR } },
        { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'hits', targetValue: '2k', selector: SELECTOR } },
        { type: 'External', external: { metricName: 'queue', metricSelector: SELECTOR, targetValue: '3' } },
        { type: 'External', external: { metricName: 'backlog', targetAverageValue: '30' } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', targetAverageUtilization: 60, container: 'app' } },
      ];
      const V2_METRICS = [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
        { type: 'Pods', pods: { metric: { name: 'qps', selector: SELECTOR }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'Value', value: '2k' }, metric: { name: 'hits', selector: SELECTOR } } },
        { type: 'External', external: { metric: { name: 'queue', selector: SELECTOR }, target: { type: 'Value', value: '3' } } },
        { type: 'External', external: { metric: { name: 'backlog' }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 }, container: 'app' } },
      ];
      const EMPTY_STATUS = { currentReplicas: 0, desiredReplicas: 0, currentMetrics: null, conditions: null };
      const hpa = (version: string, name: string, spec: Body): Body => ({ apiVersion: `autoscaling/${version}`, kind: 'HorizontalPodAutoscaler', metadata: { name, namespace: NS }, spec });

      it('created at v2beta1 with every metric source (deprecation warning), read at v2 with the targets mapped, and back', async () => {
        const body = hpa('v2beta1', 'old-metrics', { scaleTargetRef: REF, minReplicas: 2, maxReplicas: 9, metrics: METRICS });
        const created = await t.post(hpaPath('v2beta1'), body);
        expect(created.status, created.text).to.equal(201);
        expect(String(created.headers.warning)).to.contain(warning('autoscaling/v2beta1', 'HorizontalPodAutoscaler', 22, 25, 'autoscaling/v2'));
        const v2 = (await t.get(hpaPath('v2', 'old-metrics'))).body;
        expect(v2.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 2, maxReplicas: 9, metrics: V2_METRICS });
        const back = (await t.get(hpaPath('v2beta1', 'old-metrics'))).body;
        expect(userFields(back)).to.deep.equal({ ...body, status: EMPTY_STATUS });
      });

      it('defaults as v2beta1 does: minReplicas 1 and the 80% CPU metric', async () => {
        const created = await t.post(hpaPath('v2beta1'), hpa('v2beta1', 'defaults', { scaleTargetRef: REF, maxReplicas: 3 }));
        expect(created.status, created.text).to.equal(201);
        expect(created.body.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }] });
      });

      it('created at v2 with a behavior, read and updated at v2beta1 (behavior in the annotation), read at v2 with nothing lost', async () => {
        const behavior = {
          scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
          scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] },
        };
        const v2Body = hpa('v2', 'from-v2', { scaleTargetRef: REF, minReplicas: 2, maxReplicas: 9, metrics: V2_METRICS, behavior });
        expect((await t.post(hpaPath('v2'), v2Body)).status).to.equal(201);
        const beta = (await t.get(hpaPath('v2beta1', 'from-v2'))).body;
        expect(beta.spec.metrics).to.deep.equal(METRICS);
        expect(JSON.parse(beta.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior']).ScaleDown)
          .to.deep.equal({ StabilizationWindowSeconds: 60, SelectPolicy: 'Min', Policies: [{ Type: 'Pods', Value: 1, PeriodSeconds: 30 }] });
        const put = await t.put(hpaPath('v2beta1', 'from-v2'), { ...beta, spec: { ...beta.spec, maxReplicas: 12 } });
        expect(put.status, put.text).to.equal(200);
        const after = (await t.get(hpaPath('v2', 'from-v2'))).body;
        expect(after.spec).to.deep.equal({ ...v2Body.spec, maxReplicas: 12 });
        expect(after.metadata.annotations, 'the round-trip annotation is not stored').to.equal(undefined);
      });

      it('/status at v2beta1: current metrics and conditions stored in v2 form', async () => {
        const current = (await t.get(hpaPath('v2beta1', 'old-metrics'))).body;
        const status = {
          currentReplicas: 2, desiredReplicas: 3, lastScaleTime: '2026-01-02T03:04:05Z',
          currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 55, currentAverageValue: '100m' } }],
          conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'ok' }],
        };
        const put = await t.put(hpaPath('v2beta1', 'old-metrics/status'), { ...current, status });
        expect(put.status, put.text).to.equal(200);
        expect(put.body.status).to.deep.equal(status);
        const v2 = (await t.get(hpaPath('v2', 'old-metrics'))).body;
        expect(v2.status.currentMetrics).to.deep.equal([{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 55 } } }]);
        expect(v2.status.conditions).to.deep.equal(status.conditions);
        expect(v2.spec.metrics, 'the spec is kept').to.deep.equal(V2_METRICS);
      });

      it('lists and watches at v2beta1 what v2 writes', async () => {
        const rv = (await t.get(hpaPath('v2beta1'))).body.metadata.resourceVersion;
        const watch = openWatch(adminTarget(t.server), `${hpaPath('v2beta1')}?watch=1&resourceVersion=${rv}`);
        try {
          expect((await t.post(hpaPath('v2'), hpa('v2', 'watched', { scaleTargetRef: REF, maxReplicas: 2, metrics: V2_METRICS.slice(2, 3) }))).status).to.equal(201);
          const seen = await watch.waitFor((e) => e.object.metadata.name === 'watched');
          expect(seen.type).to.equal('ADDED');
          expect(seen.object.apiVersion).to.equal('autoscaling/v2beta1');
          expect(seen.object.spec.metrics).to.deep.equal(METRICS.slice(2, 3));
        } finally {
          watch.close();
        }
        const list = (await t.get(hpaPath('v2beta1'))).body;
        expect(list.kind).to.equal('HorizontalPodAutoscalerList');
        expect(list.items.map((h: Body) => h.metadata.name)).to.include.members(['old-metrics', 'from-v2', 'watched']);
      });

      it('refuses bad input with a 422 (v2 field paths, as Kubernetes validates the internal object), storing nothing', async () => {
        const res = await rejectedLeavingStore(t, hpaPath('v2'), () => t.post(hpaPath('v2beta1'), hpa('v2beta1', 'bad', {
          scaleTargetRef: REF, minReplicas: 5, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 0 } }],
        })));
        expect(res.status, res.text).to.equal(422);
        expect(res.body.details.causes.map((c: Body) => c.field)).to.include.members(['spec.maxReplicas', 'spec.metrics[0].resource.target.averageUtilization']);
      });
    });

    describe('autoscaling/v2beta2 HorizontalPodAutoscaler', () => {
      const hpa = (version: string, name: string, spec: Body): Body => ({ apiVersion: `autoscaling/${version}`, kind: 'HorizontalPodAutoscaler', metadata: { name, namespace: NS }, spec });
      const METRIC = { type: 'External', external: { metric: { name: 'queue', selector: SELECTOR }, target: { type: 'AverageValue', averageValue: '30' } } };

      it('created at v2beta2 (deprecation warning) with its behavior defaults, read at v2 and back unchanged', async () => {
        const body = hpa('v2beta2', 'beta2', { scaleTargetRef: REF, maxReplicas: 4, metrics: [METRIC], behavior: { scaleDown: { selectPolicy: 'Disabled' } } });
        const created = await t.post(hpaPath('v2beta2'), body);
        expect(created.status, created.text).to.equal(201);
        expect(String(created.headers.warning)).to.contain(warning('autoscaling/v2beta2', 'HorizontalPodAutoscaler', 23, 26, 'autoscaling/v2'));
        const spec = {
          scaleTargetRef: REF, minReplicas: 1, maxReplicas: 4, metrics: [METRIC],
          behavior: {
            scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
            scaleDown: { selectPolicy: 'Disabled', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
          },
        };
        expect(created.body.spec).to.deep.equal(spec);
        expect((await t.get(hpaPath('v2', 'beta2'))).body.spec).to.deep.equal(spec);
        const back = (await t.get(hpaPath('v2beta2', 'beta2'))).body;
        expect(back.apiVersion).to.equal('autoscaling/v2beta2');
        expect(back.spec).to.deep.equal(spec);
      });

      it('created at v2, updated at v2beta2, read at v2; watched and listed at v2beta2', async () => {
        const rv = (await t.get(hpaPath('v2beta2'))).body.metadata.resourceVersion;
        const watch = openWatch(adminTarget(t.server), `${hpaPath('v2beta2')}?watch=1&resourceVersion=${rv}`);
        try {
          expect((await t.post(hpaPath('v2'), hpa('v2', 'v2-to-beta2', { scaleTargetRef: REF, minReplicas: 2, maxReplicas: 5, metrics: [METRIC] }))).status).to.equal(201);
          const seen = await watch.waitFor((e) => e.object.metadata.name === 'v2-to-beta2');
          expect(seen.object.apiVersion).to.equal('autoscaling/v2beta2');
        } finally {
          watch.close();
        }
        const beta = (await t.get(hpaPath('v2beta2', 'v2-to-beta2'))).body;
        const put = await t.put(hpaPath('v2beta2', 'v2-to-beta2'), { ...beta, spec: { ...beta.spec, maxReplicas: 6 } });
        expect(put.status, put.text).to.equal(200);
        expect((await t.get(hpaPath('v2', 'v2-to-beta2'))).body.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 2, maxReplicas: 6, metrics: [METRIC] });
        const list = (await t.get(hpaPath('v2beta2'))).body;
        expect(list.items.every((h: Body) => h.apiVersion === 'autoscaling/v2beta2')).to.equal(true);
      });

      it('/status at v2beta2 is v2 status', async () => {
        const current = (await t.get(hpaPath('v2beta2', 'beta2'))).body;
        const status = { currentReplicas: 1, desiredReplicas: 2, currentMetrics: [{ type: 'External', external: { metric: { name: 'queue' }, current: { averageValue: '12' } } }] };
        const put = await t.put(hpaPath('v2beta2', 'beta2/status'), { ...current, status });
        expect(put.status, put.text).to.equal(200);
        expect((await t.get(hpaPath('v2', 'beta2'))).body.status).to.deep.equal(status);
      });
    });
  });
});
