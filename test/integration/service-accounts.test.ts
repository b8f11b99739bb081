/**
 * ServiceAccount over HTTPS against a real etcd: create, get, list, update, merge and strategic
 * merge patch, server-side apply, delete (answered with the object), secret references cut down to their names,
 * kubectl's Table (NAME SECRETS AGE), protobuf in and out, discovery, and a bad name or a body of
 * the wrong type refused with nothing stored.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { PROTOBUF_PREFIX, decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

const NS = 'service-accounts';
const K8S_PB = 'application/vnd.kubernetes.protobuf';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const saPath = (name = '', ns = NS) => `/api/v1/namespaces/${ns}/serviceaccounts${name ? `/${name}` : ''}`;
type Obj = Record<string, any>;

const account = (name: string, fields: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name }, ...fields });

function expectStatus(res: HttpResponse, code: number, reason?: string): void {
  expect(res.status, res.text).to.equal(code);
  if (reason) expect(res.body).to.include({ kind: 'Status', status: 'Failure', code, reason });
}

describe('ServiceAccount', () => {
  let t: TestServer;
  const patch = (name: string, contentType: string, body: unknown) =>
    t.request('PATCH', saPath(name), { raw: JSON.stringify(body), headers: { 'content-type': contentType } });
  const names = async () => ((await t.get(saPath())).body.items as Obj[]).map((i) => i.metadata.name);

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
  });
  after(async () => { await t?.stop(); });

  describe('create, get, list, update, patch, delete', () => {
    it('creates with every field, keeps only the names of secret references, and reads it back', async () => {
      const res = await t.post(saPath(), account('builder', {
        secrets: [{ name: 'builder-token', kind: 'Secret', namespace: 'elsewhere', uid: 'u-1', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'data' }],
        imagePullSecrets: [{ name: 'registry' }],
        automountServiceAccountToken: false,
      }));
      expectStatus(res, 201);
      expect(res.body).to.include({ apiVersion: 'v1', kind: 'ServiceAccount' });
      expect(res.body.metadata).to.include({ name: 'builder', namespace: NS });
      expect(res.body.metadata.uid).to.be.a('string');
      expect(res.body.secrets).to.deep.equal([{ name: 'builder-token' }]);
      expect(res.body.imagePullSecrets).to.deep.equal([{ name: 'registry' }]);
      expect(res.body.automountServiceAccountToken).to.equal(false);

      const got = await t.get(saPath('builder'));
      expectStatus(got, 200);
      expect(got.body).to.deep.equal(res.body);
    });

    it('lists in its namespace (list kind ServiceAccountList), by field selector too', async () => {
      expectStatus(await t.post(saPath(), account('deployer')), 201);
      const list = await t.get(saPath());
      expectStatus(list, 200);
      expect(list.body).to.include({ kind: 'ServiceAccountList', apiVersion: 'v1' });
      expect(list.body.items.map((i: Obj) => i.metadata.name)).to.have.members(['builder', 'deployer']);
      const one = await t.get(`${saPath()}?fieldSelector=${encodeURIComponent('metadata.name=deployer')}`);
      expect(one.body.items.map((i: Obj) => i.metadata.name)).to.deep.equal(['deployer']);
      const all = await t.get('/api/v1/serviceaccounts');
      expect(all.body.items.map((i: Obj) => i.metadata.name)).to.include.members(['builder', 'deployer']);
    });

    it('updates (conditional and unconditional), again keeping only secret names', async () => {
      const current = (await t.get(saPath('deployer'))).body;
      const res = await t.put(saPath('deployer'), { ...current, secrets: [{ name: 's1', uid: 'x' }, { kind: 'Secret' }], automountServiceAccountToken: true });
      expectStatus(res, 200);
      expect(res.body.secrets).to.deep.equal([{ name: 's1' }, {}]);
      expect(res.body.automountServiceAccountToken).to.equal(true);
      expect(Number(res.body.metadata.resourceVersion)).to.be.greaterThan(Number(current.metadata.resourceVersion));

      expectStatus(await t.put(saPath('deployer'), { ...current, automountServiceAccountToken: false }), 409, 'Conflict');
      const { resourceVersion: _rv, ...meta } = res.body.metadata;
      const unconditional = await t.put(saPath('deployer'), { ...res.body, metadata: meta, secrets: [{ name: 's2' }] });
      expectStatus(unconditional, 200);
      expect(unconditional.body.secrets).to.deep.equal([{ name: 's2' }]);
    });

    it('merge patch replaces lists; strategic merge patch merges secrets by name', async () => {
      const merged = await patch('builder', 'application/merge-patch+json', { imagePullSecrets: [{ name: 'mirror' }], automountServiceAccountToken: null });
      expectStatus(merged, 200);
      expect(merged.body.imagePullSecrets).to.deep.equal([{ name: 'mirror' }]);
      expect(merged.body).to.not.have.property('automountServiceAccountToken');
      expect(merged.body.secrets).to.deep.equal([{ name: 'builder-token' }]);

      const strategic = await patch('builder', 'application/strategic-merge-patch+json', { secrets: [{ name: 'second', uid: 'dropped' }] });
      expectStatus(strategic, 200);
      expect(strategic.body.secrets).to.have.deep.members([{ name: 'builder-token' }, { name: 'second' }]);
      expect((await t.get(saPath('builder'))).body.secrets).to.deep.equal(strategic.body.secrets);
    });

    it('server-side apply creates, and two managers own their own secret entries (a map list keyed by name)', async () => {
      const apply = (manager: string, secrets: Obj[]) => t.request('PATCH', `${saPath('applied')}?fieldManager=${manager}`, {
        raw: JSON.stringify(account('applied', { secrets })), headers: { 'content-type': 'application/apply-patch+yaml' },
      });
      expectStatus(await apply('one', [{ name: 'a' }]), 201);
      const res = await apply('two', [{ name: 'b' }]);
      expectStatus(res, 200);
      expect(res.body.secrets).to.have.deep.members([{ name: 'a' }, { name: 'b' }]);
      expect(res.body.metadata.managedFields.map((m: Obj) => m.manager)).to.have.members(['one', 'two']);
      expectStatus(await t.del(saPath('applied')), 200);
    });

    it('DELETE answers the deleted ServiceAccount (not a Status) and the object is gone', async () => {
      const res = await t.del(saPath('deployer'));
      expectStatus(res, 200);
      expect(res.body).to.include({ kind: 'ServiceAccount', apiVersion: 'v1' });
      expect(res.body.metadata.name).to.equal('deployer');
      expectStatus(await t.get(saPath('deployer')), 404, 'NotFound');
      expect(await names()).to.deep.equal(['builder']);
    });
  });

  describe('refused bodies store nothing', () => {
    it('a name that is not a DNS subdomain is 422 Invalid on metadata.name', async () => {
      const res = await t.post(saPath(), account('Bad_Name'));
      expectStatus(res, 422, 'Invalid');
      expect(res.body.details.kind).to.equal('ServiceAccount');
      expect(res.body.details.causes.map((c: Obj) => c.field)).to.include('metadata.name');
      expect(await names()).to.not.include('Bad_Name');
    });

    it('a field of the wrong JSON type is 400 BadRequest', async () => {
      const res = await t.post(saPath(), account('typed', { automountServiceAccountToken: 'yes' }));
      expectStatus(res, 400, 'BadRequest');
      expect(res.body.message).to.match(/ServiceAccount\.automountServiceAccountToken/);
      expect(await names()).to.not.include('typed');
    });
  });

  describe('representations', () => {
    it("Table: kubectl's NAME, SECRETS (the number of secret references), AGE", async () => {
      expectStatus(await t.post(saPath(), account('empty')), 201);
      const res = await t.get(saPath(), { headers: TABLE });
      expectStatus(res, 200);
      expect(res.body).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(res.body.columnDefinitions.map((c: Obj) => [c.name, c.type, c.format, c.priority])).to.deep.equal([
        ['Name', 'string', 'name', 0], ['Secrets', 'string', '', 0], ['Age', 'string', '', 0],
      ]);
      for (const c of res.body.columnDefinitions) expect(c.description).to.be.a('string').and.not.equal('');
      const rows = new Map<string, unknown[]>(res.body.rows.map((r: Obj) => [r.cells[0], r.cells]));
      expect(rows.get('builder')!.slice(0, 2)).to.deep.equal(['builder', 2]);
      expect(rows.get('empty')!.slice(0, 2)).to.deep.equal(['empty', 0]);
      expect(rows.get('empty')![2]).to.match(/^\d+s$/);

      const one = await t.get(saPath('builder'), { headers: TABLE });
      expect(one.body.rows).to.have.length(1);
      expect(one.body.rows[0].object.metadata.name).to.equal('builder');
    });

    it('protobuf: create from a protobuf body and get as protobuf', async () => {
      const body = encodeProtobuf({
        apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'pb' },
        secrets: [{ name: 'pb-token', uid: 'gone' }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false,
      });
      const created = await t.request('POST', saPath(), { raw: body, headers: { 'content-type': K8S_PB, accept: 'application/json' } });
      expectStatus(created, 201);
      expect(created.body).to.deep.include({ secrets: [{ name: 'pb-token' }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false });

      const got = await t.get(saPath('pb'), { headers: { accept: `${K8S_PB}, application/json` } });
      expectStatus(got, 200);
      expect(got.headers['content-type']).to.equal(K8S_PB);
      expect(got.raw!.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
      expect(decodeProtobuf(got.raw!)).to.deep.equal(created.body);
    });

    it('discovery: serviceaccounts, namespaced, with short name sa', async () => {
      const res = await t.get('/api/v1');
      const sa = (res.body.resources as Obj[]).find((r) => r.name === 'serviceaccounts');
      expect(sa).to.deep.include({ kind: 'ServiceAccount', namespaced: true, singularName: 'serviceaccount', shortNames: ['sa'] });
      expect(sa!.verbs).to.have.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    });
  });
});
