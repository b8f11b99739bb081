/**
 * Deleting a CustomResourceDefinition over HTTPS against a real etcd: the CRD turns Terminating
 * with Kubernetes' condition texts, its objects are deleted in every namespace (their finalizers
 * honoured: one holds the CRD until it is removed), new objects are refused while it terminates,
 * then the CRD goes, with its paths and discovery entries; a CRD never established goes without
 * deleting anything; one re-created under the same name starts empty.
 */
import { expect } from 'chai';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';

type Obj = Record<string, any>;
const AEXT = 'apiextensions.orch.io';
const CRDS = `/apis/${AEXT}/v1/customresourcedefinitions`;
const MERGE = 'application/merge-patch+json';
const anything = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function crd(kind: string, group: string, scope = 'Namespaced', names: Obj = {}): Obj {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: `${AEXT}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural ?? plural}.${group}` },
    spec: { group, scope, names: { plural, kind, ...names }, versions: [{ name: 'v1', served: true, storage: true, schema: anything }] },
  };
}

const terminating = (o: Obj) => (o.status?.conditions ?? []).find((c: Obj) => c.type === 'Terminating');
const pick = (c: Obj | undefined) => c && { status: c.status, reason: c.reason, message: c.message };

describe('CRD lifecycle: deletion and cleanup', function () {
  this.timeout(90_000);
  let t: TestServer;

  const establish = async (body: Obj, collection: string) => {
    const res = await t.post(CRDS, body);
    expect(res.status, res.text).to.equal(201);
    await eventually(async () => (await t.get(collection)).status === 200, 5000, 20);
    await eventually(async () => (await t.get(`/apis/${body.spec.group}/v1`)).status === 200, 5000, 20);
  };
  const create = async (collection: string, body: Obj) => {
    const res = await t.post(collection, body);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  before(async () => {
    t = await startTestServer();
    for (const ns of ['one', 'two']) await t.post('/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(async () => { await t?.stop(); });

  it('deletes the objects of every namespace, reports it as Kubernetes does, then removes the CRD', async () => {
    const group = 'clean.example.com';
    const name = `widgets.${group}`;
    await establish(crd('Widget', group), `/apis/${group}/v1/widgets`);
    for (const ns of ['one', 'two']) {
      for (const n of ['a', 'b']) await create(`/apis/${group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: n } });
    }
    const watch = openWatch(adminTarget(t.server), `${CRDS}?watch=1&fieldSelector=metadata.name%3D${name}`);
    await watch.response();

    const del = await t.del(`${CRDS}/${name}`);
    expect(del.status, del.text).to.equal(200);
    expect(pick(terminating(del.body))).to.deep.equal({
      status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    const gone = await watch.waitFor((e) => e.type === 'DELETED', 15_000);
    const seen = watch.events.filter((e) => e.type !== 'ADDED').map((e) => pick(terminating(e.object)));
    expect(seen).to.deep.include({ status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    // The last state: the outcome recorded (dropping the finalizer then removed the CRD).
    expect(pick(terminating(gone.object))).to.deep.equal({ status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' });
    watch.close();

    expect((await t.get(`${CRDS}/${name}`)).status).to.equal(404);
    await eventually(async () => (await t.get(`/apis/${group}/v1/widgets`)).status === 404, 5000, 20);
    expect((await t.get(`/apis/${group}/v1/namespaces/one/widgets/a`)).status).to.equal(404);
    expect((await t.get(`/apis/${group}`)).status).to.equal(404);
    expect((await t.get('/apis')).body.groups.map((g: Obj) => g.name)).to.not.include(group);
  });

  it('holds the CRD in Terminating while an object keeps a finalizer, refusing new objects meanwhile', async () => {
    const group = 'held.example.com';
    const name = `locks.${group}`;
    await establish(crd('Lock', group), `/apis/${group}/v1/locks`);
    const one = `/apis/${group}/v1/namespaces/one/locks`;
    await create(one, { apiVersion: `${group}/v1`, kind: 'Lock', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await create(`/apis/${group}/v1/namespaces/two/locks`, { apiVersion: `${group}/v1`, kind: 'Lock', metadata: { name: 'free' } });

    expect((await t.del(`${CRDS}/${name}`)).status).to.equal(200);
    const held = await eventually(async () => {
      const r = await t.get(`${one}/held`);
      return r.body.metadata?.deletionTimestamp && r.body;
    }, 5000, 20);
    expect(held.metadata.finalizers).to.deep.equal(['example.com/hold']);
    await eventually(async () => (await t.get(`/apis/${group}/v1/namespaces/two/locks/free`)).status === 404, 5000, 20);
    const stuck = (await t.get(`${CRDS}/${name}`)).body;
    expect(pick(terminating(stuck))).to.deep.equal({ status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    expect(stuck.metadata.finalizers).to.deep.equal(['customresourcecleanup.apiextensions.orch.io']);

    // Kubernetes' forbidCreateAdmission: 403 with its text, for a create in any namespace.
    const refused = await t.post(`/apis/${group}/v1/namespaces/two/locks`, { apiVersion: `${group}/v1`, kind: 'Lock', metadata: { name: 'late' } });
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body).to.deep.include({ reason: 'Forbidden', message: `locks.${group} "late" is forbidden: create not allowed while custom resource definition is terminating` });
    // Discovery drops the write verbs; OpenAPI keeps every operation, as Kubernetes' builder does.
    expect((await t.get(`/apis/${group}/v1`)).body.resources[0].verbs).to.deep.equal(['delete', 'deletecollection', 'get', 'list', 'watch']);
    const index = (await t.get('/openapi/v3')).body.paths;
    const doc = (await t.get(index[`apis/${group}/v1`].serverRelativeURL)).body;
    expect(Object.keys(doc.paths[`/apis/${group}/v1/namespaces/{namespace}/locks`]).sort()).to.deep.equal(['delete', 'get', 'parameters', 'post']);
    // Reads, lists and deletes go on.
    expect((await t.get(one)).body.items.map((o: Obj) => o.metadata.name)).to.deep.equal(['held']);

    const released = await t.request('PATCH', `${one}/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': MERGE } });
    expect(released.status, released.text).to.equal(200);
    await eventually(async () => (await t.get(`${CRDS}/${name}`)).status === 404, 10_000, 50);
    await eventually(async () => (await t.get(one)).status === 404, 5000, 20);
  });

  it('deletes the objects of a cluster-scoped CRD', async () => {
    const group = 'cluster.example.com';
    const name = `zones.${group}`;
    await establish(crd('Zone', group, 'Cluster'), `/apis/${group}/v1/zones`);
    for (const n of ['east', 'west']) await create(`/apis/${group}/v1/zones`, { apiVersion: `${group}/v1`, kind: 'Zone', metadata: { name: n } });
    expect((await t.del(`${CRDS}/${name}`)).status).to.equal(200);
    await eventually(async () => (await t.get(`${CRDS}/${name}`)).status === 404, 10_000, 50);
    await eventually(async () => (await t.get(`/apis/${group}/v1/zones`)).status === 404, 5000, 20);
  });

  it('removes a CRD that was never established as "resource was never established"', async () => {
    const group = 'names.example.com';
    await establish(crd('Pear', group), `/apis/${group}/v1/pears`);
    // Same kind as the first: its names are refused, it is never Established.
    const second = crd('Pear', group, 'Namespaced', { plural: 'pairs', singular: 'pair' });
    expect((await t.post(CRDS, second)).status).to.equal(201);
    const name = `pairs.${group}`;
    await eventually(async () => (await t.get(`${CRDS}/${name}`)).body.status?.conditions?.some((c: Obj) => c.type === 'NamesAccepted' && c.status === 'False'), 5000, 20);
    const watch = openWatch(adminTarget(t.server), `${CRDS}?watch=1&fieldSelector=metadata.name%3D${name}`);
    await watch.response();
    expect((await t.del(`${CRDS}/${name}`)).status).to.equal(200);
    const gone = await watch.waitFor((e) => e.type === 'DELETED', 10_000);
    watch.close();
    expect(pick(terminating(gone.object))).to.deep.equal({ status: 'False', reason: 'NeverEstablished', message: 'resource was never established' });
    // The other CRD of the group and its objects are untouched.
    expect((await t.get(`/apis/${group}/v1/namespaces/one/pears`)).status).to.equal(200);
  });

  it('leaves the objects of a built-in resource alone when a CRD over it is deleted', async () => {
    const rbac = 'rbac.authorization.orch.io';
    const role = await t.post('/apis/rbac.authorization.orch.io/v1/namespaces/one/roles', { metadata: { name: 'keep' }, rules: [] });
    expect(role.status, role.text).to.equal(201);
    const body = crd('MyRole', rbac, 'Namespaced', { plural: 'roles', singular: 'myrole' });
    body.metadata.annotations = { 'api-approved.orch.io': 'unapproved, test' };
    expect((await t.post(CRDS, body)).status).to.equal(201);
    const name = `roles.${rbac}`;
    await eventually(async () => (await t.get(`${CRDS}/${name}`)).body.status?.conditions?.some((c: Obj) => c.type === 'NamesAccepted'), 5000, 20);
    const watch = openWatch(adminTarget(t.server), `${CRDS}?watch=1&fieldSelector=metadata.name%3D${name}`);
    await watch.response();
    expect((await t.del(`${CRDS}/${name}`)).status).to.equal(200);
    const gone = await watch.waitFor((e) => e.type === 'DELETED', 10_000);
    watch.close();
    expect(pick(terminating(gone.object))).to.deep.equal({ status: 'False', reason: 'OverlappingBuiltInResource', message: 'instances overlap with built-in resources in storage' });
    expect((await t.get('/apis/rbac.authorization.orch.io/v1/namespaces/one/roles/keep')).status).to.equal(200);
  });

  it('serves a fresh, empty collection for a CRD re-created under the same name', async () => {
    const group = 'again.example.com';
    const name = `notes.${group}`;
    const collection = `/apis/${group}/v1/namespaces/one/notes`;
    await establish(crd('Note', group), collection);
    const first = await create(collection, { apiVersion: `${group}/v1`, kind: 'Note', metadata: { name: 'old' }, text: 'before' });
    expect((await t.del(`${CRDS}/${name}`)).status).to.equal(200);
    await eventually(async () => (await t.get(`${CRDS}/${name}`)).status === 404, 10_000, 50);
    // Not served any more (else the new CRD could find the old, terminating resource still in place).
    await eventually(async () => (await t.get(collection)).status === 404, 5000, 20);

    await establish(crd('Note', group), collection);
    const again = (await t.get(`${CRDS}/${name}`)).body;
    expect(again.metadata.deletionTimestamp).to.equal(undefined);
    expect(terminating(again)).to.equal(undefined);
    expect((await t.get(collection)).body.items).to.deep.equal([]);
    expect((await t.get(`${collection}/old`)).status).to.equal(404);
    const fresh = await create(collection, { apiVersion: `${group}/v1`, kind: 'Note', metadata: { name: 'old' }, text: 'after' });
    expect(fresh.metadata.uid).to.not.equal(first.metadata.uid);
    expect((await t.get(`${collection}/old`)).body.text).to.equal('after');
  });
});
