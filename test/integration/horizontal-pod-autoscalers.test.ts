/**
 * autoscaling HorizontalPodAutoscaler over HTTPS against a real etcd, at v2 (storage) and v1:
 * Kubernetes 1.32's defaults (minReplicas 1, the 80% CPU metric, behavior rules), validation
 * (each bad spec or status answered 422 with the cause's field path, reason and message, and
 * nothing stored), status reset on create and written only through /status, the conversion
 * between the versions (v1's targetCPUUtilizationPercentage and the
 * `autoscaling.alpha.kubernetes.io/*` annotations, lossless both ways), list and watch at v1,
 * kubectl's table cells and discovery.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'hpas';
const path = (version: 'v1' | 'v2', name = '') => `/apis/autoscaling/${version}/namespaces/${NS}/horizontalpodautoscalers${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const REF = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const hpa = (version: 'v1' | 'v2', name: string, spec: Body, extra: Body = {}): Body =>
  ({ apiVersion: `autoscaling/${version}`, kind: 'HorizontalPodAutoscaler', metadata: { name }, spec: { scaleTargetRef: REF, maxReplicas: 5, ...spec }, ...extra });

const CPU_80 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };
const NOW = '2026-01-02T03:04:05Z';

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT = 'autoscaling.alpha.kubernetes.io/current-metrics';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'HorizontalPodAutoscaler', causes);
  expect(res.body.details).to.include({ group: 'autoscaling' });
}

describe('HorizontalPodAutoscaler (autoscaling/v2 and v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults (autoscaling/v2 defaults.go)', () => {
    it('sets minReplicas 1 and the 80% CPU metric, and no behavior when none is given', async () => {
      const res = await t.post(path('v2'), hpa('v2', 'defaults', {}));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 1, maxReplicas: 5, metrics: [CPU_80] });
      // Go writes desiredReplicas and currentMetrics (no omitempty), the latter null when empty.
      expect(res.body.status).to.deep.equal({ currentMetrics: null, desiredReplicas: 0 });
      expect(res.body.metadata).not.to.have.property('generation');
    });
    it('fills every unset rule of a behavior that is set', async () => {
      const res = await t.post(path('v2'), hpa('v2', 'behavior', { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.behavior).to.deep.equal({
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
        scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      });
    });
    it('writes target quantities in canonical form', async () => {
      const res = await t.post(path('v2'), hpa('v2', 'quantities', { metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '0.5' } } }] }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.metrics[0].pods.target.averageValue).to.equal('500m');
    });
    it('at v1 sets minReplicas 1 and reads the default CPU target back as targetCPUUtilizationPercentage 80', async () => {
      const res = await t.post(path('v1'), hpa('v1', 'v1-defaults', {}));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 });
      expect(res.body.status).to.deep.equal({ currentReplicas: 0, desiredReplicas: 0 });
      expect(res.body.metadata.annotations).to.equal(undefined);
      expect((await t.get(path('v2', 'v1-defaults'))).body.spec.metrics).to.deep.equal([CPU_80]);
    });
  });

  describe('validation (ValidateHorizontalPodAutoscaler)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no scaleTargetRef', { scaleTargetRef: {} }, [
        { field: 'spec.scaleTargetRef.kind', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.scaleTargetRef.name', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a scaleTargetRef name that is no path segment', { scaleTargetRef: { kind: 'Deployment', name: 'a/b' } }, [
        { field: 'spec.scaleTargetRef.name', reason: 'FieldValueInvalid', message: 'Invalid value: "a/b": may not contain \'/\'' }]],
      ['a scaleTargetRef kind of ".."', { scaleTargetRef: { kind: '..', name: 'web' } }, [
        { field: 'spec.scaleTargetRef.kind', reason: 'FieldValueInvalid', message: 'Invalid value: "..": may not be \'..\'' }]],
      ['minReplicas 0 (HPAScaleToZero is off)', { minReplicas: 0 }, [
        { field: 'spec.minReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to 1' },
        { field: 'spec.metrics', reason: 'FieldValueForbidden', message: 'Forbidden: must specify at least one Object or External metric to support scaling to zero replicas' }]],
      ['maxReplicas 0', { maxReplicas: 0 }, [
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' },
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to `minReplicas`' }]],
      ['maxReplicas below minReplicas', { minReplicas: 4, maxReplicas: 3 }, [
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 3: must be greater than or equal to `minReplicas`' }]],
      ['an unknown metric type', { metrics: [{ type: 'Magic' }] }, [
        { field: 'spec.metrics[0].type', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"' },
        { field: 'spec.metrics[0].type', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"' }]],
      ['a Resource metric without its source', { metrics: [{ type: 'Resource' }] }, [
        { field: 'spec.metrics[0].resource', reason: 'FieldValueRequired', message: 'Required value: must populate information for the given metric source' }]],
      ['two sources in one metric', { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } }, pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1' } } }] }, [
        { field: 'spec.metrics[0].pods', reason: 'FieldValueForbidden', message: 'Forbidden: must populate the given metric source only' }]],
      ['a Resource target with neither utilization nor value', { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] }, [
        { field: 'spec.metrics[0].resource.target.averageUtilization', reason: 'FieldValueRequired', message: 'Required value: must set either a target raw value or a target utilization' }]],
      ['a Resource target with both', { metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50, averageValue: '1Gi' } } }] }, [
        { field: 'spec.metrics[0].resource.target.averageValue', reason: 'FieldValueForbidden', message: 'Forbidden: may not set both a target raw value and a target utilization' }]],
      ['a zero utilization and an unknown target type', { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Percent', averageUtilization: 0 } } }] }, [
        { field: 'spec.metrics[0].resource.target.type', reason: 'FieldValueInvalid', message: 'Invalid value: "Percent": must be either Utilization, Value, or AverageValue' },
        { field: 'spec.metrics[0].resource.target.averageUtilization', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' }]],
      ['a Resource metric without a name', { metrics: [{ type: 'Resource', resource: { name: '', target: { type: 'Utilization', averageUtilization: 50 } } }] }, [
        { field: 'spec.metrics[0].resource.name', reason: 'FieldValueRequired', message: 'Required value: must specify a resource name' }]],
      ['a Pods metric without a target averageValue', { metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'Value', value: '10' } } }] }, [
        { field: 'spec.metrics[0].pods.target.averageValue', reason: 'FieldValueRequired', message: 'Required value: must specify a positive target averageValue' }]],
      ['a Pods metric without a name', { metrics: [{ type: 'Pods', pods: { metric: { name: '' }, target: { type: 'AverageValue', averageValue: '1' } } }] }, [
        { field: 'spec.metrics[0].pods.metric.name', reason: 'FieldValueRequired', message: 'Required value: must specify a metric name' }]],
      ['an Object metric without a target', { metrics: [{ type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main' }, metric: { name: 'hits' }, target: { type: 'Value' } } }] }, [
        { field: 'spec.metrics[0].object.target.averageValue', reason: 'FieldValueRequired', message: 'Required value: must set either a target value or averageValue' }]],
      ['an Object metric without a described object', { metrics: [{ type: 'Object', object: { describedObject: {}, metric: { name: 'hits' }, target: { type: 'Value', value: '1' } } }] }, [
        { field: 'spec.metrics[0].object.describedObject.kind', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.metrics[0].object.describedObject.name', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['an External metric with both targets', { metrics: [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '1', averageValue: '2' } } }] }, [
        { field: 'spec.metrics[0].external.target.value', reason: 'FieldValueForbidden', message: 'Forbidden: may not set both a target value for metric and a per-pod target' }]],
      ['an External metric with no target', { metrics: [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value' } } }] }, [
        { field: 'spec.metrics[0].external.target.averageValue', reason: 'FieldValueRequired', message: 'Required value: must set either a target value for metric or a per-pod target' }]],
      ['a ContainerResource metric without a container', { metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: '', target: { type: 'Utilization', averageUtilization: 60 } } }] }, [
        { field: 'spec.metrics[0].containerResource.container', reason: 'FieldValueRequired', message: 'Required value: must specify a container' }]],
      ['a negative target value', { metrics: [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '-1' } } }] }, [
        // Go prints the *Quantity's struct (%#v): Quantity's String() has a pointer receiver.
        { field: 'spec.metrics[0].external.target.value', reason: 'FieldValueInvalid', message: 'Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}: must be positive' }]],
      ['a zero averageValue written as 0.0', { metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '0.0' } } }] }, [
        { field: 'spec.metrics[0].pods.target.averageValue', reason: 'FieldValueInvalid', message: 'Invalid value: resource.Quantity{i:resource.int64Amount{value:0, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be positive' }]],
      ['behavior rules out of range', { behavior: { scaleUp: { stabilizationWindowSeconds: 3601, selectPolicy: 'Median', policies: [{ type: 'Nodes', value: 0, periodSeconds: 1801 }] } } }, [
        { field: 'spec.behavior.scaleUp.stabilizationWindowSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 3601: must be less than or equal to 3600' },
        { field: 'spec.behavior.scaleUp.selectPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Median": supported values: "Disabled", "Max", "Min"' },
        { field: 'spec.behavior.scaleUp.policies[0].type', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Nodes": supported values: "Percent", "Pods"' },
        { field: 'spec.behavior.scaleUp.policies[0].value', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than zero' },
        { field: 'spec.behavior.scaleUp.policies[0].periodSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 1801: must be less than or equal to 1800' }]],
      ['a negative stabilization window and no policies', { behavior: { scaleDown: { stabilizationWindowSeconds: -1, policies: [] } } }, [
        { field: 'spec.behavior.scaleDown.stabilizationWindowSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to zero' },
        { field: 'spec.behavior.scaleDown.policies', reason: 'FieldValueRequired', message: 'Required value: must specify at least one Policy' }]],
      ['a policy period of 0', { behavior: { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 0 }] } } }, [
        { field: 'spec.behavior.scaleDown.policies[0].periodSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than zero' }]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path('v2'), () => t.post(path('v2'), hpa('v2', `invalid-${i}`, spec)));
        expectInvalid(res, causes);
        expect((await t.get(path('v2', `invalid-${i}`))).status).to.equal(404);
      });
    });

    it('validates a v1 object as its v2 form (Kubernetes validates the internal object)', async () => {
      const res = await t.post(path('v1'), hpa('v1', 'v1-invalid', { targetCPUUtilizationPercentage: 0, maxReplicas: 0 }));
      expectInvalid(res, [
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' },
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to `minReplicas`' },
        { field: 'spec.metrics[0].resource.target.averageUtilization', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' },
      ]);
      expect((await t.get(path('v1', 'v1-invalid'))).status).to.equal(404);
    });
    it('refuses a v1 metrics annotation that is not JSON with a 400, storing nothing', async () => {
      const res = await rejectedLeavingStore(t, path('v1'), () => t.post(path('v1'), hpa('v1', 'bad-annotation', {}, { metadata: { name: 'bad-annotation', annotations: { [METRICS]: '{not json' } } })));
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({ kind: 'Status', reason: 'BadRequest' });
    });
    it('checks updates too, and lets a stored minReplicas of 0 stay', async () => {
      const created = (await t.post(path('v2'), hpa('v2', 'updated', {}))).body;
      const bad = await t.put(path('v2', 'updated'), { ...created, spec: { ...created.spec, maxReplicas: 0 } });
      expectInvalid(bad, [
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' },
        { field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to `minReplicas`' },
      ]);
      const good = await t.put(path('v2', 'updated'), { ...created, spec: { ...created.spec, maxReplicas: 9 } });
      expect(good.status, good.text).to.equal(200);
      expect(good.body.spec.maxReplicas).to.equal(9);
    });
  });

  describe('status', () => {
    const status = {
      lastScaleTime: NOW, currentReplicas: 3, desiredReplicas: 4,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 93 } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: NOW, reason: 'ReadyForNewScale', message: 'recommended size matches current size' }],
    };
    it('resets a status given on create and keeps the stored one on a main update', async () => {
      const created = await t.post(path('v2'), hpa('v2', 'status-reset', {}, { status }));
      expect(created.status, created.text).to.equal(201);
      expect(created.body.status).to.deep.equal({ currentMetrics: null, desiredReplicas: 0 });
      const updated = await t.put(path('v2', 'status-reset'), { ...created.body, metadata: { ...created.body.metadata, labels: { a: 'b' } }, status });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body.metadata.labels).to.deep.equal({ a: 'b' });
      expect(updated.body.status).to.deep.equal({ currentMetrics: null, desiredReplicas: 0 });
    });
    it('writes the status only through /status, which keeps the spec', async () => {
      const created = (await t.post(path('v2'), hpa('v2', 'with-status', {}))).body;
      const res = await t.put(path('v2', 'with-status/status'), { ...created, spec: { ...created.spec, maxReplicas: 50 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.maxReplicas).to.equal(5);
      expect((await t.get(path('v2', 'with-status/status'))).body.status).to.deep.equal(status);
    });
    it('refuses negative replica counts (ValidateHorizontalPodAutoscalerStatusUpdate)', async () => {
      const created = (await t.post(path('v2'), hpa('v2', 'bad-status', {}))).body;
      const res = await rejectedLeavingStore(t, path('v2'), () => t.put(path('v2', 'bad-status/status'), { ...created, status: { currentReplicas: -1, desiredReplicas: -2 } }));
      expectInvalid(res, [
        { field: 'status.currentReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.desiredReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' },
      ]);
    });
    it('at v1 reads the status back with its CPU utilization and the rest in annotations', async () => {
      await t.post(path('v2'), hpa('v2', 'v1-status', {}));
      const current = (await t.get(path('v2', 'v1-status'))).body;
      expect((await t.put(path('v2', 'v1-status/status'), { ...current, status })).status).to.equal(200);
      const v1 = (await t.get(path('v1', 'v1-status'))).body;
      expect(v1.status).to.deep.equal({ lastScaleTime: NOW, currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 93 });
      expect(JSON.parse(v1.metadata.annotations[CURRENT])).to.deep.equal([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 93, currentAverageValue: '250m' } }]);
      expect(v1.metadata.annotations[CONDITIONS]).to.equal('[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z","reason":"ReadyForNewScale","message":"recommended size matches current size"}]');
      // A v1 status write of what was read changes nothing of the v2 status.
      const back = await t.put(path('v1', 'v1-status/status'), { ...v1, status: { ...v1.status, desiredReplicas: 5 } });
      expect(back.status, back.text).to.equal(200);
      expect((await t.get(path('v2', 'v1-status'))).body.status).to.deep.equal({ ...status, desiredReplicas: 5 });
    });
  });

  describe('conversion between v2 and v1', () => {
    const spec = {
      scaleTargetRef: REF, minReplicas: 2, maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } },
        { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { tier: 'web' } } }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'hits' }, target: { type: 'Value', value: '2k' } } },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } },
      ],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
        scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
      },
    };
    it('serves a v2 object at v1 with targetCPUUtilizationPercentage and Kubernetes\' annotations', async () => {
      const created = await t.post(path('v2'), { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'full', annotations: { team: 'a' } }, spec });
      expect(created.status, created.text).to.equal(201);
      const v1 = await t.get(path('v1', 'full'));
      expect(v1.status, v1.text).to.equal(200);
      expect(v1.body).to.include({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' });
      expect(v1.body.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 });
      const annotations = v1.body.metadata.annotations;
      expect(annotations.team).to.equal('a');
      expect(annotations[METRICS]).to.equal(JSON.stringify([
        { type: 'Resource', resource: { name: 'memory', targetAverageValue: '512Mi' } },
        { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10', selector: { matchLabels: { tier: 'web' } } } },
        { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'hits', targetValue: '2k' } },
        { type: 'External', external: { metricName: 'queue', targetAverageValue: '30' } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', targetAverageUtilization: 60, container: 'app' } },
      ]));
      expect(annotations[BEHAVIOR]).to.equal('{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},'
        + '"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}');
      expect(annotations).not.to.have.property(CURRENT);
    });
    it('writes back at v1 what it read, and the v2 object is unchanged (v2 -> v1 -> v2)', async () => {
      const before = (await t.get(path('v2', 'full'))).body;
      const v1 = (await t.get(path('v1', 'full'))).body;
      const put = await t.put(path('v1', 'full'), { ...v1, spec: { ...v1.spec, maxReplicas: 12 } });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.apiVersion).to.equal('autoscaling/v1');
      const after = (await t.get(path('v2', 'full'))).body;
      // As Kubernetes converts: the annotation's metrics first, the CPU utilization metric last.
      const [cpu, ...others] = before.spec.metrics;
      expect(after.spec).to.deep.equal({ ...before.spec, maxReplicas: 12, metrics: [...others, cpu] });
      expect(after.metadata.annotations).to.deep.equal({ team: 'a' });
    });
    it('reads the annotations of a v1 create into the v2 object, and serves them back (v1 -> v2 -> v1)', async () => {
      const v1In = {
        apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler',
        metadata: {
          name: 'from-v1',
          annotations: {
            [METRICS]: JSON.stringify([{ type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10' } }]),
            [BEHAVIOR]: '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":60}]}}',
          },
        },
        spec: { scaleTargetRef: REF, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 55 },
      };
      const created = await t.post(path('v1'), v1In);
      expect(created.status, created.text).to.equal(201);
      const v2 = (await t.get(path('v2', 'from-v1'))).body;
      expect(v2.metadata).not.to.have.property('annotations');
      expect(v2.spec.metrics).to.deep.equal([
        { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 55 } } },
      ]);
      expect(v2.spec.behavior).to.deep.equal({
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
        scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
      });
      const v1Out = (await t.get(path('v1', 'from-v1'))).body;
      expect(v1Out.spec).to.deep.equal(v1In.spec);
      expect(v1Out.metadata.annotations[METRICS]).to.equal(v1In.metadata.annotations[METRICS]);
      expect(JSON.parse(v1Out.metadata.annotations[BEHAVIOR]).ScaleDown).to.deep.equal(JSON.parse(v1In.metadata.annotations[BEHAVIOR]).ScaleDown);
    });
    it('keeps the v2-only fields on a v1 merge patch and a v1 apply', async () => {
      const patched = await t.request('PATCH', path('v1', 'full'), { raw: JSON.stringify({ spec: { minReplicas: 3 } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.spec.minReplicas).to.equal(3);
      const applied = await t.request('PATCH', `${path('v1', 'applied')}?fieldManager=tester`, {
        raw: JSON.stringify(hpa('v1', 'applied', { targetCPUUtilizationPercentage: 65 })), headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      expect(applied.status, applied.text).to.equal(201);
      expect(applied.body.spec.targetCPUUtilizationPercentage).to.equal(65);
      const v2 = (await t.get(path('v2', 'full'))).body;
      expect(v2.spec.minReplicas).to.equal(3);
      expect(v2.spec.metrics).to.have.length(6);
      expect(v2.spec.behavior.scaleDown.selectPolicy).to.equal('Min');
      expect((await t.get(path('v2', 'applied'))).body.spec.metrics).to.deep.equal([
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 65 } } }]);
    });
    it('takes applies at both versions on one object, each manager keeping its fields', async () => {
      const apply = (v: 'v1' | 'v2', manager: string, spec: Body) => t.request('PATCH', `${path(v, 'mixed')}?fieldManager=${manager}&force=true`, {
        raw: JSON.stringify(hpa(v, 'mixed', spec)), headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      const first = await apply('v1', 'old-client', { targetCPUUtilizationPercentage: 60 });
      expect(first.status, first.text).to.equal(201);
      const second = await apply('v2', 'new-client', { maxReplicas: 7, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] });
      expect(second.status, second.text).to.equal(200);
      expect(second.body.spec.maxReplicas).to.equal(7);
      const managers = (second.body.metadata.managedFields as Body[]).map((m) => [m.manager, m.apiVersion]);
      expect(managers).to.deep.include.members([['old-client', 'autoscaling/v1'], ['new-client', 'autoscaling/v2']]);
      const v1 = (await t.get(path('v1', 'mixed'))).body;
      expect(v1.spec).to.deep.include({ maxReplicas: 7, targetCPUUtilizationPercentage: 60 });
    });
    it('lists and watches at v1 as v1 objects', async () => {
      const list = await t.get(path('v1'));
      expect(list.status, list.text).to.equal(200);
      expect(list.body).to.include({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscalerList' });
      const full = list.body.items.find((i: Body) => i.metadata.name === 'full');
      expect(full.apiVersion).to.equal('autoscaling/v1');
      expect(full.spec.targetCPUUtilizationPercentage).to.equal(70);
      const watch = await t.get(`${path('v1')}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}&timeoutSeconds=1`);
      const pending = watch.text; // a bounded watch: nothing happened since the list
      expect(pending.trim()).to.equal('');
      const rv = list.body.metadata.resourceVersion;
      const watching = t.get(`${path('v1')}?watch=true&resourceVersion=${rv}&timeoutSeconds=2`);
      await t.post(path('v2'), hpa('v2', 'watched', { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 42 } } }] }));
      const events = (await watching).text.trim().split('\n').map((l) => JSON.parse(l));
      const added = events.find((e: Body) => e.type === 'ADDED' && e.object.metadata.name === 'watched');
      expect(added.object.apiVersion).to.equal('autoscaling/v1');
      expect(added.object.spec.targetCPUUtilizationPercentage).to.equal(42);
    });
  });

  describe('reads', () => {
    it('prints NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE as kubectl 1.32 does', async () => {
      const table = (v: 'v1' | 'v2', name: string) => t.get(path(v, name), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      const plain = await table('v2', 'defaults');
      expect(plain.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Reference', 'string', 0], ['Targets', 'string', 0], ['MinPods', 'string', 0], ['MaxPods', 'string', 0], ['Replicas', 'string', 0], ['Age', 'string', 0]]);
      expect(plain.body.rows[0].cells.slice(0, 6)).to.deep.equal(['defaults', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0]);
      expect((await table('v2', 'with-status')).body.rows[0].cells.slice(0, 6)).to.deep.equal(['with-status', 'Deployment/web', 'cpu: 93%/80%', '1', 5, 3]);
      // 'full' went through a v1 write: its CPU metric is now last.
      expect((await table('v2', 'full')).body.rows[0].cells[2]).to.equal('memory: <unknown>/512Mi, <unknown>/10 + 4 more...');
      expect((await table('v1', 'full')).body.rows[0].cells[2]).to.equal('memory: <unknown>/512Mi, <unknown>/10 + 4 more...');
      expect((await table('v1', 'v1-defaults')).body.rows[0].cells.slice(0, 6)).to.deep.equal(['v1-defaults', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0]);
      expect((await table('v2', 'quantities')).body.rows[0].cells[2]).to.equal('<unknown>/500m');
    });
    it('is in discovery at v2 (preferred) and v1, short name hpa, category all, with /status', async () => {
      const groups = await t.get('/apis');
      const autoscaling = groups.body.groups.find((g: Body) => g.name === 'autoscaling');
      expect(autoscaling.versions.map((v: Body) => v.version)).to.deep.equal(['v2', 'v1']);
      expect(autoscaling.preferredVersion).to.deep.equal({ groupVersion: 'autoscaling/v2', version: 'v2' });
      for (const v of ['v2', 'v1']) {
        const list = await t.get(`/apis/autoscaling/${v}`);
        const names = list.body.resources.map((r: Body) => r.name);
        expect(names).to.include.members(['horizontalpodautoscalers', 'horizontalpodautoscalers/status']);
        const main = list.body.resources.find((r: Body) => r.name === 'horizontalpodautoscalers');
        expect(main).to.deep.include({ kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], singularName: 'horizontalpodautoscaler' });
      }
    });
    it('supports no field selector beyond metadata.name and metadata.namespace', async () => {
      expect((await t.get(`${path('v2')}?fieldSelector=metadata.name=full`)).body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['full']);
      const bad = await t.get(`${path('v2')}?fieldSelector=spec.maxReplicas=5`);
      expect(bad.status, bad.text).to.equal(400);
    });
  });
});

describe('--runtime-config=autoscaling/v2=false', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--runtime-config=autoscaling/v2=false']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });
  it('serves autoscaling/v1 alone (preferred), still storing v2 objects behind it', async () => {
    const group = (await t.get('/apis')).body.groups.find((g: Body) => g.name === 'autoscaling');
    expect(group.versions.map((v: Body) => v.version)).to.deep.equal(['v1']);
    expect((await t.get(path('v2'))).status).to.equal(404);
    const created = await t.post(path('v1'), hpa('v1', 'only-v1', { targetCPUUtilizationPercentage: 50 }));
    expect(created.status, created.text).to.equal(201);
    expect((await t.get(path('v1', 'only-v1'))).body.spec.targetCPUUtilizationPercentage).to.equal(50);
  });
});
