/**
 * core/v1 ReplicationController over HTTPS against a real etcd: Kubernetes 1.32's defaults
 * (selector and labels from the template, replicas 1, the pod template's defaults), validation
 * (each bad spec or status answered 422 with the cause's field path, reason and message, and
 * nothing stored), status reset on create and written only through /status, generation bumped by
 * spec changes only, kubectl's table (and -o wide) cells, the `status.replicas` field selector,
 * /scale (autoscaling/v1 Scale), the orphaning delete of core/v1, discovery (rc, category all,
 * status and scale subresources).
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'rcs';
const path = (name = '') => `/api/v1/namespaces/${NS}/replicationcontrollers${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const container = { name: 'app', image: 'registry.example.com/app:1' };
const template = (labels: Body | undefined, spec: Body = {}): Body => ({ metadata: labels ? { labels } : {}, spec: { containers: [container], ...spec } });
const rc = (name: string, spec: Body, extra: Body = {}): Body => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec, ...extra });

const BAD_KEY = "Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'ReplicationController', causes);
}

describe('ReplicationController (core/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults (SetDefaults_ReplicationController)', () => {
    it('takes selector and labels from the template, replicas 1, and defaults the template', async () => {
      const res = await t.post(path(), rc('defaulted', { template: template({ app: 'web', tier: 'front' }) }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.replicas).to.equal(1);
      expect(res.body.spec.selector).to.deep.equal({ app: 'web', tier: 'front' });
      expect(res.body.metadata.labels).to.deep.equal({ app: 'web', tier: 'front' });
      const spec = res.body.spec.template.spec;
      expect(spec).to.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' });
      expect(spec.containers[0]).to.include({ terminationMessagePath: '/dev/termination-log', imagePullPolicy: 'IfNotPresent' });
      expect(res.body.spec.template.metadata.creationTimestamp).to.equal(null);
    });

    it('keeps a given selector, labels and replicas (0 included)', async () => {
      const res = await t.post(path(), rc('given', { replicas: 0, selector: { app: 'web' }, template: template({ app: 'web', v: '2' }) },
        { metadata: { name: 'given', labels: { owner: 'me' } } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.include({ replicas: 0 });
      expect(res.body.spec.selector).to.deep.equal({ app: 'web' });
      expect(res.body.metadata.labels).to.deep.equal({ owner: 'me' });
    });
  });

  describe('validation (ValidateReplicationController)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no selector and no template labels', { template: template(undefined) }, [
        { field: 'spec.selector', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['no template', { selector: { app: 'a' } }, [
        { field: 'spec.template', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a selector that does not select the template', { selector: { app: 'a' }, template: template({ app: 'b', z: 'y' }) }, [{
        field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid',
        message: 'Invalid value: map[string]string{"app":"b", "z":"y"}: `selector` does not match template `labels`',
      }]],
      ['a restartPolicy other than Always', { template: template({ app: 'a' }, { restartPolicy: 'OnFailure' }) }, [{
        field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "OnFailure": supported values: "Always"',
      }]],
      ['activeDeadlineSeconds', { template: template({ app: 'a' }, { activeDeadlineSeconds: 30 }) }, [{
        field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in ReplicationController is not Supported',
      }]],
      ['negative replicas', { replicas: -1, template: template({ app: 'a' }) }, [
        { field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['negative minReadySeconds', { minReadySeconds: -5, template: template({ app: 'a' }) }, [
        { field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -5: must be greater than or equal to 0' }]],
      ['a template container without an image', { template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'app' }] } } }, [
        { field: 'spec.template.spec.containers[0].image', reason: 'FieldValueRequired', message: 'Required value' }]],
      // The controller's own labels are defaulted from the template's: the bad key is reported at both.
      ['a bad template label', { selector: { app: 'a' }, template: template({ app: 'a', 'bad key!': 'x' }) },
        ['spec.template.labels', 'metadata.labels'].map((field) => ({ field, reason: 'FieldValueInvalid', message: BAD_KEY }))],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), rc(`invalid-${i}`, spec)));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('checks an update too: the selector may change but must still select the template', async () => {
      const created = (await t.post(path(), rc('mutable', { template: template({ app: 'm' }) }))).body;
      const bad = await rejectedLeavingStore(t, path(), () => t.put(path('mutable'), { ...created, spec: { ...created.spec, selector: { app: 'other' } } }));
      expectInvalid(bad, [{
        field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid',
        message: 'Invalid value: map[string]string{"app":"m"}: `selector` does not match template `labels`',
      }]);
      const good = await t.put(path('mutable'), { ...created, spec: { ...created.spec, replicas: 4 } });
      expect(good.status, good.text).to.equal(200);
      expect(good.body.spec.replicas).to.equal(4);
    });
  });

  describe('status and generation', () => {
    it('resets the status on create to replicas 0 and starts at generation 1', async () => {
      const res = await t.post(path(), rc('fresh', { template: template({ app: 'f' }) }, { status: { replicas: 9, readyReplicas: 3 } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.status).to.deep.equal({ replicas: 0 });
      expect(res.body.metadata.generation).to.equal(1);
    });

    it('bumps the generation on spec changes only, and a main update keeps the stored status', async () => {
      const created = (await t.post(path(), rc('gen', { template: template({ app: 'g' }) }))).body;
      const labelled = await t.put(path('gen'), { ...created, metadata: { ...created.metadata, labels: { app: 'g', x: 'y' } }, status: { replicas: 5 } });
      expect(labelled.status, labelled.text).to.equal(200);
      expect(labelled.body.metadata.generation).to.equal(1);
      expect(labelled.body.status).to.deep.equal({ replicas: 0 });
      const scaled = await t.put(path('gen'), { ...labelled.body, spec: { ...labelled.body.spec, replicas: 3 } });
      expect(scaled.body.metadata.generation).to.equal(2);
    });

    it('writes the status only through /status, which keeps the spec and the generation', async () => {
      const created = (await t.post(path(), rc('st', { template: template({ app: 's' }) }))).body;
      const status = {
        replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1, observedGeneration: 1,
        conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota', lastTransitionTime: '2026-01-02T03:04:05Z' }],
      };
      const res = await t.put(path('st/status'), { ...created, spec: { ...created.spec, replicas: 7 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.replicas).to.equal(1);
      expect(res.body.metadata.generation).to.equal(1);
      expect((await t.get(path('st'))).body.status).to.deep.equal(status);
    });

    it('refuses a bad status (ValidateReplicationControllerStatus)', async () => {
      const created = (await t.post(path(), rc('bad-status', { template: template({ app: 'b' }) }))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('bad-status/status'), {
        ...created, status: { replicas: 2, fullyLabeledReplicas: 3, readyReplicas: 1, availableReplicas: 2, observedGeneration: -1 },
      }));
      expectInvalid(res, [
        { field: 'status.observedGeneration', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.fullyLabeledReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 3: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than readyReplicas' },
      ]);
      const negative = await t.put(path('bad-status/status'), { ...created, status: { replicas: -1 } });
      // The other counts (0) are then greater than replicas, as Go compares them.
      expectInvalid(negative, [
        { field: 'status.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        ...['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'].map((f) => (
          { field: `status.${f}`, reason: 'FieldValueInvalid', message: 'Invalid value: 0: cannot be greater than status.replicas' })),
      ]);
    });
  });

  describe('reads', () => {
    it('prints NAME DESIRED CURRENT READY AGE, and CONTAINERS IMAGES SELECTOR wide', async () => {
      await t.post(path(), rc('table', { replicas: 3, template: { metadata: { labels: { b: '2', a: '1' } }, spec: { containers: [container, { name: 'side', image: 'registry.example.com/side:2' }] } } }));
      const res = await t.get(path('table'), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      expect(res.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Age', 'string', 0],
        ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]]);
      const cells = res.body.rows[0].cells;
      expect([...cells.slice(0, 4), ...cells.slice(5)]).to.deep.equal(
        ['table', 3, 0, 0, 'app,side', 'registry.example.com/app:1,registry.example.com/side:2', 'a=1,b=2']);
    });

    it('selects by status.replicas and refuses fields it does not know', async () => {
      const created = (await t.post(path(), rc('counted', { template: template({ app: 'c' }) }))).body;
      await t.put(path('counted/status'), { ...created, status: { replicas: 4 } });
      const four = await t.get(`${path()}?fieldSelector=status.replicas=4`);
      expect(four.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['counted']);
      const zero = await t.get(`${path()}?fieldSelector=status.replicas%3D0`);
      expect(zero.body.items.map((i: Body) => i.metadata.name)).to.include('fresh').and.not.include('counted');
      const unknown = await t.get(`${path()}?fieldSelector=spec.replicas=1`);
      expect(unknown.status, unknown.text).to.equal(400);
    });

    it('is in discovery as rc in category all with status and scale', async () => {
      const list = await t.get('/api/v1');
      const byName = new Map<string, Body>(list.body.resources.map((r: Body) => [r.name, r]));
      expect(byName.get('replicationcontrollers')).to.deep.include({ kind: 'ReplicationController', namespaced: true, shortNames: ['rc'], categories: ['all'] });
      expect(byName.get('replicationcontrollers/status')?.verbs).to.deep.equal(['get', 'patch', 'update']);
      expect(byName.get('replicationcontrollers/scale')).to.deep.include({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    });
  });

  describe('/scale (autoscaling/v1 Scale)', () => {
    it('reads replicas and the selector string, writes replicas into the spec (a spec change), refuses negative replicas', async () => {
      await t.post(path(), rc('scaled', { replicas: 2, selector: { tier: 'web', app: 's' }, template: template({ app: 's', tier: 'web' }) }));
      const scale = await t.get(path('scaled/scale'));
      expect(scale.status, scale.text).to.equal(200);
      expect(scale.body).to.deep.include({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=s,tier=web' } });
      expect(scale.body.metadata).to.include({ name: 'scaled', namespace: NS });
      const put = await t.put(path('scaled/scale'), { ...scale.body, spec: { replicas: 5 } });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.spec.replicas).to.equal(5);
      const stored = (await t.get(path('scaled'))).body;
      expect(stored.spec.replicas).to.equal(5);
      expect(stored.metadata.generation).to.equal(2);
      const patched = await t.request('PATCH', path('scaled/scale'), { raw: '{"spec":{"replicas":1}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(patched.status, patched.text).to.equal(200);
      expect((await t.get(path('scaled'))).body.spec.replicas).to.equal(1);
      const negative = await rejectedLeavingStore(t, path(), () => t.put(path('scaled/scale'), { ...scale.body, metadata: { name: 'scaled' }, spec: { replicas: -1 } }));
      expect(negative.status, negative.text).to.equal(422);
      expect(negative.body.details.kind).to.equal('Scale');
      expect(negative.body.details.causes).to.deep.equal([{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' }]);
    });
  });

  describe('delete', () => {
    it('orphans the pods by default at core/v1 (the orphan finalizer), and deletes in the background when told', async () => {
      await t.post(path(), rc('orphaning', { template: template({ app: 'o' }) }));
      const res = await t.del(path('orphaning'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.finalizers).to.deep.equal(['orphan']);
      await t.post(path(), rc('background', { template: template({ app: 'bg' }) }));
      const bg = await t.del(path('background'), { propagationPolicy: 'Background' });
      expect(bg.status, bg.text).to.equal(200);
      expect(bg.body.metadata.finalizers).to.equal(undefined);
      expect((await t.get(path('background'))).status).to.equal(404);
    });
  });
});
