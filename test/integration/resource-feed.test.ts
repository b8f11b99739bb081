/**
 * ResourceFeed (the controllers' informer) over the watch cache of a real server and etcd: with
 * `readsOnly`, changes that cannot matter to the handlers are not handed over, and every change
 * that can is.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { storeKey } from '../../lib/registry/store-index';
import { ResourceFeed } from '../../lib/registry/resource-feed';
import { ApiObject } from '../../lib/scheme/types';

const NS = 'feed';
const cms = `/api/v1/namespaces/${NS}/configmaps`;

describe('resource feed', function () {
  this.timeout(60_000);
  let t: TestServer;
  let feed: ResourceFeed;
  const upserts: ApiObject[] = [];
  const removals: ApiObject[] = [];
  const seen = (name: string) => upserts.filter((o) => o.metadata?.name === name);

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
    const store = t.server.stores.get(storeKey('', 'v1', 'configmaps'));
    expect(store, 'configmaps are served').to.not.equal(undefined);
    feed = new ResourceFeed(store!, { upsert: (o) => upserts.push(o), remove: (o) => removals.push(o) }, 'test feed',
      { metadataOnly: true, readsOnly: ['ownerReferences', 'finalizers', 'deletionTimestamp'] });
    await feed.start();
  });
  after(async () => {
    await feed?.stop();
    await t?.stop();
  });

  /** Writes through HTTP and waits until the feed has been handed everything up to that write. */
  async function write(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<any> {
    const res = await t.request(method, path, { body });
    expect(res.status, res.text).to.be.oneOf([200, 201]);
    const rv = Number(res.body.metadata?.resourceVersion ?? res.body.details?.resourceVersion ?? 0);
    expect(await feed.sync(rv || Number((await t.get(cms)).body.metadata.resourceVersion), 10_000)).to.equal(true);
    return res.body;
  }

  it('hands over creations, changes of the fields read (before or after), and removals; skips the others', async () => {
    let cm = await write('POST', cms, { metadata: { name: 'a' }, data: { k: '1' } });
    expect(seen('a')).to.have.length(1);

    cm = await write('PUT', `${cms}/a`, { ...cm, data: { k: '2' } });
    cm = await write('PUT', `${cms}/a`, { ...cm, metadata: { ...cm.metadata, labels: { x: 'y' } } });
    expect(seen('a'), 'data and label changes are not handed over').to.have.length(1);

    cm = await write('PUT', `${cms}/a`, { ...cm, metadata: { ...cm.metadata, finalizers: ['example.com/f'] } });
    expect(seen('a')).to.have.length(2);
    expect(seen('a')[1].metadata?.finalizers).to.deep.equal(['example.com/f']);

    cm = await write('PUT', `${cms}/a`, { ...cm, data: { k: '3' } });
    expect(seen('a'), 'any change of an object that has finalizers').to.have.length(3);

    const { finalizers: _dropped, ...withoutFinalizers } = cm.metadata;
    cm = await write('PUT', `${cms}/a`, { ...cm, metadata: withoutFinalizers });
    expect(seen('a'), 'finalizers removed: the old value had them').to.have.length(4);
    expect(seen('a')[3].metadata?.finalizers).to.equal(undefined);

    cm = await write('PUT', `${cms}/a`, { ...cm, metadata: { ...cm.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'owner-uid' }] } });
    expect(seen('a')).to.have.length(5);
    expect(seen('a')[4].metadata?.ownerReferences?.[0]?.uid).to.equal('owner-uid');

    await write('DELETE', `${cms}/a`);
    expect(removals.map((o) => o.metadata?.name)).to.deep.equal(['a']);
  });

  it('hands over every change of an object whose JSON has a member of such a name anywhere (a data key, say)', async () => {
    let cm = await write('POST', cms, { metadata: { name: 'b' }, data: { finalizers: 'not metadata' } });
    cm = await write('PUT', `${cms}/b`, { ...cm, data: { finalizers: 'still not metadata' } });
    expect(seen('b')).to.have.length(2);
  });
});
