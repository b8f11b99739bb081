/**
 * apps/v1 ReplicaSet over HTTPS against a real etcd: Kubernetes 1.32's defaults (replicas 1, the
 * pod template's), validation on create and update (422 with Kubernetes' causes, nothing
 * stored), the immutable selector, status reset on create (`replicas: 0`) and written only
 * through /status, generation bumped by spec changes only, the /scale subresource (GET, PUT,
 * merge PATCH, negative replicas refused), kubectl's table cells, field selectors and discovery.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, mergePatch, rejectedLeavingStore, TABLE } from '../helpers/kind-checks';

const NS = 'replicasets';
const path = (name = '') => `/apis/apps/v1/namespaces/${NS}/replicasets${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const SELECTOR = { matchLabels: { app: 'web' } };
const template = (labels: Body = { app: 'web' }, spec: Body = {}): Body =>
  ({ metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }], ...spec } });
const replicaSet = (name: string, spec: Body = {}, extra: Body = {}): Body =>
  ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name }, spec: { selector: SELECTOR, template: template(), ...spec }, ...extra });
const merge = mergePatch;

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'ReplicaSet', causes);
  expect(res.body.details).to.include({ group: 'apps' });
}

describe('ReplicaSet (apps/v1)', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('defaults replicas to 1 and the template as a pod\'s, and starts with status { replicas: 0 } at generation 1', async () => {
    const res = await t.post(path(), replicaSet('defaults', {}, { status: { replicas: 4 } }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec.replicas).to.equal(1);
    expect(res.body.spec.template.spec).to.deep.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 });
    expect(res.body.status).to.deep.equal({ replicas: 0 });
    expect(res.body.metadata.generation).to.equal(1);
    expect((await t.post(path(), replicaSet('zero', { replicas: 0 }))).body.spec.replicas).to.equal(0);
  });

  describe('validation (ValidateReplicaSetSpec)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no selector', { selector: undefined }, [
        { field: 'spec.selector', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`' },
      ]],
      ['an empty selector (Kubernetes names it a deployment\'s)', { selector: { matchLabels: {} } }, [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
      }]],
      ['a selector that misses the template labels', { selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] } }, [
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`' }]],
      ['negative replicas', { replicas: -1 }, [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['negative minReadySeconds', { minReadySeconds: -5 }, [{ field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -5: must be greater than or equal to 0' }]],
      ['restartPolicy OnFailure', { template: template({ app: 'web' }, { restartPolicy: 'OnFailure' }) }, [
        { field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "OnFailure": supported values: "Always"' }]],
      ['activeDeadlineSeconds', { template: template({ app: 'web' }, { activeDeadlineSeconds: 5 }) }, [
        { field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported' }]],
      ['no template', { template: undefined }, [
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string(nil): `selector` does not match template `labels`' },
        { field: 'spec.template.spec.containers', reason: 'FieldValueRequired', message: 'Required value' },
      ]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), replicaSet(`invalid-${i}`, spec)));
        expectInvalid(res, causes);
      });
    });

    it('keeps the selector immutable on update', async () => {
      const created = (await t.post(path(), replicaSet('immutable'))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('immutable'), {
        ...created, spec: { ...created.spec, selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } },
      }));
      expectInvalid(res, [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Exists", Values:[]string(nil)}}}: field is immutable',
      }]);
    });
  });

  describe('status and generation', () => {
    it('keeps the status on main updates, bumps the generation on spec changes only (not annotations)', async () => {
      const created = (await t.post(path(), replicaSet('generations'))).body;
      const annotated = await merge(t, path('generations'), { metadata: { annotations: { note: 'x' } }, status: { replicas: 3 } });
      expect(annotated.body.metadata.generation).to.equal(1);
      expect(annotated.body.status).to.deep.equal({ replicas: 0 });
      const scaled = await t.put(path('generations'), { ...created, metadata: annotated.body.metadata, spec: { ...created.spec, replicas: 4 } });
      expect(scaled.body.metadata.generation).to.equal(2);
    });

    it('writes the status through /status only, replicas written as 0 when left out and zero counts omitted (omitempty)', async () => {
      const created = (await t.post(path(), replicaSet('with-status'))).body;
      const status = {
        replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1,
        conditions: [{ type: 'ReplicaFailure', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'FailedCreate', message: 'quota' }],
      };
      const res = await t.put(path('with-status/status'), { ...created, spec: { ...created.spec, replicas: 7 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.replicas).to.equal(1);
      const partial = await t.put(path('with-status/status'), { ...res.body, status: { readyReplicas: 0 } });
      expect(partial.body.status).to.deep.equal({ replicas: 0 });
    });

    it('refuses a bad status (ValidateReplicaSetStatus)', async () => {
      const created = (await t.post(path(), replicaSet('bad-status'))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('bad-status/status'), {
        ...created, status: { replicas: 1, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 2, observedGeneration: -1 },
      }));
      expectInvalid(res, [
        { field: 'status.observedGeneration', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.fullyLabeledReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than readyReplicas' },
      ]);
    });
  });

  describe('/scale', () => {
    it('reads spec.replicas, status.replicas and the selector string as an autoscaling/v1 Scale', async () => {
      const created = (await t.post(path(), replicaSet('scaled', {
        replicas: 2, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] },
      }))).body;
      await t.put(path('scaled/status'), { ...created, status: { replicas: 1 } });
      const scale = await t.get(path('scaled/scale'));
      expect(scale.status, scale.text).to.equal(200);
      expect(scale.body).to.deep.include({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=web,tier notin (db)' } });
      expect(scale.body.metadata).to.include({ name: 'scaled', namespace: NS, uid: created.metadata.uid });
    });

    it('writes replicas by PUT and merge PATCH (bumping the generation), and refuses negative replicas as an Invalid Scale', async () => {
      await t.post(path(), replicaSet('rescaled'));
      const current = (await t.get(path('rescaled/scale'))).body;
      const put = await t.put(path('rescaled/scale'), { ...current, spec: { replicas: 4 } });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.spec.replicas).to.equal(4);
      const patched = await merge(t, path('rescaled/scale'), { spec: { replicas: 6 } });
      expect(patched.status, patched.text).to.equal(200);
      const stored = (await t.get(path('rescaled'))).body;
      expect(stored.spec.replicas).to.equal(6);
      expect(stored.metadata.generation).to.equal(3);
      const bad = await rejectedLeavingStore(t, path(), () => merge(t, path('rescaled/scale'), { spec: { replicas: -1 } }));
      expect(bad.status, bad.text).to.equal(422);
      expect(bad.body.details).to.deep.include({ kind: 'Scale', group: 'autoscaling' });
      expect(bad.body.details.causes).to.deep.equal([{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' }]);
    });
  });

  describe('reads', () => {
    it('prints NAME DESIRED CURRENT READY AGE, and CONTAINERS IMAGES SELECTOR with -o wide', async () => {
      const created = (await t.post(path(), replicaSet('table', {
        replicas: 3, template: template({ app: 'web' }, { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox:1' }] }),
      }))).body;
      await t.put(path('table/status'), { ...created, status: { replicas: 2, readyReplicas: 1 } });
      const table = await t.get(path('table'), TABLE);
      expect(table.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Age', 'string', 0],
        ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]]);
      const cells = table.body.rows[0].cells;
      expect([...cells.slice(0, 4), ...cells.slice(5)]).to.deep.equal(['table', 3, 2, 1, 'a,b', 'nginx,busybox:1', 'app=web']);
    });

    it('selects by metadata.name; status.replicas is not a field label of apps/v1 ReplicaSets', async () => {
      const list = await t.get(`${path()}?fieldSelector=metadata.name%3Ddefaults`);
      expect(list.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['defaults']);
      const bad = await t.get(`${path()}?fieldSelector=status.replicas%3D0`);
      expect(bad.status, bad.text).to.equal(400);
      expect(bad.body).to.include({ reason: 'BadRequest', message: 'field label not supported: status.replicas' });
    });

    it('is in discovery as apps/v1 replicasets (rs, category all) with status and scale', async () => {
      const list = await t.get('/apis/apps/v1');
      const byName = Object.fromEntries(list.body.resources.map((r: Body) => [r.name, r]));
      expect(byName.replicasets).to.deep.include({ kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'], singularName: 'replicaset' });
      expect(byName['replicasets/status'].verbs).to.deep.equal(['get', 'patch', 'update']);
      expect(byName['replicasets/scale']).to.deep.include({ kind: 'Scale', group: 'autoscaling', version: 'v1' });
    });
  });
});
