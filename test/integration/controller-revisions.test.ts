/**
 * apps/v1 ControllerRevision over HTTPS against a real etcd, as kube-apiserver 1.32 serves it:
 * the apps group in discovery (the same name in both flavors), Go's zero revision, the rules of
 * ValidateControllerRevision and ValidateControllerRevisionUpdate with Kubernetes' field paths,
 * reasons and messages (a failed write stores nothing), PUT that does not create, DELETE
 * answering a Status, and kubectl's NAME CONTROLLER REVISION AGE table.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'controller-revisions';
const path = (name = '') => `/apis/apps/v1/namespaces/${NS}/controllerrevisions${name ? `/${name}` : ''}`;
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

type Body = Record<string, any>;

const revision = (name: string, fields: Body = {}, metadata: Body = {}): Body =>
  ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name, ...metadata }, ...fields });

function expectInvalid(res: HttpResponse, name: string, causes: Cause[]): void {
  expectInvalidCauses(res, 'ControllerRevision', causes);
  expect(res.body.details).to.include({ name, group: 'apps' });
  expect(res.body.details.causes).to.have.deep.members(causes);
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const expected = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  expect(res.body.message).to.equal(`ControllerRevision.apps "${name}" is invalid: ${expected}`);
}

describe('ControllerRevision (apps/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  const rejected = (write: () => Promise<HttpResponse>) => rejectedLeavingStore(t, path(), write);

  describe('discovery', () => {
    it('lists the apps group with v1 preferred, under the name apps', async () => {
      const groups = await t.get('/apis');
      const apps = (groups.body.groups as Body[]).find((g) => g.name === 'apps');
      expect(apps).to.deep.equal({
        name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      });
      const group = await t.get('/apis/apps');
      expect(group.status).to.equal(200);
      expect(group.body).to.include({ kind: 'APIGroup', name: 'apps' });
    });

    it('lists controllerrevisions in apps/v1 without short names or categories', async () => {
      const list = await t.get('/apis/apps/v1');
      expect(list.body.groupVersion).to.equal('apps/v1');
      const r = (list.body.resources as Body[]).find((x) => x.name === 'controllerrevisions');
      expect(r).to.include({ singularName: 'controllerrevision', namespaced: true, kind: 'ControllerRevision' });
      expect(r!.verbs).to.deep.equal(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
      expect(r!.shortNames).to.equal(undefined);
      expect(r!.categories).to.equal(undefined);
    });

    it('has an OpenAPI v3 document with data as a RawExtension and revision required', async () => {
      const doc = await t.get('/openapi/v3/apis/apps/v1');
      expect(doc.status).to.equal(200);
      const s = doc.body.components.schemas['io.k8s.api.apps.v1.ControllerRevision'];
      expect(s.required).to.deep.equal(['revision']);
      expect(JSON.stringify(s.properties.data)).to.include('io.k8s.apimachinery.pkg.runtime.RawExtension');
      expect(s.properties.revision).to.include({ type: 'integer', format: 'int64' });
    });
  });

  describe('create', () => {
    it('keeps data as written and defaults revision to 0 (Go writes it always)', async () => {
      const data = { spec: { template: { metadata: { labels: { app: 'web' } } } }, b: 2, a: 1 };
      const res = await t.post(path(), revision('no-revision', { data }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.revision).to.equal(0);
      expect(res.body.data).to.deep.equal(data);
      expect(Object.keys(res.body.data)).to.deep.equal(['spec', 'b', 'a']);
      expect((await t.get(path('no-revision'))).body.revision).to.equal(0);
    });

    it('owns data as one value in managedFields (RawExtension is atomic for server-side apply)', async () => {
      const res = await t.post(`${path()}?fieldManager=writer`, revision('owned', { data: { spec: { a: 1 } }, revision: 1 }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.metadata.managedFields[0].fieldsV1).to.deep.equal({ 'f:data': {}, 'f:revision': {} });
      const applied = await t.request('PATCH', `${path('applied')}?fieldManager=applier`, {
        raw: JSON.stringify(revision('applied', { data: { spec: { a: 1 } }, revision: 1 })),
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      expect(applied.status, applied.text).to.equal(201);
      expect(applied.body.metadata.managedFields[0]).to.deep.include({ manager: 'applier', operation: 'Apply', fieldsV1: { 'f:data': {}, 'f:revision': {} } });
    });

    it('takes an empty data object and a large revision', async () => {
      const res = await t.post(path(), revision('empty-data', { data: {}, revision: 9007199254740991 }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.deep.include({ data: {}, revision: 9007199254740991 });
    });

    const invalid: Array<[string, Body, Cause[]]> = [
      ['no data', { revision: 1 }, [{ field: 'data', reason: 'FieldValueRequired', message: 'Required value: data is mandatory' }]],
      ['data null', { data: null, revision: 1 }, [{ field: 'data', reason: 'FieldValueRequired', message: 'Required value: data is mandatory' }]],
      ['a negative revision', { data: { a: 1 }, revision: -1 },
        [{ field: 'revision', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['no data and a negative revision', { revision: -5 }, [
        { field: 'data', reason: 'FieldValueRequired', message: 'Required value: data is mandatory' },
        { field: 'revision', reason: 'FieldValueInvalid', message: 'Invalid value: -5: must be greater than or equal to 0' },
      ]],
    ];
    invalid.forEach(([what, fields, causes], i) => {
      it(`refuses ${what} (422, nothing stored)`, async () => {
        const name = `invalid-${i}`;
        expectInvalid(await rejected(() => t.post(path(), revision(name, fields))), name, causes);
      });
    });

    it('refuses a revision that is not an int64 as a decode error (400)', async () => {
      for (const bad of ['1', 1.5, true]) {
        const res = await rejected(() => t.post(path(), revision('bad-type', { data: {}, revision: bad })));
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', reason: 'BadRequest' });
        expect(res.body.message).to.include('Go struct field ControllerRevision.revision of type int64');
      }
    });

    it('refuses a bad name as ValidateObjectMeta does', async () => {
      const res = await rejected(() => t.post(path(), revision('Bad_Name', { data: {} })));
      expect(res.status).to.equal(422);
      expect(res.body.details.causes[0]).to.include({ field: 'metadata.name', reason: 'FieldValueInvalid' });
    });
  });

  describe('update', () => {
    before(async () => {
      expect((await t.post(path(), revision('upd', { data: { b: 1, a: { c: [1, 2] } }, revision: 1 }))).status).to.equal(201);
    });

    it('changes labels and revision, data unchanged (200)', async () => {
      const cur = (await t.get(path('upd'))).body;
      const res = await t.put(path('upd'), { ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } }, revision: 2 });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.revision).to.equal(2);
      expect(res.body.metadata.labels).to.deep.equal({ x: 'y' });
    });

    it('refuses a change of data: field is immutable, with the value Go prints', async () => {
      const cur = (await t.get(path('upd'))).body;
      const res = await rejected(() => t.put(path('upd'), { ...cur, data: { b: 2 } }));
      const raw = [...Buffer.from('{"b":2}')].map((b) => `0x${b.toString(16)}`).join(', ');
      expectInvalid(res, 'upd', [{
        field: 'data', reason: 'FieldValueInvalid',
        message: `Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{${raw}}, ContentEncoding:"", ContentType:"application/json"}: field is immutable`,
      }]);
    });

    it('refuses the same data with its keys in another order (Go compares the raw bytes)', async () => {
      const cur = (await t.get(path('upd'))).body;
      const res = await rejected(() => t.put(path('upd'), { ...cur, data: { a: { c: [1, 2] }, b: 1 } }));
      expect(res.status).to.equal(422);
      expect(res.body.details.causes.map((c: Cause) => c.field)).to.deep.equal(['data']);
    });

    it('refuses data removed: data is mandatory, and immutable', async () => {
      const cur = (await t.get(path('upd'))).body;
      const { data: _gone, ...rest } = cur;
      const res = await rejected(() => t.put(path('upd'), rest));
      expectInvalid(res, 'upd', [
        { field: 'data', reason: 'FieldValueRequired', message: 'Required value: data is mandatory' },
        { field: 'data', reason: 'FieldValueInvalid', message: 'Invalid value: null: field is immutable' },
      ]);
    });

    it('refuses a negative revision on update', async () => {
      const cur = (await t.get(path('upd'))).body;
      const res = await rejected(() => t.put(path('upd'), { ...cur, revision: -2 }));
      expectInvalid(res, 'upd', [{ field: 'revision', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' }]);
    });

    it('a merge patch of data is refused, one of labels is taken', async () => {
      const headers = { 'Content-Type': 'application/merge-patch+json' };
      const bad = await rejected(() => t.request('PATCH', path('upd'), { raw: JSON.stringify({ data: { b: 3 } }), headers }));
      expect(bad.status).to.equal(422);
      const ok = await t.request('PATCH', path('upd'), { raw: JSON.stringify({ metadata: { labels: { z: '1' } } }), headers });
      expect(ok.status, ok.text).to.equal(200);
    });

    it('PUT of a missing object does not create it (404)', async () => {
      const res = await t.put(path('missing'), revision('missing', { data: {}, revision: 1 }));
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ kind: 'Status', reason: 'NotFound' });
    });
  });

  it('DELETE answers a Success Status', async () => {
    expect((await t.post(path(), revision('gone', { data: {} }))).status).to.equal(201);
    const res = await t.del(path('gone'));
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ kind: 'Status', status: 'Success' });
    expect(res.body.details).to.include({ name: 'gone', group: 'apps', kind: 'controllerrevisions' });
  });

  describe('Table', () => {
    const uid = '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11';
    before(async () => {
      // The owners' kinds are served: a revision whose owners are all missing would be garbage
      // collected, so those owners exist.
      const owner = async (resource: string, kind: string, name: string): Promise<string> => {
        const selector = { matchLabels: { app: name } };
        const template = { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
        const res = await t.post(`/apis/apps/v1/namespaces/${NS}/${resource}`, { apiVersion: 'apps/v1', kind, metadata: { name }, spec: { selector, template } });
        expect(res.status, res.text).to.equal(201);
        return res.body.metadata.uid;
      };
      const web = await owner('statefulsets', 'StatefulSet', 'web');
      const ds = await owner('daemonsets', 'DaemonSet', 'ds');
      const kubeProxy = await owner('daemonsets', 'DaemonSet', 'kube-proxy');
      const rc = await t.post(`/api/v1/namespaces/${NS}/replicationcontrollers`, {
        apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' },
        spec: { selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      expect(rc.status, rc.text).to.equal(201);
      const owned = (name: string, owners: Body[], rev: number) => t.post(path(), revision(name, { data: { n: rev }, revision: rev }, { ownerReferences: owners }));
      expect((await owned('tbl-sts', [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: web, controller: true }], 3)).status).to.equal(201);
      expect((await owned('tbl-core', [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: rc.body.metadata.uid, controller: true }], 4)).status).to.equal(201);
      expect((await owned('tbl-none', [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: ds }], 5)).status).to.equal(201);
      expect((await owned('tbl-second', [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid, controller: false },
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', uid: kubeProxy, controller: true },
      ], 6)).status).to.equal(201);
    });

    it('has kubectl\'s NAME CONTROLLER REVISION AGE columns', async () => {
      const res = await t.get(path(), { headers: TABLE });
      expect(res.status).to.equal(200);
      expect(res.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.format])).to.deep.equal([
        ['Name', 'string', 'name'], ['Controller', 'string', ''], ['Revision', 'string', ''], ['Age', 'string', ''],
      ]);
      expect(res.body.columnDefinitions[1].description).to.equal('Controller of the object');
    });

    it('prints the controller as <kind>.<group>/<name>, <none> without one, and the revision number', async () => {
      const res = await t.get(path(), { headers: TABLE });
      const rows = Object.fromEntries((res.body.rows as Body[]).map((r) => [r.cells[0], r.cells.slice(1, 3)]));
      expect(rows['tbl-sts']).to.deep.equal(['statefulset.apps/web', 3]);
      expect(rows['tbl-core']).to.deep.equal(['replicationcontroller/rc', 4]);
      expect(rows['tbl-none']).to.deep.equal(['<none>', 5]);
      expect(rows['tbl-second']).to.deep.equal(['daemonset.apps/kube-proxy', 6]);
      expect(rows['no-revision']).to.deep.equal(['<none>', 0]);
    });
  });
});
