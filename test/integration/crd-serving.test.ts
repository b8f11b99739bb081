/**
 * Serving custom resources over HTTPS against a real etcd: a CRD created is served within a
 * second (every verb, namespaced and cluster-scoped, objects at `/registry/<group>/<plural>/...`,
 * lists and watches from the watch cache, chunks, label selectors), listed in discovery (plain,
 * aggregated) and the OpenAPI v3 index, and gone from all of them once deleted; name conflicts
 * (between CRDs, with built-ins); two replicas; garbage collection and namespace deletion of
 * custom resources; RBAC on the new resource; the request metric's resource label.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { parseExposition } from '../helpers/prom-text';

type Obj = Record<string, any>;
const AEXT = 'apiextensions.orch.io';
const CRDS = `/apis/${AEXT}/v1/customresourcedefinitions`;
const GROUP = 'stable.example.com';
const MERGE = 'application/merge-patch+json';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const SERVED_WITHIN_MS = 1000;
const anything = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

/** A CRD of `kind` (plural: lower-case kind + 's') in `group`; `extra` merged into spec. */
function crd(kind: string, opts: { group?: string; scope?: string; versions?: string[]; names?: Obj; annotations?: Obj } = {}): Obj {
  const group = opts.group ?? GROUP;
  const plural = `${kind.toLowerCase()}s`;
  const versions = opts.versions ?? ['v1'];
  return {
    apiVersion: `${AEXT}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: `${opts.names?.plural ?? plural}.${group}`, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      group, scope: opts.scope ?? 'Namespaced', names: { plural, kind, ...opts.names },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: anything })),
    },
  };
}

const ok = (res: HttpResponse) => res.status >= 200 && res.status < 300;

describe('CRD serving', function () {
  this.timeout(60_000);
  let t: TestServer;
  let etcd: Etcd3;

  const condition = (obj: Obj, type: string) => (obj.status?.conditions ?? []).find((c: Obj) => c.type === type);
  const createCrd = async (body: Obj) => {
    const res = await t.post(CRDS, body);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  /** Deletes a CRD and waits until the cleanup controller has removed it. */
  const removeCrd = async (name: string) => {
    await t.del(`${CRDS}/${name}`);
    await eventually(async () => (await t.get(`${CRDS}/${name}`)).status === 404, 10_000, 20);
  };

  before(async () => {
    t = await startTestServer();
    etcd = new Etcd3({ hosts: t.etcdEndpoint });
    for (const ns of ['crs', 'gone']) await t.post('/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(async () => {
    etcd?.close();
    await t?.stop();
  });

  it('serves a namespaced CRD within a second: every verb, etcd keys, lists from the cache, chunks, selectors, watch', async () => {
    const created = await createCrd(crd('CronTab', { versions: ['v1', 'v2beta1'] }));
    expect(created.status.acceptedNames.plural).to.equal('');
    const base = `/apis/${GROUP}/v1/namespaces/crs/crontabs`;
    await eventually(async () => (await t.get(base)).status === 200, SERVED_WITHIN_MS, 20);
    const crdNow = (await t.get(`${CRDS}/crontabs.${GROUP}`)).body;
    expect(condition(crdNow, 'NamesAccepted')).to.deep.include({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    expect(condition(crdNow, 'Established')).to.deep.include({ status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    expect(crdNow.status.acceptedNames).to.deep.include({ plural: 'crontabs', kind: 'CronTab', singular: 'crontab', listKind: 'CronTabList' });

    const body = (name: string, labels: Obj = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name, labels }, spec: { cron: '* * * * *', image: 'x' } });
    const c = await t.post(base, body('a', { tier: 'web' }));
    expect(c.status, c.text).to.equal(201);
    expect(c.body).to.deep.include({ apiVersion: `${GROUP}/v1`, kind: 'CronTab', spec: { cron: '* * * * *', image: 'x' } });
    expect(c.body.metadata.generation).to.equal(1);
    for (const n of ['b', 'c']) expect((await t.post(base, body(n, { tier: 'db' }))).status).to.equal(201);
    // Stored where Kubernetes stores custom resources, labelled with the storage version.
    const stored = JSON.parse((await etcd.get(`/registry/${GROUP}/crontabs/crs/a`).string()) as string);
    expect(stored).to.deep.include({ apiVersion: `${GROUP}/v1`, kind: 'CronTab' });

    const got = await t.get(`${base}/a`);
    expect(got.body.spec.image).to.equal('x');
    // The other served version reads the same object relabelled.
    expect((await t.get(`/apis/${GROUP}/v2beta1/namespaces/crs/crontabs/a`)).body.apiVersion).to.equal(`${GROUP}/v2beta1`);
    const put = await t.put(`${base}/a`, { ...got.body, spec: { ...got.body.spec, image: 'y' } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.metadata.generation).to.equal(2);
    const patched = await t.request('PATCH', `${base}/a`, { body: { spec: { replicas: 3 } }, headers: { 'content-type': MERGE } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.spec).to.deep.equal({ cron: '* * * * *', image: 'y', replicas: 3 });

    const list = await t.get(`${base}?resourceVersion=0`);
    expect(list.body.kind).to.equal('CronTabList');
    expect(list.body.items.map((i: Obj) => i.metadata.name)).to.deep.equal(['a', 'b', 'c']);
    const page = await t.get(`${base}?limit=2`);
    expect(page.body.items).to.have.length(2);
    const rest = await t.get(`${base}?limit=2&continue=${encodeURIComponent(page.body.metadata.continue)}`);
    expect(rest.body.items.map((i: Obj) => i.metadata.name)).to.deep.equal(['c']);
    expect((await t.get(`${base}?labelSelector=tier%3Ddb`)).body.items.map((i: Obj) => i.metadata.name)).to.deep.equal(['b', 'c']);
    expect((await t.get(`/apis/${GROUP}/v1/crontabs`)).body.items).to.have.length(3);

    const w = openWatch(adminTarget(t.server), `${base}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    await t.del(`${base}/b`);
    expect((await w.waitFor((e) => e.type === 'DELETED')).object.metadata.name).to.equal('b');
    w.close();
    const dc = await t.del(`${base}?labelSelector=tier%3Ddb`);
    expect(dc.status, dc.text).to.equal(200);
    expect((await t.get(`${base}/c`)).status).to.equal(404);
    expect((await t.post(base, { ...body('bad'), kind: 'Other' })).status).to.equal(400);
  });

  it('serves a cluster-scoped CRD, and lists it in discovery and OpenAPI only while it exists', async () => {
    await createCrd(crd('Backup', { scope: 'Cluster', versions: ['v1beta1', 'v1', 'v1alpha1'], group: 'ops.example.com', names: { shortNames: ['bk'], categories: ['all'] } }));
    const base = '/apis/ops.example.com/v1/backups';
    await eventually(async () => (await t.get(base)).status === 200, SERVED_WITHIN_MS, 20);
    expect((await t.post(base, { apiVersion: 'ops.example.com/v1beta1', kind: 'Backup', metadata: { name: 'nightly' } })).status).to.equal(400);
    // Its finalizer holds the CRD in Terminating once deleted (until it is removed below).
    const c = await t.post(base, { apiVersion: 'ops.example.com/v1', kind: 'Backup', metadata: { name: 'nightly', finalizers: ['example.com/hold'] }, spec: { at: 1 } });
    expect(c.status, c.text).to.equal(201);
    expect(await etcd.get('/registry/ops.example.com/backups/nightly').string()).to.be.a('string');
    expect((await t.get('/apis/ops.example.com/v1/namespaces/crs/backups')).status).to.equal(404);

    const group = await eventually(async () => { const r = await t.get('/apis/ops.example.com'); return r.status === 200 && r.body; }, SERVED_WITHIN_MS, 20);
    // Kubernetes' version priority: GA, then beta, then alpha; the first is preferred.
    expect(group.versions.map((v: Obj) => v.version)).to.deep.equal(['v1', 'v1beta1', 'v1alpha1']);
    expect(group.preferredVersion.version).to.equal('v1');
    const resources = (await t.get('/apis/ops.example.com/v1')).body.resources;
    expect(resources).to.deep.equal([{
      name: 'backups', singularName: 'backup', namespaced: false, kind: 'Backup',
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      shortNames: ['bk'], categories: ['all'], storageVersionHash: storageHash('ops.example.com/v1beta1/Backup'),
    }]);
    const aggregated = await t.get('/apis', { headers: { accept: AGGREGATED } });
    const item = aggregated.body.items.find((i: Obj) => i.metadata.name === 'ops.example.com');
    expect(item.versions.map((v: Obj) => v.version)).to.deep.equal(['v1', 'v1beta1', 'v1alpha1']);
    expect(item.versions[0].resources[0]).to.deep.include({ resource: 'backups', scope: 'Cluster', responseKind: { group: 'ops.example.com', version: 'v1', kind: 'Backup' } });
    expect(aggregated.headers.etag).to.be.a('string');
    expect((await t.get('/apis', { headers: { accept: AGGREGATED, 'if-none-match': aggregated.headers.etag as string } })).status).to.equal(304);
    const index = (await t.get('/openapi/v3')).body.paths;
    expect(index['apis/ops.example.com/v1'].serverRelativeURL).to.match(/^\/openapi\/v3\/apis\/ops.example.com\/v1\?hash=[0-9A-F]{128}$/);
    const doc = (await t.get(index['apis/ops.example.com/v1'].serverRelativeURL)).body;
    expect(Object.keys(doc.paths)).to.include('/apis/ops.example.com/v1/backups/{name}');

    // Deleted: a creation while terminating is refused as Kubernetes refuses it.
    const watch = openWatch(adminTarget(t.server), `${base}?watch=1`);
    await t.del(`${CRDS}/backups.ops.example.com`);
    const refused = await eventually(async () => {
      const r = await t.post(base, { apiVersion: 'ops.example.com/v1', kind: 'Backup', metadata: { name: 'late' } });
      return r.status === 403 && r;
    }, SERVED_WITHIN_MS, 20);
    expect(refused.body.message).to.equal('backups.ops.example.com "late" is forbidden: create not allowed while custom resource definition is terminating');
    const terminating = (await t.get('/apis/ops.example.com/v1')).body.resources[0];
    expect(terminating.verbs).to.deep.equal(['delete', 'deletecollection', 'get', 'list', 'watch']);
    const released = await t.request('PATCH', `${base}/nightly`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': MERGE } });
    expect(released.status, released.text).to.equal(200);
    await eventually(async () => (await t.get(base)).status === 404, 5000, 20);
    expect((await t.get('/apis/ops.example.com')).status).to.equal(404);
    expect((await t.get('/apis')).body.groups.map((g: Obj) => g.name)).to.not.include('ops.example.com');
    expect(Object.keys((await t.get('/openapi/v3')).body.paths)).to.not.include('apis/ops.example.com/v1');
    await eventually(async () => watch.ended, 2000, 20);
  });

  it('keeps the other OpenAPI v3 hashes when a CRD comes and goes', async () => {
    const before = (await t.get('/openapi/v3')).body.paths;
    await createCrd(crd('Gadget', { group: 'gadgets.example.com' }));
    const after = await eventually(async () => {
      const p = (await t.get('/openapi/v3')).body.paths;
      return p['apis/gadgets.example.com/v1'] && p;
    }, SERVED_WITHIN_MS, 20);
    for (const key of Object.keys(before)) expect(after[key], key).to.deep.equal(before[key]);
    await removeCrd(`gadgets.gadgets.example.com`);
  });

  it('refuses conflicting names with Kubernetes reasons and does not serve over a built-in', async () => {
    await createCrd(crd('Fruit', { group: 'food.example.com', names: { shortNames: ['fr'] } }));
    await eventually(async () => (await t.get('/apis/food.example.com/v1/namespaces/crs/fruits')).status === 200, SERVED_WITHIN_MS, 20);
    // Another plural, but the same kind and short name as the first.
    await createCrd(crd('Fruit', { group: 'food.example.com', names: { plural: 'apples', singular: 'apple', shortNames: ['fr'] } }));
    const second = await eventually(async () => {
      const o = (await t.get(`${CRDS}/apples.food.example.com`)).body;
      return condition(o, 'NamesAccepted') && o;
    }, SERVED_WITHIN_MS, 20);
    // As Kubernetes: each conflict found overwrites the reason; the list kind is checked last.
    expect(condition(second, 'NamesAccepted')).to.deep.include({ status: 'False', reason: 'ListKindConflict', message: '"FruitList" is already in use' });
    expect(condition(second, 'Established')).to.deep.include({ status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    expect(second.status.acceptedNames).to.deep.include({ plural: 'apples', singular: 'apple', kind: '' });
    expect(second.status.acceptedNames.shortNames).to.equal(undefined);
    expect((await t.get('/apis/food.example.com/v1/namespaces/crs/apples')).status).to.equal(404);

    // The built-in roles of the RBAC group keep their name.
    const rbac = 'rbac.authorization.orch.io';
    await createCrd(crd('MyRole', { group: rbac, names: { plural: 'roles', singular: 'myrole' }, annotations: { 'api-approved.orch.io': 'unapproved, test' } }));
    const roleCrd = await eventually(async () => {
      const o = (await t.get(`${CRDS}/roles.${rbac}`)).body;
      return condition(o, 'NamesAccepted') && o;
    }, SERVED_WITHIN_MS, 20);
    expect(condition(roleCrd, 'NamesAccepted')).to.deep.include({ status: 'False', reason: 'PluralConflict', message: '"roles" is already in use' });
    const roles = await t.get(`/apis/${rbac}/v1/namespaces/crs/roles`);
    expect(roles.body.kind).to.equal('RoleList');
  });

  it('collects a ConfigMap owned by a custom resource, and namespace deletion removes custom resources', async () => {
    await createCrd(crd('Owner', { group: 'gc.example.com' }));
    const base = '/apis/gc.example.com/v1/namespaces/gone/owners';
    await eventually(async () => (await t.get(base)).status === 200, SERVED_WITHIN_MS, 20);
    const owner = (await t.post(base, { apiVersion: 'gc.example.com/v1', kind: 'Owner', metadata: { name: 'o' } })).body;
    const cm = await t.post('/api/v1/namespaces/gone/configmaps', {
      metadata: { name: 'dep', ownerReferences: [{ apiVersion: 'gc.example.com/v1', kind: 'Owner', name: 'o', uid: owner.metadata.uid }] },
    });
    expect(cm.status, cm.text).to.equal(201);
    expect((await t.del(`${base}/o`)).status).to.equal(200);
    await eventually(async () => (await t.get('/api/v1/namespaces/gone/configmaps/dep')).status === 404);

    await t.post(base, { apiVersion: 'gc.example.com/v1', kind: 'Owner', metadata: { name: 'p' } });
    await t.del('/api/v1/namespaces/gone');
    await eventually(async () => (await t.get('/api/v1/namespaces/gone')).status === 404);
    expect(await etcd.get('/registry/gc.example.com/owners/gone/p').string()).to.equal(null);
  });

  it('authorizes the custom resource by RBAC and counts its requests under its resource label', async () => {
    await createCrd(crd('Ticket', { group: 'desk.example.com' }));
    const base = '/apis/desk.example.com/v1/namespaces/crs/tickets';
    await eventually(async () => (await t.get(base)).status === 200, SERVED_WITHIN_MS, 20);
    await t.post('/apis/rbac.authorization.orch.io/v1/namespaces/crs/roles', {
      metadata: { name: 'tickets' }, rules: [{ apiGroups: ['desk.example.com'], resources: ['tickets'], verbs: ['get', 'list', 'create'] }],
    });
    await t.post('/apis/rbac.authorization.orch.io/v1/namespaces/crs/rolebindings', {
      metadata: { name: 'tickets' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'tickets' },
      subjects: [{ apiGroup: 'rbac.authorization.orch.io', kind: 'User', name: 'alice' }],
    });
    const alice = t.identity('alice');
    const allowed = await eventually(async () => { const r = await t.get(base, { identity: alice }); return r.status === 200 && r; });
    expect(allowed.body.kind).to.equal('TicketList');
    const bob = await t.get(base, { identity: t.identity('bob') });
    expect(bob.status).to.equal(403);
    expect(bob.body.message).to.equal('tickets.desk.example.com is forbidden: User "bob" cannot list resource "tickets" in API group "desk.example.com" in the namespace "crs"');

    const metrics = parseExposition((await t.get('/metrics')).text);
    expect(metrics.value('apiserver_request_total', { group: 'desk.example.com', resource: 'tickets', verb: 'LIST' })).to.be.greaterThan(0);
  });

  it('is served by a second replica on the same etcd within a second', async () => {
    const second = await startTestServer([], { etcd: t.etcd });
    try {
      await createCrd(crd('Replica', { group: 'ha.example.com' }));
      const base = '/apis/ha.example.com/v1/namespaces/crs/replicas';
      await eventually(async () => (await t.get(base)).status === 200 && (await second.get(base)).status === 200, SERVED_WITHIN_MS, 20);
      expect((await second.post(base, { apiVersion: 'ha.example.com/v1', kind: 'Replica', metadata: { name: 'r' } })).status).to.equal(201);
      expect((await t.get(`${base}/r`)).status).to.equal(200);
    } finally {
      await second.stop();
    }
  });
});

/** Kubernetes' storageVersionHash of `<group>/<version>/<kind>`. */
function storageHash(gvk: string): string {
  return createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');
}
