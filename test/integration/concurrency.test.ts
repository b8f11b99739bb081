/**
 * Optimistic concurrency on PUT against a real etcd: a write names the resourceVersion it was
 * based on, and only one of several writers based on the same version wins.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'occ';
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const modifiedMessage = (name: string) =>
  `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;

describe('optimistic concurrency', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  async function create(name: string, data: Record<string, string> = { v: '0' }): Promise<any> {
    const res = await t.post(cmPath(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  it('a PUT with a stale resourceVersion is 409 Conflict with Kubernetes\' message, and changes nothing', async () => {
    const v1 = await create('stale');
    const v2 = await t.put(cmPath('stale'), { ...v1, data: { v: '1' } });
    expect(v2.status, v2.text).to.equal(200);

    const res = await t.put(cmPath('stale'), { ...v1, data: { v: 'stale write' } });
    expect(res.status).to.equal(409);
    expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: modifiedMessage('stale') });
    expect(res.body.details).to.include({ name: 'stale', kind: 'configmaps' });

    const read = (await t.get(cmPath('stale'))).body;
    expect(read.data).to.deep.equal({ v: '1' });
    expect(read.metadata.resourceVersion).to.equal(v2.body.metadata.resourceVersion);
  });

  it('a PUT with the current resourceVersion succeeds after a conflict', async () => {
    const current = (await t.get(cmPath('stale'))).body;
    const res = await t.put(cmPath('stale'), { ...current, data: { v: 'rebased' } });
    expect(res.status, res.text).to.equal(200);
    expect((await t.get(cmPath('stale'))).body.data).to.deep.equal({ v: 'rebased' });
  });

  for (const writers of [2, 10]) {
    it(`of ${writers} concurrent PUTs based on the same resourceVersion exactly one wins and its value is stored`, async () => {
      const name = `race-${writers}`;
      const base = await create(name);
      const results = await Promise.all(Array.from({ length: writers }, (_, i) =>
        t.put(cmPath(name), { ...base, data: { v: `writer-${i}` } })));

      const winners = results.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
      const losers = results.filter((r) => r.status !== 200);
      expect(winners, results.map((r) => r.status).join(',')).to.have.length(1);
      expect(losers).to.have.length(writers - 1);
      for (const r of losers) {
        expect(r.status).to.equal(409);
        expect(r.body).to.include({ reason: 'Conflict', message: modifiedMessage(name) });
      }

      const [{ r: winner, i: winnerIndex }] = winners;
      const read = (await t.get(cmPath(name))).body;
      expect(read.data).to.deep.equal({ v: `writer-${winnerIndex}` });
      expect(read.metadata.resourceVersion).to.equal(winner.body.metadata.resourceVersion);
    });
  }

  it('a PUT without resourceVersion is an unconditional update of the latest version', async () => {
    const base = await create('unconditional');
    await t.put(cmPath('unconditional'), { ...base, data: { v: 'someone else' } });
    const { resourceVersion: _omitted, ...metadata } = base.metadata;
    const res = await t.put(cmPath('unconditional'), { ...base, metadata, data: { v: 'forced' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.metadata.uid).to.equal(base.metadata.uid);
    expect((await t.get(cmPath('unconditional'))).body.data).to.deep.equal({ v: 'forced' });
  });

  it('concurrent PUTs without resourceVersion all succeed and the last write is stored', async () => {
    const base = await create('unconditional-race');
    const { resourceVersion: _omitted, ...metadata } = base.metadata;
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) =>
      t.put(cmPath('unconditional-race'), { ...base, metadata, data: { v: `w${i}` } })));
    expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
    const versions = results.map((r) => Number(r.body.metadata.resourceVersion));
    expect(new Set(versions).size).to.equal(5);
    const last = results[versions.indexOf(Math.max(...versions))];
    expect((await t.get(cmPath('unconditional-race'))).body.data).to.deep.equal(last.body.data);
  });

  it('a PUT to a missing ConfigMap is 404 and does not create it', async () => {
    const res = await t.put(cmPath('never-created'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'never-created' }, data: { a: 'b' } });
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ kind: 'Status', reason: 'NotFound', message: 'configmaps "never-created" not found' });
    expect((await t.get(cmPath('never-created'))).status).to.equal(404);
  });

  it('a PUT whose uid differs from the stored object is 409 Conflict and changes nothing', async () => {
    const base = await create('uid-mismatch');
    const wrongUid = '00000000-0000-0000-0000-000000000000';
    const res = await t.put(cmPath('uid-mismatch'), { ...base, metadata: { ...base.metadata, uid: wrongUid }, data: { v: 'x' } });
    expect(res.status).to.equal(409);
    expect(res.body).to.include({ kind: 'Status', reason: 'Conflict' });
    expect(res.body.message).to.include('Precondition failed: UID in precondition').and.include(wrongUid);
    const read = (await t.get(cmPath('uid-mismatch'))).body;
    expect(read.data).to.deep.equal({ v: '0' });
    expect(read.metadata.resourceVersion).to.equal(base.metadata.resourceVersion);
  });

  it('a DELETE with a stale resourceVersion precondition is 409 and the object stays', async () => {
    const base = await create('delete-stale');
    await t.put(cmPath('delete-stale'), { ...base, data: { v: '1' } });
    const res = await t.del(cmPath('delete-stale'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: base.metadata.resourceVersion } });
    expect(res.status).to.equal(409);
    expect(res.body.reason).to.equal('Conflict');
    expect((await t.get(cmPath('delete-stale'))).status).to.equal(200);
  });
});
