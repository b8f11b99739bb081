/**
 * apps/v1 Deployment over HTTPS against a real etcd: Kubernetes 1.32's defaults (replicas,
 * rolling-update strategy, history limit, progress deadline, the pod template's), validation on
 * create and update (each bad spec or status answered 422 with the cause's field path, reason
 * and message, and nothing stored), the immutable selector, status reset on create and written
 * only through /status, generation bumped by spec and annotation changes only, what `kubectl
 * rollout pause|restart` patches, /scale, kubectl's table cells, field selectors, discovery and
 * the background deletion of dependents.
 */
import { expect } from 'chai';
import { HttpResponse, eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, mergePatch, rejectedLeavingStore, TABLE } from '../helpers/kind-checks';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

const NS = 'deploys';
const path = (name = '') => `/apis/apps/v1/namespaces/${NS}/deployments${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
const SELECTOR = { matchLabels: { app: 'web' } };
const template = (labels: Body = { app: 'web' }, spec: Body = {}): Body =>
  ({ metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }], ...spec } });
const deployment = (name: string, spec: Body = {}, extra: Body = {}): Body =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { selector: SELECTOR, template: template(), ...spec }, ...extra });
const merge = mergePatch;

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'Deployment', causes);
  expect(res.body.details).to.include({ group: 'apps' });
}

describe('Deployment (apps/v1)', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults (SetDefaults_Deployment)', () => {
    it('fills replicas, the rolling-update strategy, revisionHistoryLimit, progressDeadlineSeconds and the template', async () => {
      const res = await t.post(path(), deployment('defaults'));
      expect(res.status, res.text).to.equal(201);
      const spec = res.body.spec;
      expect(spec).to.deep.include({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
      expect(spec.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
      expect(spec.template.metadata).to.deep.equal({ creationTimestamp: null, labels: { app: 'web' } });
      expect(spec.template.spec).to.deep.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' });
      expect(spec.template.spec.containers[0]).to.deep.include({ terminationMessagePath: '/dev/termination-log', imagePullPolicy: 'Always' });
      expect(spec).not.to.have.property('paused');
      expect(res.body.status).to.deep.equal({});
      expect(res.body.metadata.generation).to.equal(1);
    });

    it('keeps what the client set, gives Recreate no rollingUpdate, and omits Go\'s zero values', async () => {
      const res = await t.post(path(), deployment('explicit', {
        replicas: 0, revisionHistoryLimit: 0, progressDeadlineSeconds: 30, strategy: { type: 'Recreate' },
      }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.include({ replicas: 0, revisionHistoryLimit: 0, progressDeadlineSeconds: 30, strategy: { type: 'Recreate' } });
      // Go's omitempty: zero values are not written, and writing them is no spec change.
      const zeros = await t.post(path(), deployment('zeros', { paused: false, minReadySeconds: 0 }));
      expect(zeros.body.spec).not.to.have.any.keys('paused', 'minReadySeconds');
      const same = await t.put(path('zeros'), { ...zeros.body, spec: { ...zeros.body.spec, paused: false, minReadySeconds: 0 } });
      expect(same.body.metadata.generation).to.equal(1);
      const status = await t.put(path('zeros/status'), { ...same.body, status: { replicas: 0, readyReplicas: 0, collisionCount: 0 } });
      expect(status.body.status).to.deep.equal({ collisionCount: 0 });
      const partial = await t.post(path(), deployment('partial', { strategy: { rollingUpdate: { maxSurge: 1 } } }));
      expect(partial.body.spec.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } });
    });
  });

  describe('validation (ValidateDeploymentSpec)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no selector', { selector: undefined }, [
        { field: 'spec.selector', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`' },
      ]],
      ['an empty selector', { selector: {} }, [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
      }]],
      ['a selector that misses the template labels', { template: template({ app: 'other' }) }, [
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`' }]],
      ['a bad selector value', { selector: { matchLabels: { app: 'a b' } } }, [
        {
          field: 'spec.selector.matchLabels', reason: 'FieldValueInvalid',
          message: "Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        },
        {
          field: 'spec.selector', reason: 'FieldValueInvalid',
          message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"a b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: invalid label selector',
        },
      ]],
      ['negative replicas', { replicas: -1 }, [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['restartPolicy Never', { template: template({ app: 'web' }, { restartPolicy: 'Never' }) }, [
        { field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Never": supported values: "Always"' }]],
      ['activeDeadlineSeconds', { template: template({ app: 'web' }, { activeDeadlineSeconds: 10 }) }, [
        { field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported' }]],
      ['a template without containers', { template: { metadata: { labels: { app: 'web' } }, spec: {} } }, [
        { field: 'spec.template.spec.containers', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['maxUnavailable and maxSurge both 0', { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } }, [{
        field: 'spec.strategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid',
        message: 'Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
      }]],
      ['maxUnavailable above 100%', { strategy: { rollingUpdate: { maxUnavailable: '150%' } } }, [
        { field: 'spec.strategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid', message: 'Invalid value: "150%": must not be greater than 100%' }]],
      ['a maxSurge that is not a percentage', { strategy: { rollingUpdate: { maxSurge: 'lots' } } }, [
        { field: 'spec.strategy.rollingUpdate.maxSurge', reason: 'FieldValueInvalid', message: `Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"lots"}: ${PERCENT}` }]],
      ['a negative maxSurge', { strategy: { rollingUpdate: { maxSurge: -1 } } }, [
        { field: 'spec.strategy.rollingUpdate.maxSurge', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['rollingUpdate with Recreate', { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }, [
        { field: 'spec.strategy.rollingUpdate', reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'" }]],
      ['an unknown strategy type', { strategy: { type: 'BlueGreen' } }, [{
        field: 'spec.strategy', reason: 'FieldValueNotSupported',
        message: 'Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
      }]],
      ['progressDeadlineSeconds not above minReadySeconds', { minReadySeconds: 10, progressDeadlineSeconds: 10 }, [
        { field: 'spec.progressDeadlineSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 10: must be greater than minReadySeconds' }]],
      ['negative minReadySeconds', { minReadySeconds: -1 }, [
        { field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['a negative revisionHistoryLimit', { revisionHistoryLimit: -1 }, [
        { field: 'spec.revisionHistoryLimit', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['a negative progressDeadlineSeconds', { progressDeadlineSeconds: -1 }, [
        { field: 'spec.progressDeadlineSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'spec.progressDeadlineSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than minReadySeconds' },
      ]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), deployment(`invalid-${i}`, spec)));
        expectInvalid(res, causes);
      });
    });

    it('checks an update as a create, and keeps the selector immutable', async () => {
      const created = (await t.post(path(), deployment('immutable'))).body;
      const bad = await rejectedLeavingStore(t, path(), () => t.put(path('immutable'), { ...created, spec: { ...created.spec, replicas: -2 } }));
      expectInvalid(bad, [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' }]);
      const moved = await rejectedLeavingStore(t, path(), () => t.put(path('immutable'), {
        ...created, spec: { ...created.spec, selector: { matchLabels: { app: 'web', tier: 'a' } }, template: { ...created.spec.template, metadata: { labels: { app: 'web', tier: 'a' } } } },
      }));
      expectInvalid(moved, [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
      }]);
      // The template's labels may change while the selector still selects them.
      const relabelled = await t.put(path('immutable'), { ...created, spec: { ...created.spec, template: { ...created.spec.template, metadata: { labels: { app: 'web', v: '2' } } } } });
      expect(relabelled.status, relabelled.text).to.equal(200);
    });
  });

  describe('status and generation', () => {
    it('resets the status on create, keeps it on main updates, and bumps the generation on spec and annotation changes only', async () => {
      const created = await t.post(path(), deployment('generations', {}, { status: { replicas: 5, observedGeneration: 3 } }));
      expect(created.status, created.text).to.equal(201);
      expect(created.body.status).to.deep.equal({});
      const labelled = await t.put(path('generations'), { ...created.body, metadata: { ...created.body.metadata, labels: { a: 'b' } }, status: { replicas: 7 } });
      expect(labelled.status, labelled.text).to.equal(200);
      expect(labelled.body.metadata.generation).to.equal(1);
      expect(labelled.body.status).to.deep.equal({});
      const scaled = await merge(t, path('generations'), { spec: { replicas: 3 } });
      expect(scaled.body.metadata.generation).to.equal(2);
      const annotated = await merge(t, path('generations'), { metadata: { annotations: { note: 'x' } } });
      expect(annotated.body.metadata.generation).to.equal(3);
    });

    it('writes the status only through /status, which ignores the spec and keeps the generation', async () => {
      const created = (await t.post(path(), deployment('with-status', { replicas: 3 }))).body;
      const status = {
        observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 1, collisionCount: 1,
        conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2026-01-02T03:04:05Z', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'MinimumReplicasAvailable', message: 'ok' }],
      };
      const res = await t.put(path('with-status/status'), { ...created, spec: { ...created.spec, replicas: 9 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.replicas).to.equal(3);
      expect(res.body.metadata.generation).to.equal(1);
      expect((await t.get(path('with-status/status'))).body.status).to.deep.equal(status);
    });

    it('takes annotations but not labels from a /status write (the 1.20 deployment controller writes the revision there)', async () => {
      const created = (await t.post(path(), deployment('revision', { replicas: 1 }))).body;
      const res = await t.put(path('revision/status'), {
        ...created, metadata: { ...created.metadata, labels: { changed: 'yes' }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
        status: { observedGeneration: 1, replicas: 1 },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.annotations).to.deep.equal({ 'deployment.kubernetes.io/revision': '1' });
      expect(res.body.metadata.labels).to.deep.equal(created.metadata.labels);
      // kubectl rollout undo's JSON patch replaces /metadata/annotations: it must exist now.
      const undo = await t.request('PATCH', path('revision'), {
        raw: JSON.stringify([{ op: 'replace', path: '/metadata/annotations', value: { 'deployment.kubernetes.io/revision': '1' } }]),
        headers: { 'Content-Type': 'application/json-patch+json' },
      });
      expect(undo.status, undo.text).to.equal(200);
    });

    it('refuses a bad status (ValidateDeploymentStatusUpdate)', async () => {
      const created = (await t.post(path(), deployment('bad-status'))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('bad-status/status'), {
        ...created, status: { observedGeneration: -1, replicas: 1, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 2, unavailableReplicas: -1 },
      }));
      expectInvalid(res, [
        { field: 'status.observedGeneration', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.unavailableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.updatedReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than status.replicas' },
        { field: 'status.availableReplicas', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than readyReplicas' },
      ]);
      const counted = await t.put(path('bad-status/status'), { ...created, status: { collisionCount: 2 } });
      expect(counted.status, counted.text).to.equal(200);
      const lowered = await rejectedLeavingStore(t, path(), () => t.put(path('bad-status/status'), { ...counted.body, status: { collisionCount: 1 } }));
      expectInvalid(lowered, [{ field: 'status.collisionCount', reason: 'FieldValueInvalid', message: 'Invalid value: 1: cannot be decremented' }]);
    });
  });

  describe('what kubectl rollout and set image patch', () => {
    it('pauses and resumes (spec.paused), restarts (a template annotation) and sets an image (strategic merge by container name)', async () => {
      await t.post(path(), deployment('rollout', { template: template({ app: 'web' }, { containers: [{ name: 'nginx', image: 'nginx' }, { name: 'side', image: 'busybox' }] }) }));
      const paused = await merge(t, path('rollout'), { spec: { paused: true } });
      expect(paused.body.spec.paused).to.equal(true);
      expect(paused.body.metadata.generation).to.equal(2);
      const restarted = await t.request('PATCH', path('rollout'), {
        raw: JSON.stringify({ spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z' } } } } }),
        headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      });
      expect(restarted.status, restarted.text).to.equal(200);
      expect(restarted.body.spec.template.metadata.annotations).to.deep.equal({ 'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z' });
      const image = await t.request('PATCH', path('rollout'), {
        raw: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } }),
        headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      });
      expect(image.body.spec.template.spec.containers.map((c: Body) => [c.name, c.image])).to.deep.equal([['nginx', 'nginx:1.27'], ['side', 'busybox']]);
      const resumed = await merge(t, path('rollout'), { spec: { paused: null } });
      expect(resumed.body.spec).not.to.have.property('paused');
      expect(resumed.body.metadata.generation).to.equal(5);
    });
  });

  describe('strategy patches (retainKeys)', () => {
    it('switches to Recreate with the $retainKeys kubectl apply sends, which drops rollingUpdate; a plain merge keeps it and is refused', async () => {
      await t.post(path(), deployment('recreate'));
      const plain = await rejectedLeavingStore(t, path(), () => merge(t, path('recreate'), { spec: { strategy: { type: 'Recreate' } } }));
      expectInvalid(plain, [{ field: 'spec.strategy.rollingUpdate', reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'" }]);
      const retained = await t.request('PATCH', path('recreate'), {
        raw: JSON.stringify({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }),
        headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      });
      expect(retained.status, retained.text).to.equal(200);
      expect(retained.body.spec.strategy).to.deep.equal({ type: 'Recreate' });
    });
  });

  describe('reads', () => {
    it('prints NAME READY UP-TO-DATE AVAILABLE AGE, and CONTAINERS IMAGES SELECTOR with -o wide', async () => {
      const created = (await t.post(path(), deployment('table', {
        replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
        template: template({ app: 'web', tier: 'a' }, { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'log', image: 'busybox' }] }),
      }))).body;
      await t.put(path('table/status'), { ...created, status: { replicas: 3, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 1 } });
      const table = await t.get(path('table'), TABLE);
      expect(table.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Ready', 'string', 0], ['Up-to-date', 'string', 0], ['Available', 'string', 0], ['Age', 'string', 0],
        ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]]);
      const cells = table.body.rows[0].cells;
      expect([...cells.slice(0, 4), ...cells.slice(5)]).to.deep.equal(['table', '2/3', 2, 1, 'nginx,log', 'nginx:1.27,busybox', 'app=web,tier in (a,b)']);
    });

    it('is created from a protobuf body and read back in protobuf, defaulted as from JSON', async () => {
      const PB = 'application/vnd.kubernetes.protobuf';
      const res = await t.request('POST', path(), { raw: encodeProtobuf(deployment('from-protobuf', { replicas: 2 })), headers: { 'content-type': PB, accept: PB } });
      expect(res.status, res.text).to.equal(201);
      const created = decodeProtobuf(res.raw!) as Body;
      expect(created.spec).to.deep.include({ replicas: 2, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
      expect(created.spec.strategy.rollingUpdate).to.deep.equal({ maxUnavailable: '25%', maxSurge: '25%' });
      const got = decodeProtobuf((await t.get(path('from-protobuf'), { headers: { accept: PB } })).raw!) as Body;
      const asJson = (await t.get(path('from-protobuf'))).body;
      // Protobuf has no null: the template's zero creationTimestamp, null in JSON, is absent there.
      expect(asJson.spec.template.metadata.creationTimestamp).to.equal(null);
      delete asJson.spec.template.metadata.creationTimestamp;
      expect(got.spec).to.deep.equal(asJson.spec);
      expect(got.metadata.uid).to.equal(asJson.metadata.uid);
    });

    it('selects by metadata.name and refuses fields Kubernetes does not index for Deployments', async () => {
      const list = await t.get(`${path()}?fieldSelector=metadata.name%3Ddefaults`);
      expect(list.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['defaults']);
      const bad = await t.get(`${path()}?fieldSelector=spec.replicas%3D1`);
      expect(bad.status, bad.text).to.equal(400);
      expect(bad.body).to.include({ reason: 'BadRequest', message: 'field label not supported: spec.replicas' });
    });

    it('is in discovery as apps/v1 deployments (deploy, category all) with status and scale', async () => {
      const list = await t.get('/apis/apps/v1');
      const byName = Object.fromEntries(list.body.resources.map((r: Body) => [r.name, r]));
      expect(byName.deployments).to.deep.include({ kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], singularName: 'deployment' });
      expect(byName['deployments/status'].verbs).to.deep.equal(['get', 'patch', 'update']);
      expect(byName['deployments/scale']).to.deep.include({ kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
    });
  });

  describe('/scale', () => {
    it('reads and writes spec.replicas as an autoscaling/v1 Scale, and refuses negative replicas', async () => {
      await t.post(path(), deployment('scaled', { replicas: 2 }));
      const scale = await t.get(path('scaled/scale'));
      expect(scale.status, scale.text).to.equal(200);
      expect(scale.body).to.deep.include({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=web' } });
      const put = await t.put(path('scaled/scale'), { ...scale.body, spec: { replicas: 5 } });
      expect(put.status, put.text).to.equal(200);
      const stored = (await t.get(path('scaled'))).body;
      expect(stored.spec.replicas).to.equal(5);
      expect(stored.metadata.generation).to.equal(2);
      const bad = await rejectedLeavingStore(t, path(), () => t.put(path('scaled/scale'), { ...put.body, spec: { replicas: -3 } }));
      expect(bad.status, bad.text).to.equal(422);
      expect(bad.body.details.causes).to.deep.equal([{ reason: 'FieldValueInvalid', message: 'Invalid value: -3: must be greater than or equal to 0', field: 'spec.replicas' }]);
    });
  });

  describe('deletion', () => {
    it('deletes dependents in the background when no propagation policy is named', async () => {
      const owner = (await t.post(path(), deployment('owner'))).body;
      const rs = await t.post(`/apis/apps/v1/namespaces/${NS}/replicasets`, {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: { name: 'owner-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'owner', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }] },
        spec: { selector: SELECTOR, template: template() },
      });
      expect(rs.status, rs.text).to.equal(201);
      const del = await t.del(path('owner'));
      expect(del.status, del.text).to.equal(200);
      expect((await t.get(path('owner'))).status).to.equal(404);
      await eventually(async () => (await t.get(`/apis/apps/v1/namespaces/${NS}/replicasets/owner-1`)).status === 404);
    });
  });
});
