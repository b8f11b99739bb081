/**
 * One storage contract (test/contract/storage-contract.ts) for both etcd clients: the lean one
 * written here (the default) and the etcd3 npm package (--etcd-client=etcd3). Then the whole
 * server on the etcd3 package, through HTTPS: the same storage layer above either client.
 */
import { expect } from 'chai';
import { describeStorageContract } from '../contract/storage-contract';
import { createEtcdKv } from '../../lib/storage/etcd3/kv-factory';
import { startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';

describeStorageContract('lean', (opts) => createEtcdKv('lean', opts));
describeStorageContract('etcd3', (opts) => createEtcdKv('etcd3', opts));

describe('the server on --etcd-client=etcd3', function () {
  this.timeout(60_000);
  const NS = 'on-etcd3';
  const cm = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
  let t: TestServer;
  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, '--etcd-client=etcd3']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('creates, reads, lists, updates and deletes a ConfigMap, and a watch sees each change in order', async () => {
    const list = await t.get(cm());
    expect(list.status, list.text).to.equal(200);
    const w = openWatch(adminTarget(t.server), `${cm()}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    try {
      const created = await t.post(cm(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '1' } });
      expect(created.status, created.text).to.equal(201);
      const dup = await t.post(cm(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '2' } });
      expect(dup.status).to.equal(409);
      const got = await t.get(cm('a'));
      expect(got.body.data).to.deep.equal({ k: '1' });
      const updated = await t.put(cm('a'), { ...got.body, data: { k: '2' } });
      expect(updated.status, updated.text).to.equal(200);
      const stale = await t.put(cm('a'), { ...got.body, data: { k: '3' } });
      expect(stale.status).to.equal(409);
      const listed = await t.get(cm());
      expect(listed.body.items.map((i: any) => [i.metadata.name, i.data.k])).to.deep.equal([['a', '2']]);
      expect((await t.del(cm('a'))).status).to.equal(200);
      expect((await t.get(cm('a'))).status).to.equal(404);
      const events = [await w.next(), await w.next(), await w.next()];
      expect(events.map((e) => [e.type, e.object.data?.k, e.object.metadata.resourceVersion])).to.deep.equal([
        ['ADDED', '1', created.body.metadata.resourceVersion],
        ['MODIFIED', '2', updated.body.metadata.resourceVersion],
        ['DELETED', '2', events[2].object.metadata.resourceVersion],
      ]);
      expect(Number(events[2].object.metadata.resourceVersion)).to.be.above(Number(updated.body.metadata.resourceVersion));
    } finally {
      w.close();
    }
  });

  it('answers 503 when etcd is gone', async () => {
    const own = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, '--etcd-client=etcd3']);
    try {
      await own.etcd.stop();
      const res = await own.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
      expect(res.status, res.text).to.be.oneOf([503, 504]);
      expect(res.body).to.include({ kind: 'Status', status: 'Failure' });
    } finally {
      await own.stop();
    }
  });
});
