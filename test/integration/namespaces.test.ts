/**
 * Namespaces through HTTPS against a real etcd: the system namespaces, the lifecycle admission,
 * the namespace controller emptying a Terminating namespace, and the status subresource.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const configMap = (name: string, finalizers?: string[]) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(finalizers ? { finalizers } : {}) }, data: { k: 'v' } });
const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { password: 's3cret' } });

describe('namespaces', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  describe('system namespaces', () => {
    for (const name of ['default', 'orch-system', 'orch-public']) {
      it(`${name} exists and DELETE on it is 403 Forbidden; it stays Active`, async () => {
        expect((await t.get(`/api/v1/namespaces/${name}`)).status).to.equal(200);
        const res = await t.del(`/api/v1/namespaces/${name}`);
        expect(res.status, res.text).to.equal(403);
        expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
        expect(res.body.message).to.contain('this namespace may not be deleted');
        const after = await t.get(`/api/v1/namespaces/${name}`);
        expect(after.status).to.equal(200);
        expect(after.body.metadata.deletionTimestamp).to.equal(undefined);
        expect(after.body.status.phase).to.equal('Active');
      });
    }
  });

  describe('creation', () => {
    it("a new namespace gets the controller's finalizer and phase Active", async () => {
      const res = await t.post('/api/v1/namespaces', namespace('fresh'));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.finalizers).to.deep.equal([t.server.naming.namespaceFinalizer]);
      expect(res.body.status.phase).to.equal('Active');
      const got = await t.get('/api/v1/namespaces/fresh');
      expect(got.body.spec.finalizers).to.deep.equal([t.server.naming.namespaceFinalizer]);
      expect(got.body.status.phase).to.equal('Active');
    });

    it('a name that is not a DNS label is 422', async () => {
      for (const bad of ['a.b', 'UPPER', '-lead']) {
        const res = await t.post('/api/v1/namespaces', namespace(bad));
        expect(res.status, `${bad}: ${res.text}`).to.equal(422);
        expect(res.body.reason).to.equal('Invalid');
        expect(res.body.details.causes.map((c: any) => c.field)).to.include('metadata.name');
        expect((await t.get(`/api/v1/namespaces/${bad}`)).status).to.equal(404);
      }
    });

    it('creating an object in a missing namespace is 404', async () => {
      const res = await t.post('/api/v1/namespaces/no-such-ns/configmaps', configMap('x'));
      expect(res.status, res.text).to.equal(404);
      expect(res.body.reason).to.equal('NotFound');
      expect(res.body.details).to.include({ name: 'no-such-ns', kind: 'namespaces' });
    });
  });

  describe('deletion of a namespace with content', () => {
    const ns = 'doomed';
    const base = `/api/v1/namespaces/${ns}`;

    before(async () => {
      expect((await t.post('/api/v1/namespaces', namespace(ns))).status).to.equal(201);
      for (const cm of ['cm-1', 'cm-2', 'cm-3']) expect((await t.post(`${base}/configmaps`, configMap(cm))).status).to.equal(201);
      expect((await t.post(`${base}/configmaps`, configMap('held', ['example.com/hold']))).status).to.equal(201);
      for (const s of ['s-1', 's-2']) expect((await t.post(`${base}/secrets`, secret(s))).status).to.equal(201);
    });

    it('DELETE answers 200 with the namespace in phase Terminating', async () => {
      const res = await t.del(base);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.kind).to.equal('Namespace');
      expect(res.body.metadata.deletionTimestamp).to.be.a('string');
      expect(res.body.status.phase).to.equal('Terminating');
    });

    it('creating in the Terminating namespace is 403 with cause NamespaceTerminating', async () => {
      for (const [path, body] of [[`${base}/configmaps`, configMap('late')], [`${base}/secrets`, secret('late')]] as const) {
        const res = await t.post(path, body);
        expect(res.status, res.text).to.equal(403);
        expect(res.body.reason).to.equal('Forbidden');
        expect(res.body.details.causes.map((c: any) => c.reason)).to.include('NamespaceTerminating');
      }
      expect((await t.get(`${base}/configmaps/late`)).status).to.equal(404);
    });

    it('the controller deletes the content; the namespace stays while the held ConfigMap keeps its finalizer', async () => {
      await eventually(async () => {
        const [cms, secrets] = await Promise.all([t.get(`${base}/configmaps`), t.get(`${base}/secrets`)]);
        return cms.body.items.length === 1 && secrets.body.items.length === 0;
      });
      const held = await t.get(`${base}/configmaps/held`);
      expect(held.status).to.equal(200);
      expect(held.body.metadata.deletionTimestamp).to.be.a('string');
      expect(held.body.metadata.finalizers).to.deep.equal(['example.com/hold']);
      // Give the controller a few more rounds: the namespace must not go while content remains.
      await new Promise((r) => setTimeout(r, 2500));
      const nsNow = await t.get(base);
      expect(nsNow.status).to.equal(200);
      expect(nsNow.body.status.phase).to.equal('Terminating');
      expect(nsNow.body.spec.finalizers).to.deep.equal([t.server.naming.namespaceFinalizer]);
    });

    it('removing the last content finalizer lets the controller finish: the namespace disappears', async () => {
      const held = (await t.get(`${base}/configmaps/held`)).body;
      held.metadata.finalizers = [];
      const res = await t.put(`${base}/configmaps/held`, held);
      expect(res.status, res.text).to.equal(200);
      expect((await t.get(`${base}/configmaps/held`)).status).to.equal(404);
      await eventually(async () => (await t.get(base)).status === 404);
      const list = await t.get('/api/v1/namespaces');
      expect(list.body.items.map((n: any) => n.metadata.name)).not.to.include(ns);
    });

    it('the name can be used again for a new, Active namespace', async () => {
      const res = await t.post('/api/v1/namespaces', namespace(ns));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.status.phase).to.equal('Active');
      expect((await t.get(`${base}/configmaps`)).body.items).to.deep.equal([]);
    });
  });

  describe('status subresource', () => {
    const ns = 'with-status';
    before(async () => { expect((await t.post('/api/v1/namespaces', namespace(ns))).status).to.equal(201); });

    it('PUT on /status changes status only', async () => {
      const cur = (await t.get(`/api/v1/namespaces/${ns}`)).body;
      const condition = { type: 'Example', status: 'True', reason: 'Testing', message: 'set through /status' };
      const res = await t.put(`/api/v1/namespaces/${ns}/status`, {
        ...cur,
        metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, sneaky: 'yes' } },
        spec: { finalizers: [] },
        status: { phase: 'Active', conditions: [condition] },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status.conditions).to.deep.equal([condition]);
      const got = (await t.get(`/api/v1/namespaces/${ns}`)).body;
      expect(got.status.conditions).to.deep.equal([condition]);
      expect(got.metadata.labels).not.to.have.property('sneaky');
      expect(got.spec.finalizers).to.deep.equal([t.server.naming.namespaceFinalizer]);
    });

    it('PUT on the namespace cannot change status (but changes metadata)', async () => {
      const cur = (await t.get(`/api/v1/namespaces/${ns}`)).body;
      const res = await t.put(`/api/v1/namespaces/${ns}`, {
        ...cur,
        metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, team: 'a' } },
        status: { phase: 'Terminating' },
      });
      expect(res.status, res.text).to.equal(200);
      const got = (await t.get(`/api/v1/namespaces/${ns}`)).body;
      expect(got.metadata.labels.team).to.equal('a');
      expect(got.status.phase).to.equal('Active');
      expect(got.status.conditions).to.deep.equal(cur.status.conditions);
      expect(got.metadata.deletionTimestamp).to.equal(undefined);
      // Creating content still works: the namespace did not become Terminating.
      expect((await t.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('ok'))).status).to.equal(201);
    });
  });
});
