/**
 * The spec's object-deletion table, through HTTPS against a real etcd:
 * Live -> Terminating (deletionTimestamp) -> removed when the last finalizer goes.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'default';
const cms = `/api/v1/namespaces/${NS}/configmaps`;

describe('object deletion (ConfigMap)', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  async function createConfigMap(name: string, finalizers?: string[]): Promise<any> {
    const res = await t.post(cms, {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(finalizers ? { finalizers } : {}) }, data: { k: 'v' },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  describe('with finalizers', () => {
    const name = 'held';
    let deletionTimestamp: string;

    before(async () => { await createConfigMap(name, ['example.com/a', 'example.com/b']); });

    it('DELETE answers 200 with the object, now carrying a deletionTimestamp', async () => {
      const res = await t.del(`${cms}/${name}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.kind).to.equal('ConfigMap');
      expect(res.body.metadata.name).to.equal(name);
      expect(res.body.metadata.deletionTimestamp).to.be.a('string');
      expect(Date.parse(res.body.metadata.deletionTimestamp)).to.be.closeTo(Date.now(), 60_000);
      expect(res.body.metadata.finalizers).to.deep.equal(['example.com/a', 'example.com/b']);
      deletionTimestamp = res.body.metadata.deletionTimestamp;
    });

    it('the Terminating object is still retrievable', async () => {
      const res = await t.get(`${cms}/${name}`);
      expect(res.status).to.equal(200);
      expect(res.body.metadata.deletionTimestamp).to.equal(deletionTimestamp);
      expect(res.body.data).to.deep.equal({ k: 'v' });
    });

    it('a second DELETE keeps the first deletionTimestamp', async () => {
      await new Promise((r) => setTimeout(r, 1100)); // a new timestamp would differ at second precision
      const res = await t.del(`${cms}/${name}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.deletionTimestamp).to.equal(deletionTimestamp);
      const again = await t.get(`${cms}/${name}`);
      expect(again.body.metadata.deletionTimestamp).to.equal(deletionTimestamp);
    });

    it('adding a finalizer while Terminating is rejected with 422 on metadata.finalizers', async () => {
      const cur = (await t.get(`${cms}/${name}`)).body;
      cur.metadata.finalizers = [...cur.metadata.finalizers, 'example.com/late'];
      const res = await t.put(`${cms}/${name}`, cur);
      expect(res.status, res.text).to.equal(422);
      expect(res.body.reason).to.equal('Invalid');
      expect(res.body.details.causes.map((c: any) => c.field)).to.include('metadata.finalizers');
      const after = (await t.get(`${cms}/${name}`)).body;
      expect(after.metadata.finalizers).to.deep.equal(['example.com/a', 'example.com/b']);
    });

    it('removing one of two finalizers keeps the object', async () => {
      const cur = (await t.get(`${cms}/${name}`)).body;
      cur.metadata.finalizers = ['example.com/b'];
      const res = await t.put(`${cms}/${name}`, cur);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.finalizers).to.deep.equal(['example.com/b']);
      const got = await t.get(`${cms}/${name}`);
      expect(got.status).to.equal(200);
      expect(got.body.metadata.finalizers).to.deep.equal(['example.com/b']);
      expect(got.body.metadata.deletionTimestamp).to.equal(deletionTimestamp);
    });

    it('removing the last finalizer removes it from the store', async () => {
      const cur = (await t.get(`${cms}/${name}`)).body;
      cur.metadata.finalizers = [];
      const res = await t.put(`${cms}/${name}`, cur);
      expect(res.status, res.text).to.equal(200);
      const got = await t.get(`${cms}/${name}`);
      expect(got.status).to.equal(404);
      expect(got.body.reason).to.equal('NotFound');
      const list = await t.get(cms);
      expect(list.body.items.map((i: any) => i.metadata.name)).not.to.include(name);
    });

    it('the name can be reused after removal, by a new object', async () => {
      const created = await createConfigMap(name);
      expect(created.metadata.deletionTimestamp).to.equal(undefined);
      expect((await t.del(`${cms}/${name}`)).status).to.equal(200);
    });
  });

  describe('without finalizers', () => {
    it('DELETE removes the object at once and answers a Success Status', async () => {
      const cm = await createConfigMap('plain');
      const res = await t.del(`${cms}/plain`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Status', status: 'Success' });
      expect(res.body.details).to.include({ name: 'plain', kind: 'configmaps', uid: cm.metadata.uid });
      expect((await t.get(`${cms}/plain`)).status).to.equal(404);
    });

    it("kubectl's body (propagationPolicy Background, no kind) deletes too", async () => {
      await createConfigMap('by-kubectl');
      const res = await t.del(`${cms}/by-kubectl`, { propagationPolicy: 'Background' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.equal('Success');
      expect((await t.get(`${cms}/by-kubectl`)).status).to.equal(404);
    });

    it('DELETE of a missing object is 404', async () => {
      const res = await t.del(`${cms}/never-was`);
      expect(res.status).to.equal(404);
      expect(res.body.reason).to.equal('NotFound');
    });
  });

  describe('preconditions', () => {
    it('matching uid and resourceVersion preconditions succeed', async () => {
      const cm = await createConfigMap('pre-ok');
      const res = await t.del(`${cms}/pre-ok`, {
        kind: 'DeleteOptions', apiVersion: 'v1',
        preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion },
      });
      expect(res.status, res.text).to.equal(200);
      expect((await t.get(`${cms}/pre-ok`)).status).to.equal(404);
    });

    it('a stale resourceVersion or a wrong uid is 409 Conflict and the object stays', async () => {
      const cm = await createConfigMap('pre-bad');
      const update = await t.put(`${cms}/pre-bad`, { ...cm, data: { k: 'v2' } });
      expect(update.status, update.text).to.equal(200);

      const staleRv = await t.del(`${cms}/pre-bad`, { preconditions: { resourceVersion: cm.metadata.resourceVersion } });
      expect(staleRv.status, staleRv.text).to.equal(409);
      expect(staleRv.body.reason).to.equal('Conflict');

      const wrongUid = await t.del(`${cms}/pre-bad`, { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } });
      expect(wrongUid.status, wrongUid.text).to.equal(409);
      expect(wrongUid.body.reason).to.equal('Conflict');

      const got = await t.get(`${cms}/pre-bad`);
      expect(got.status).to.equal(200);
      expect(got.body.metadata.deletionTimestamp).to.equal(undefined);
      expect((await t.del(`${cms}/pre-bad`, { preconditions: { uid: cm.metadata.uid } })).status).to.equal(200);
    });

    it('a matching precondition on an object with finalizers makes it Terminating', async () => {
      const cm = await createConfigMap('pre-held', ['example.com/a']);
      const res = await t.del(`${cms}/pre-held`, { preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.deletionTimestamp).to.be.a('string');
      const cur = (await t.get(`${cms}/pre-held`)).body;
      const done = await t.put(`${cms}/pre-held`, { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
      expect(done.status, done.text).to.equal(200);
      expect((await t.get(`${cms}/pre-held`)).status).to.equal(404);
    });
  });
});
