/**
 * apps/v1 StatefulSet over HTTPS against a real etcd: Kubernetes 1.32's defaults (spec, pod
 * template and claim templates), validation on create and update (each bad spec answered 422
 * with the cause's field path, reason and message, and nothing stored; the exact "updates to
 * statefulset spec for fields other than ..." message), status reset on create and written only
 * through /status (ValidateStatefulSetStatusUpdate), generation bumped by spec changes only,
 * /scale (the replicas as an autoscaling/v1 Scale), kubectl's table cells, the
 * `status.successful` field selector, discovery and the DeleteDependents default.
 */
import { expect } from 'chai';
import { HttpResponse, eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore, TABLE } from '../helpers/kind-checks';

const NS = 'statefulsets';
const path = (name = '') => `/apis/apps/v1/namespaces/${NS}/statefulsets${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const template = (labels: Body = { app: 'web' }, spec: Body = {}): Body =>
  ({ metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...spec } });
const spec = (extra: Body = {}): Body => ({ selector: { matchLabels: { app: 'web' } }, template: template(), ...extra });
const sts = (name: string, s: Body, extra: Body = {}): Body => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec: s, ...extra });
const claim = (name: string, extra: Body = {}): Body =>
  ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra } });

const FORBIDDEN = "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
const NONNEG = 'must be greater than or equal to 0';

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'StatefulSet', causes);
  expect(res.body.details).to.include({ group: 'apps' });
}

describe('StatefulSet (apps/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults (SetDefaults_StatefulSet, the template\'s and the claim templates\')', () => {
    it('fills replicas, policies, the update strategy, history and the claim templates, and serves them', async () => {
      const res = await t.post(path(), sts('defaults', spec({ volumeClaimTemplates: [claim('data')] })));
      expect(res.status, res.text).to.equal(201);
      const { template: tpl, ...rest } = res.body.spec;
      expect(rest).to.deep.equal({
        replicas: 1, selector: { matchLabels: { app: 'web' } }, serviceName: '', podManagementPolicy: 'OrderedReady',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, revisionHistoryLimit: 10,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
        volumeClaimTemplates: [{
          metadata: { name: 'data', creationTimestamp: null },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
          status: { phase: 'Pending' },
        }],
      });
      expect(tpl.metadata).to.deep.equal({ labels: { app: 'web' }, creationTimestamp: null });
      expect(tpl.spec).to.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' });
      expect(tpl.spec.containers[0]).to.include({ imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' });
      expect(res.body.status).to.deep.equal({ replicas: 0, availableReplicas: 0 });
      expect(res.body.metadata.generation).to.equal(1);
      expect((await t.get(path('defaults'))).body.spec).to.deep.equal(res.body.spec);
    });

    it('keeps what the client set (ordinals written with start 0, as Go writes it); OnDelete gets no rollingUpdate; maxUnavailable is dropped (MaxUnavailableStatefulSet is off)', async () => {
      const given = spec({
        replicas: 0, podManagementPolicy: 'Parallel', revisionHistoryLimit: 0, ordinals: {},
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
        updateStrategy: { type: 'OnDelete' },
      });
      const res = await t.post(path(), sts('kept', given));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.include({
        replicas: 0, podManagementPolicy: 'Parallel', revisionHistoryLimit: 0, updateStrategy: { type: 'OnDelete' }, ordinals: { start: 0 },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
      });
      const rolling = await t.post(path(), sts('max-unavailable', spec({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: 2 } } })));
      expect(rolling.status, rolling.text).to.equal(201);
      expect(rolling.body.spec.updateStrategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { partition: 2 } });
    });
  });

  describe('validation (ValidateStatefulSetSpec)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no selector', { template: template() }, [
        { field: 'spec.selector', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`' },
      ]],
      ['an empty selector', spec({ selector: {} }), [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
      }]],
      ['a selector that does not select the template', spec({ template: template({ app: 'other', tier: 'db' }) }), [{
        field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid',
        message: 'Invalid value: map[string]string{"app":"other", "tier":"db"}: `selector` does not match template `labels`',
      }]],
      ['an invalid selector', spec({ selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }), [
        { field: 'spec.selector.matchExpressions[0].values', reason: 'FieldValueRequired', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" },
        { field: 'spec.selector', reason: 'FieldValueInvalid', message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"In", Values:[]string(nil)}}}' },
      ]],
      ['negative replicas', spec({ replicas: -1 }), [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]],
      ['negative minReadySeconds', spec({ minReadySeconds: -5 }), [{ field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: `Invalid value: -5: ${NONNEG}` }]],
      ['a negative ordinals.start', spec({ ordinals: { start: -1 } }), [{ field: 'spec.ordinals.start', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]],
      ['an unknown podManagementPolicy', spec({ podManagementPolicy: 'Random' }), [
        { field: 'spec.podManagementPolicy', reason: 'FieldValueInvalid', message: 'Invalid value: "Random": must be \'OrderedReady\' or \'Parallel\'' }]],
      ['an unknown update strategy', spec({ updateStrategy: { type: 'Sometimes' } }), [{
        field: 'spec.updateStrategy', reason: 'FieldValueInvalid',
        message: 'Invalid value: apps.StatefulSetUpdateStrategy{Type:"Sometimes", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be \'RollingUpdate\' or \'OnDelete\'',
      }]],
      ['rollingUpdate with OnDelete', spec({ updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }), [{
        field: 'spec.updateStrategy.rollingUpdate', reason: 'FieldValueInvalid',
        message: 'Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy \'RollingUpdate\'',
      }]],
      ['a negative partition', spec({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } } }), [
        { field: 'spec.updateStrategy.rollingUpdate.partition', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]],
      ['an unknown retention policy', spec({ persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep', whenScaled: 'Delete' } }), [{
        field: 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Keep": supported values: "Retain", "Delete"',
      }]],
      ['restartPolicy OnFailure', spec({ template: template({ app: 'web' }, { restartPolicy: 'OnFailure' }) }), [{
        field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "OnFailure": supported values: "Always"',
      }]],
      ['activeDeadlineSeconds', spec({ template: template({ app: 'web' }, { activeDeadlineSeconds: 30 }) }), [{
        field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in StatefulSet is not Supported',
      }]],
      ['a bad template label', { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web', 'bad key!': 'x' }) }, [{
        field: 'spec.template.labels', reason: 'FieldValueInvalid',
        message: "Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      }]],
    ];
    invalid.forEach(([what, s, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), sts(`invalid-${i}`, s)));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('refuses a name that is no DNS label (a pod\'s hostname comes from it)', async () => {
      const res = await t.post(path(), sts('web.v1', spec()));
      expectInvalid(res, [{
        field: 'metadata.name', reason: 'FieldValueInvalid',
        message: 'Invalid value: "web.v1": must not contain dots',
      }]);
    });

    it('leaves the pod spec and the claim templates to the pods and claims, as 1.32 does', async () => {
      const res = await t.post(path(), sts('lenient', spec({
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } },
        volumeClaimTemplates: [{ metadata: { name: 'no-size' }, spec: { accessModes: ['ReadWriteOnce'] } }],
      })));
      expect(res.status, res.text).to.equal(201);
    });
  });

  describe('updates (ValidateStatefulSetUpdate)', () => {
    it('allows replicas, template, updateStrategy, minReadySeconds, ordinals and the retention policy to change', async () => {
      const created = (await t.post(path(), sts('mutable', spec({ serviceName: 'web' })))).body;
      const changed = {
        ...created.spec, replicas: 3, minReadySeconds: 5, ordinals: { start: 1 },
        template: template({ app: 'web', v: '2' }), updateStrategy: { type: 'OnDelete' },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
      };
      const res = await t.put(path('mutable'), { ...created, spec: changed });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec).to.deep.include({ replicas: 3, minReadySeconds: 5, ordinals: { start: 1 }, updateStrategy: { type: 'OnDelete' } });
      expect(res.body.metadata.generation).to.equal(2);
    });

    for (const [what, change] of [
      ['serviceName', { serviceName: 'other' }],
      ['the selector', { selector: { matchLabels: { app: 'web', tier: 'x' } }, template: template({ app: 'web', tier: 'x' }) }],
      ['podManagementPolicy', { podManagementPolicy: 'Parallel' }],
      ['volumeClaimTemplates', { volumeClaimTemplates: [claim('more')] }],
      ['revisionHistoryLimit', { revisionHistoryLimit: 3 }],
    ] as Array<[string, Body]>) {
      it(`forbids changing ${what}, leaving the object as it was`, async () => {
        const name = `immutable-${what.replace(/[^a-z]/gi, '').toLowerCase()}`;
        const created = (await t.post(path(), sts(name, spec({ serviceName: 'web' })))).body;
        const res = await rejectedLeavingStore(t, path(), () => t.put(path(name), { ...created, spec: { ...created.spec, ...change } }));
        expectInvalid(res, [{ field: 'spec', reason: 'FieldValueForbidden', message: FORBIDDEN }]);
      });
    }

    it('checks the updated spec as a create does', async () => {
      const created = (await t.post(path(), sts('revalidated', spec()))).body;
      const res = await t.put(path('revalidated'), { ...created, spec: { ...created.spec, replicas: -2 } });
      expectInvalid(res, [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: `Invalid value: -2: ${NONNEG}` }]);
    });
  });

  describe('status and generation', () => {
    it('bumps the generation on a spec change only, and keeps the status on a main update', async () => {
      const created = (await t.post(path(), sts('generations', spec(), { status: { replicas: 4, readyReplicas: 4 } }))).body;
      expect(created.status).to.deep.equal({ replicas: 0, availableReplicas: 0 });
      const labelled = await t.put(path('generations'), { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { replicas: 9 } });
      expect(labelled.status, labelled.text).to.equal(200);
      expect(labelled.body.metadata.generation).to.equal(1);
      expect(labelled.body.status).to.deep.equal({ replicas: 0, availableReplicas: 0 });
      const scaled = await t.put(path('generations'), { ...labelled.body, spec: { ...labelled.body.spec, replicas: 2 } });
      expect(scaled.body.metadata.generation).to.equal(2);
    });

    it('writes the status only through /status, which keeps the spec and the generation', async () => {
      const created = (await t.post(path(), sts('with-status', spec()))).body;
      const status = {
        observedGeneration: 1, replicas: 3, readyReplicas: 2, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 2,
        currentRevision: 'with-status-5d4f', updateRevision: 'with-status-5d4f', collisionCount: 0,
        conditions: [{ type: 'Progressing', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'Ok', message: 'fine' }],
      };
      const res = await t.put(path('with-status/status'), { ...created, spec: { ...created.spec, replicas: 7 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.replicas).to.equal(1);
      expect(res.body.metadata.generation).to.equal(1);
      expect((await t.get(path('with-status/status'))).body.status).to.deep.equal(status);
    });

    it('refuses a bad status (ValidateStatefulSetStatusUpdate), leaving the object as it was', async () => {
      const created = (await t.put(path('with-status/status'), {
        ...(await t.get(path('with-status'))).body, status: { replicas: 3, readyReplicas: 3, availableReplicas: 3, collisionCount: 2 },
      })).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('with-status/status'), {
        ...created, status: { replicas: 2, readyReplicas: 3, currentReplicas: -1, availableReplicas: 4, observedGeneration: -1, collisionCount: 1 },
      }));
      expectInvalid(res, [
        { field: 'status.currentReplicas', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` },
        { field: 'status.observedGeneration', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` },
        { field: 'status.readyReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 3: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 4: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 4: cannot be greater than status.readyReplicas' },
        { field: 'status.collisionCount', reason: 'FieldValueInvalid', message: 'Invalid value: 1: cannot be decremented' },
      ]);
    });
  });

  describe('reads', () => {
    it('prints NAME READY AGE, and CONTAINERS IMAGES at priority 1 (-o wide)', async () => {
      const created = (await t.post(path(), sts('table', spec({
        replicas: 3, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }, { name: 'log', image: 'busybox' }] } },
      })))).body;
      await t.put(path('table/status'), { ...created, status: { replicas: 3, readyReplicas: 2 } });
      const res = await t.get(path('table'), TABLE);
      expect(res.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Ready', 'string', 0], ['Age', 'string', 0], ['Containers', 'string', 1], ['Images', 'string', 1]]);
      const cells = res.body.rows[0].cells;
      expect([cells[0], cells[1], cells[3], cells[4]]).to.deep.equal(['table', '2/3', 'web,log', 'nginx:1.27,busybox']);
    });

    it('accepts the field selector status.successful (no StatefulSet has the field) and refuses others', async () => {
      const all = await t.get(`${path()}?fieldSelector=${encodeURIComponent('status.successful!=1')}`);
      expect(all.status, all.text).to.equal(200);
      expect(all.body.items.length).to.be.greaterThan(0);
      expect((await t.get(`${path()}?fieldSelector=status.successful=1`)).body.items).to.deep.equal([]);
      const named = await t.get(`${path()}?fieldSelector=metadata.name=table`);
      expect(named.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['table']);
      expect((await t.get(`${path()}?fieldSelector=spec.replicas=1`)).status).to.equal(400);
    });

    it('names its structs as Kubernetes does in OpenAPI; claim templates are PersistentVolumeClaims', async () => {
      const v3 = (await t.get('/openapi/v3/apis/apps/v1')).body.components.schemas;
      const spec = v3['io.k8s.api.apps.v1.StatefulSetSpec'];
      expect(spec.properties.volumeClaimTemplates.items.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.api.core.v1.PersistentVolumeClaim' }]);
      expect(spec.properties.template.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec' }]);
      expect(v3).to.include.keys('io.k8s.api.apps.v1.StatefulSetStatus', 'io.k8s.api.apps.v1.StatefulSetUpdateStrategy', 'io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy');
      // One document for every kind: the PersistentVolumeClaim kind's own definition stands for the claim templates.
      const v2 = (await t.get('/openapi/v2')).body.definitions;
      expect(v2['io.k8s.api.core.v1.PersistentVolumeClaim']['x-kubernetes-group-version-kind']).to.deep.equal([{ group: '', kind: 'PersistentVolumeClaim', version: 'v1' }]);
      expect(v2['io.k8s.api.apps.v1.StatefulSetSpec'].properties.volumeClaimTemplates.items.$ref).to.equal('#/definitions/io.k8s.api.core.v1.PersistentVolumeClaim');
    });

    it('is in discovery with short name sts, category all, /status and /scale', async () => {
      const list = await t.get('/apis/apps/v1');
      const byName = (n: string) => list.body.resources.find((r: Body) => r.name === n);
      expect(byName('statefulsets')).to.deep.include({ kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'], singularName: 'statefulset' });
      expect(byName('statefulsets/status').verbs).to.deep.equal(['get', 'patch', 'update']);
      expect(byName('statefulsets/scale')).to.deep.include({ kind: 'Scale', group: 'autoscaling', version: 'v1' });
    });
  });

  describe('/scale (autoscaling/v1 Scale)', () => {
    it('reads spec.replicas, status.replicas and the selector as a string', async () => {
      const created = (await t.post(path(), sts('scaled', spec({
        replicas: 2, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
        template: template({ app: 'web', tier: 'a' }),
      })))).body;
      await t.put(path('scaled/status'), { ...created, status: { replicas: 1 } });
      const res = await t.get(path('scaled/scale'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=web,tier in (a,b)' } });
      expect(res.body.metadata).to.include({ name: 'scaled', namespace: NS, uid: created.metadata.uid });
    });

    it('writes the replicas into the StatefulSet (a spec change: generation +1)', async () => {
      const scale = (await t.get(path('scaled/scale'))).body;
      const res = await t.put(path('scaled/scale'), { ...scale, spec: { replicas: 5 } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.replicas).to.equal(5);
      const after = (await t.get(path('scaled'))).body;
      expect(after.spec.replicas).to.equal(5);
      expect(after.metadata.generation).to.equal(2);
      const patched = await t.request('PATCH', path('scaled/scale'), { body: { spec: { replicas: 0 } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expect(patched.status, patched.text).to.equal(200);
      expect((await t.get(path('scaled'))).body.spec.replicas).to.equal(0);
    });

    it('refuses negative replicas, leaving the StatefulSet as it was', async () => {
      const scale = (await t.get(path('scaled/scale'))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('scaled/scale'), { ...scale, spec: { replicas: -1 } }));
      expectInvalidCauses(res, 'Scale', [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]);
    });
  });

  describe('delete', () => {
    it('deletes its dependents when no propagation policy is named (DeleteDependents)', async () => {
      const owner = (await t.post(path(), sts('owner', spec()))).body;
      const dependent = await t.post(`/api/v1/namespaces/${NS}/configmaps`, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'owner', uid: owner.metadata.uid }] },
      });
      expect(dependent.status, dependent.text).to.equal(201);
      const res = await t.del(path('owner'));
      expect(res.status, res.text).to.equal(200);
      await eventually(async () => (await t.get(path('owner'))).status === 404);
      await eventually(async () => (await t.get(`/api/v1/namespaces/${NS}/configmaps/owned`)).status === 404);
    });
  });
});
