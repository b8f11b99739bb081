/**
 * Create, get, list, update and delete through HTTPS against a real etcd, for a namespaced
 * kind with a Status on delete (ConfigMap, Secret) and the cluster-scoped Namespace.
 */
import { expect } from 'chai';
import YAML from 'yaml';
import { eventually, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';

const NS = 'crud';
const OTHER_NS = 'crud-other';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const secretPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/secrets${name ? `/${name}` : ''}`;

function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

function expectServerMetadata(meta: any): void {
  expect(meta.uid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(meta.creationTimestamp).to.match(RFC3339);
  expect(Math.abs(Date.parse(meta.creationTimestamp) - Date.now())).to.be.below(60_000);
  expect(meta.resourceVersion).to.be.a('string').and.match(/^\d+$/);
}

describe('CRUD over HTTPS', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    for (const name of [NS, OTHER_NS]) {
      const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(async () => { await t?.stop(); });

  describe('ConfigMap', () => {
    it('POST creates (201) with server-set uid, creationTimestamp and resourceVersion', async () => {
      const res = await t.post(cmPath(NS), configMap('cm-create', { a: '1' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(res.body.metadata).to.include({ name: 'cm-create', namespace: NS });
      expect(res.body.data).to.deep.equal({ a: '1' });
      expectServerMetadata(res.body.metadata);
    });

    it('ignores client-supplied uid and creationTimestamp on create', async () => {
      const body = configMap('cm-client-meta');
      const meta = body.metadata as Record<string, unknown>;
      meta.uid = '11111111-1111-1111-1111-111111111111';
      meta.creationTimestamp = '2001-01-01T00:00:00Z';
      const res = await t.post(cmPath(NS), body);
      expect(res.status, res.text).to.equal(201);
      expect(res.body.metadata.uid).to.not.equal(meta.uid);
      expect(res.body.metadata.creationTimestamp).to.not.equal(meta.creationTimestamp);
    });

    it('a PUT naming a replaced resourceVersion is 409 Conflict, also when it would leave the object as that version had it', async () => {
      // Right after a write, the watch cache may not have its event yet and still hold the
      // version the stale PUT names; that PUT would write nothing against the cached copy, and
      // must still be refused. Many rounds, so that some fall inside that window.
      for (let i = 0; i < 200; i++) {
        const made = await t.post(cmPath(NS), configMap(`cm-stale-${i}`, { a: '1' }));
        expect(made.status, made.text).to.equal(201);
        const changed = await t.put(cmPath(NS, `cm-stale-${i}`), { ...made.body, data: { a: '2' } });
        expect(changed.status, changed.text).to.equal(200);
        const stale = await t.put(cmPath(NS, `cm-stale-${i}`), made.body);
        expect(stale.status, `round ${i}: ${stale.text}`).to.equal(409);
        expect(stale.body.reason).to.equal('Conflict');
      }
      expect((await t.get(cmPath(NS, 'cm-stale-0'))).body.data).to.deep.equal({ a: '2' });
    });

    it('a second POST of the same name is 409 AlreadyExists', async () => {
      expect((await t.post(cmPath(NS), configMap('cm-dup'))).status).to.equal(201);
      const res = await t.post(cmPath(NS), configMap('cm-dup', { other: 'x' }));
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ kind: 'Status', reason: 'AlreadyExists', message: 'configmaps "cm-dup" already exists' });
      expect((await t.get(cmPath(NS, 'cm-dup'))).body.data).to.deep.equal({});
    });

    it('GET returns the object as created (200)', async () => {
      const created = (await t.post(cmPath(NS), configMap('cm-get', { k: 'v' }))).body;
      const res = await t.get(cmPath(NS, 'cm-get'));
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(created);
    });

    it('GET of a missing object is 404 NotFound', async () => {
      const res = await t.get(cmPath(NS, 'cm-missing'));
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'configmaps "cm-missing" not found' });
    });

    it('PUT updates (200): new data stored, uid and creationTimestamp kept, resourceVersion changes on each write', async () => {
      const created = (await t.post(cmPath(NS), configMap('cm-update', { a: '1' }))).body;
      const first = await t.put(cmPath(NS, 'cm-update'), { ...created, data: { a: '2' } });
      expect(first.status, first.text).to.equal(200);
      expect(first.body.data).to.deep.equal({ a: '2' });
      expect(first.body.metadata.uid).to.equal(created.metadata.uid);
      expect(first.body.metadata.creationTimestamp).to.equal(created.metadata.creationTimestamp);
      expect(first.body.metadata.resourceVersion).to.match(/^\d+$/).and.not.equal(created.metadata.resourceVersion);

      const second = await t.put(cmPath(NS, 'cm-update'), { ...first.body, data: { a: '3' } });
      expect(second.status, second.text).to.equal(200);
      expect(second.body.metadata.resourceVersion).to.not.be.oneOf([created.metadata.resourceVersion, first.body.metadata.resourceVersion]);

      const read = await t.get(cmPath(NS, 'cm-update'));
      expect(read.body.data).to.deep.equal({ a: '3' });
      expect(read.body.metadata.resourceVersion).to.equal(second.body.metadata.resourceVersion);
    });

    it('lists one namespace as a ConfigMapList with a numeric list resourceVersion', async () => {
      await t.post(cmPath(OTHER_NS), configMap('cm-elsewhere'));
      const res = await t.get(cmPath(NS));
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ kind: 'ConfigMapList', apiVersion: 'v1' });
      expect(res.body.metadata.resourceVersion).to.match(/^\d+$/);
      const names = res.body.items.map((i: any) => i.metadata.name);
      expect(names).to.include.members(['cm-create', 'cm-get', 'cm-update']);
      expect(names).to.not.include('cm-elsewhere');
      for (const item of res.body.items) {
        expect(item.metadata.namespace).to.equal(NS);
        expect(item).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      }
    });

    it('the list resourceVersion advances after a write', async () => {
      const before = (await t.get(cmPath(NS))).body.metadata.resourceVersion;
      const created = (await t.post(cmPath(NS), configMap('cm-advance'))).body;
      const after = (await t.get(cmPath(NS))).body.metadata.resourceVersion;
      expect(Number(after)).to.be.greaterThan(Number(before));
      expect(Number(after)).to.be.at.least(Number(created.metadata.resourceVersion));
    });

    it('/api/v1/configmaps lists across all namespaces', async () => {
      const res = await t.get('/api/v1/configmaps');
      expect(res.status).to.equal(200);
      expect(res.body.kind).to.equal('ConfigMapList');
      const keys = res.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
      expect(keys).to.include.members([`${NS}/cm-create`, `${OTHER_NS}/cm-elsewhere`]);
    });

    it('DELETE answers 200 with a Success Status naming the object, and the object is gone', async () => {
      const created = (await t.post(cmPath(NS), configMap('cm-delete'))).body;
      const res = await t.del(cmPath(NS, 'cm-delete'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
      expect(res.body.details).to.deep.equal({ name: 'cm-delete', kind: 'configmaps', uid: created.metadata.uid });
      expect((await t.get(cmPath(NS, 'cm-delete'))).status).to.equal(404);
      expect((await t.del(cmPath(NS, 'cm-delete'))).status).to.equal(404);
    });

    it('a deleted name can be created again, with a new uid', async () => {
      const first = (await t.post(cmPath(NS), configMap('cm-reuse'))).body;
      expect((await t.del(cmPath(NS, 'cm-reuse'))).status).to.equal(200);
      const second = await t.post(cmPath(NS), configMap('cm-reuse'));
      expect(second.status).to.equal(201);
      expect(second.body.metadata.uid).to.not.equal(first.metadata.uid);
    });

    it('metadata as ObjectMeta decodes it: empty maps, lists and strings and nulls are not stored, on create and update', async () => {
      const created = await t.post(cmPath(NS), {
        apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' },
        metadata: { name: 'meta-empties', generateName: '', uid: '', labels: {}, annotations: null, finalizers: [], ownerReferences: [], deletionTimestamp: null },
      });
      expect(created.status, created.text).to.equal(201);
      const keys = ['generateName', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'deletionTimestamp'];
      expect(created.body.metadata).to.not.have.any.keys(...keys);
      expectServerMetadata(created.body.metadata);
      const put = await t.put(cmPath(NS, 'meta-empties'), { ...created.body, metadata: { ...created.body.metadata, labels: {}, annotations: { a: '1' }, finalizers: null } });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.metadata.annotations).to.deep.equal({ a: '1' });
      expect(put.body.metadata).to.not.have.any.keys('labels', 'finalizers');
      // A merge patch that removes the last annotation leaves no `annotations: {}`.
      const patched = await t.request('PATCH', cmPath(NS, 'meta-empties'), { raw: '{"metadata":{"annotations":{"a":null}}}', headers: { 'content-type': 'application/merge-patch+json' } });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.metadata).to.not.have.property('annotations');
      expect((await t.get(cmPath(NS, 'meta-empties'))).body.metadata).to.not.have.any.keys(...keys);
    });

    it('generateName: the name is the prefix plus 5 characters, valid, unique and retrievable', async () => {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } };
      const a = await t.post(cmPath(NS), body);
      const b = await t.post(cmPath(NS), body);
      expect(a.status, a.text).to.equal(201);
      expect(b.status, b.text).to.equal(201);
      for (const res of [a, b]) {
        expect(res.body.metadata.name).to.match(/^gen-[a-z0-9]{5}$/);
        expect(res.body.metadata.generateName).to.equal('gen-');
        expect((await t.get(cmPath(NS, res.body.metadata.name))).status).to.equal(200);
      }
      expect(a.body.metadata.name).to.not.equal(b.body.metadata.name);
    });
  });

  describe('Secret', () => {
    it('merges stringData into base64 data (stringData wins), never returns it, defaults type to Opaque', async () => {
      const res = await t.post(secretPath(NS), {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec-create' },
        data: { a: b64('from-data'), keep: b64('kept') }, stringData: { a: 'from-stringData', b: 'hello' },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ kind: 'Secret', apiVersion: 'v1', type: 'Opaque' });
      expect(res.body.data).to.deep.equal({ a: b64('from-stringData'), keep: b64('kept'), b: b64('hello') });
      expect(res.body).to.not.have.property('stringData');
      expectServerMetadata(res.body.metadata);

      const read = await t.get(secretPath(NS, 'sec-create'));
      expect(read.body).to.not.have.property('stringData');
      expect(read.body.data).to.deep.equal(res.body.data);
      expect(read.body.type).to.equal('Opaque');
    });

    it('keeps an explicit type', async () => {
      const res = await t.post(secretPath(NS), {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec-typed' }, type: 'example.com/custom', stringData: { x: 'y' },
      });
      expect(res.status, res.text).to.equal(201);
      expect((await t.get(secretPath(NS, 'sec-typed'))).body.type).to.equal('example.com/custom');
    });

    it('PUT with stringData updates data, and the list is a SecretList without stringData', async () => {
      const created = (await t.post(secretPath(NS), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec-update' }, stringData: { p: 'one' } })).body;
      const res = await t.put(secretPath(NS, 'sec-update'), { ...created, stringData: { p: 'two', q: 'three' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal({ p: b64('two'), q: b64('three') });
      expect(res.body).to.not.have.property('stringData');
      expect(res.body.metadata.resourceVersion).to.not.equal(created.metadata.resourceVersion);

      const list = await t.get(secretPath(NS));
      expect(list.body).to.include({ kind: 'SecretList', apiVersion: 'v1' });
      expect(list.body.metadata.resourceVersion).to.match(/^\d+$/);
      const item = list.body.items.find((i: any) => i.metadata.name === 'sec-update');
      expect(item.data).to.deep.equal({ p: b64('two'), q: b64('three') });
      for (const i of list.body.items) expect(i).to.not.have.property('stringData');
    });

    it('DELETE answers a Success Status with kind secrets and the uid', async () => {
      const created = (await t.post(secretPath(NS), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec-delete' } })).body;
      const res = await t.del(secretPath(NS, 'sec-delete'));
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ kind: 'Status', status: 'Success' });
      expect(res.body.details).to.deep.equal({ name: 'sec-delete', kind: 'secrets', uid: created.metadata.uid });
      expect((await t.get(secretPath(NS, 'sec-delete'))).status).to.equal(404);
    });
  });

  describe('Namespace (cluster-scoped)', () => {
    it('create (201) with phase Active, get, list as NamespaceList, update (200)', async () => {
      const created = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crud-ns' } });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ kind: 'Namespace', apiVersion: 'v1' });
      expect(created.body.metadata).to.not.have.property('namespace');
      expect(created.body.status).to.deep.equal({ phase: 'Active' });
      expectServerMetadata(created.body.metadata);

      const read = await t.get('/api/v1/namespaces/crud-ns');
      expect(read.status).to.equal(200);
      expect(read.body.metadata.uid).to.equal(created.body.metadata.uid);

      const list = await t.get('/api/v1/namespaces');
      expect(list.body).to.include({ kind: 'NamespaceList', apiVersion: 'v1' });
      expect(list.body.metadata.resourceVersion).to.match(/^\d+$/);
      expect(list.body.items.map((n: any) => n.metadata.name)).to.include('crud-ns');

      const labels = { ...read.body.metadata.labels, team: 'blue' };
      const updated = await t.put('/api/v1/namespaces/crud-ns', { ...read.body, metadata: { ...read.body.metadata, labels } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body.metadata.labels.team).to.equal('blue');
      expect(updated.body.metadata.resourceVersion).to.not.equal(read.body.metadata.resourceVersion);
      expect((await t.get('/api/v1/namespaces/crud-ns')).body.metadata.labels.team).to.equal('blue');
    });

    it('DELETE answers the object (Terminating), and the namespace is then removed', async () => {
      const res = await t.del('/api/v1/namespaces/crud-ns');
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Namespace', apiVersion: 'v1' });
      expect(res.body.metadata.name).to.equal('crud-ns');
      expect(res.body.metadata.deletionTimestamp).to.match(RFC3339);
      expect(res.body.status.phase).to.equal('Terminating');
      await eventually(async () => (await t.get('/api/v1/namespaces/crud-ns')).status === 404);
    });
  });

  describe('representations', () => {
    it('accepts a YAML body (Content-Type application/yaml)', async () => {
      const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-yaml\n  labels:\n    from: yaml\ndata:\n  greeting: hello\n  multi: |\n    line1\n    line2\n';
      const res = await t.request('POST', cmPath(NS), { raw: yaml, headers: { 'content-type': 'application/yaml' } });
      expect(res.status, res.text).to.equal(201);
      const read = await t.get(cmPath(NS, 'cm-yaml'));
      expect(read.body.data).to.deep.equal({ greeting: 'hello', multi: 'line1\nline2\n' });
      expect(read.body.metadata.labels).to.deep.equal({ from: 'yaml' });
    });

    it('answers YAML for Accept: application/yaml', async () => {
      const res = await t.get(cmPath(NS, 'cm-yaml'), { headers: { accept: 'application/yaml' } });
      expect(res.status).to.equal(200);
      expect(String(res.headers['content-type'])).to.match(/^application\/yaml/);
      expect(res.body).to.equal(undefined); // not JSON
      const obj = YAML.parse(res.text);
      expect(obj).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(obj.data.greeting).to.equal('hello');
    });

    it('answers a YAML list and a YAML error for Accept: application/yaml', async () => {
      const list = await t.get(cmPath(NS), { headers: { accept: 'application/yaml' } });
      expect(YAML.parse(list.text).kind).to.equal('ConfigMapList');
      const missing = await t.get(cmPath(NS, 'nope'), { headers: { accept: 'application/yaml' } });
      expect(missing.status).to.equal(404);
      expect(YAML.parse(missing.text)).to.include({ kind: 'Status', reason: 'NotFound' });
    });

    it('?pretty indents the JSON; without it the JSON is one line', async () => {
      const pretty = await t.get(`${cmPath(NS, 'cm-yaml')}?pretty=true`);
      expect(pretty.status).to.equal(200);
      expect(pretty.text).to.match(/^\{\n {2}"/);
      expect(pretty.body.metadata.name).to.equal('cm-yaml');
      const plain = await t.get(cmPath(NS, 'cm-yaml'));
      expect(plain.text.trim()).to.not.include('\n');
      expect(pretty.body).to.deep.equal(plain.body);
    });
  });

  describe('deletecollection', () => {
    const ns = 'crud-dc';
    before(async () => {
      expect((await t.post('/api/v1/namespaces', { metadata: { name: ns } })).status).to.equal(201);
      for (const [name, app] of [['a1', 'a'], ['a2', 'a'], ['a3', 'a'], ['b1', 'b'], ['b2', 'b']]) {
        expect((await t.post(cmPath(ns), configMap(name, {}, { app }))).status).to.equal(201);
      }
    });

    it('deletes only the objects the label selector matches and answers them as a ConfigMapList', async () => {
      const res = await t.del(`${cmPath(ns)}?labelSelector=${encodeURIComponent('app=a')}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'ConfigMapList', apiVersion: 'v1' });
      expect(res.body.items.map((i: any) => i.metadata.name).sort()).to.deep.equal(['a1', 'a2', 'a3']);
      const left = await t.get(cmPath(ns));
      expect(left.body.items.map((i: any) => i.metadata.name).sort()).to.deep.equal(['b1', 'b2']);
      const same = await t.get(cmPath(OTHER_NS));
      expect(same.body.items.map((i: any) => i.metadata.name)).to.include('cm-elsewhere');
    });
  });

  describe('dryRun=All', () => {
    const ns = 'crud-dry';
    let existing: any;
    before(async () => {
      expect((await t.post('/api/v1/namespaces', { metadata: { name: ns } })).status).to.equal(201);
      existing = (await t.post(cmPath(ns), configMap('dry-existing', { v: 'original' }, { set: 'dry' }))).body;
      await t.post(cmPath(ns), configMap('dry-other', {}, { set: 'dry' }));
    });

    async function namesAndVersions(): Promise<string[]> {
      const list = await t.get(cmPath(ns));
      return list.body.items.map((i: any) => `${i.metadata.name}@${i.metadata.resourceVersion}`).sort();
    }

    it('POST answers 201 with the would-be object and stores nothing', async () => {
      const before = await namesAndVersions();
      const res = await t.post(`${cmPath(ns)}?dryRun=All`, configMap('dry-new', { x: 'y' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ kind: 'ConfigMap' });
      expect(res.body.metadata).to.include({ name: 'dry-new', namespace: ns });
      expect(res.body.data).to.deep.equal({ x: 'y' });
      expect((await t.get(cmPath(ns, 'dry-new'))).status).to.equal(404);
      expect(await namesAndVersions()).to.deep.equal(before);
    });

    it('POST still validates: an invalid object is 422 even in dry run', async () => {
      const res = await t.post(`${cmPath(ns)}?dryRun=All`, configMap('Bad_Name'));
      expect(res.status).to.equal(422);
    });

    it('PUT answers 200 with the would-be object and leaves the stored one unchanged', async () => {
      const res = await t.put(`${cmPath(ns, 'dry-existing')}?dryRun=All`, { ...existing, data: { v: 'changed' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal({ v: 'changed' });
      const read = await t.get(cmPath(ns, 'dry-existing'));
      expect(read.body.data).to.deep.equal({ v: 'original' });
      expect(read.body.metadata.resourceVersion).to.equal(existing.metadata.resourceVersion);
    });

    it('DELETE answers the Success Status and the object stays', async () => {
      const res = await t.del(`${cmPath(ns, 'dry-existing')}?dryRun=All`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Status', status: 'Success' });
      expect(res.body.details).to.include({ name: 'dry-existing', uid: existing.metadata.uid });
      const read = await t.get(cmPath(ns, 'dry-existing'));
      expect(read.status).to.equal(200);
      expect(read.body.metadata.resourceVersion).to.equal(existing.metadata.resourceVersion);
    });

    it('deletecollection answers the would-be deleted objects and deletes none', async () => {
      const before = await namesAndVersions();
      const res = await t.del(`${cmPath(ns)}?dryRun=All&labelSelector=set%3Ddry`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.kind).to.equal('ConfigMapList');
      expect(res.body.items.map((i: any) => i.metadata.name).sort()).to.deep.equal(['dry-existing', 'dry-other']);
      expect(await namesAndVersions()).to.deep.equal(before);
    });

    it('DELETE of a Namespace answers it as Terminating but leaves it Active', async () => {
      const res = await t.del(`/api/v1/namespaces/${ns}?dryRun=All`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status.phase).to.equal('Terminating');
      const read = await t.get(`/api/v1/namespaces/${ns}`);
      expect(read.body.status.phase).to.equal('Active');
      expect(read.body.metadata).to.not.have.property('deletionTimestamp');
    });

    it('an unknown dryRun value is 400 with the Kubernetes dryRun cause, and nothing is stored', async () => {
      const before = await namesAndVersions();
      for (const [method, path, body] of [
        ['POST', cmPath(ns), configMap('dry-bad')],
        ['PUT', cmPath(ns, 'dry-existing'), { ...existing, data: { v: 'bad' } }],
        ['DELETE', cmPath(ns, 'dry-existing'), undefined],
        ['DELETE', cmPath(ns), undefined],
      ] as const) {
        const res = await t.request(method, `${path}?dryRun=Everything`, { body });
        expect(res.status, `${method} ${path}: ${res.text}`).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest' });
        expect(res.body.message).to.include('dryRun: Unsupported value');
        expect(res.body.details.causes[0]).to.include({ field: 'dryRun', reason: 'FieldValueNotSupported' });
      }
      expect(await namesAndVersions()).to.deep.equal(before);
    });
  });
});
