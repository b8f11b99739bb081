/**
 * Single-object reads of the current state (issue 45): a GET without resourceVersion is one read of
 * the key from etcd, as kube-apiserver answers it, so a value written to etcd behind the server's
 * back is returned at once; a GET with resourceVersion=0 is the watch cache's. A TokenRequest
 * made as a kubelet makes it reads its bound pod once for NodeRestriction and the handler. etcd
 * reads are counted with the server's etcd_requests_total.
 */
import { expect } from 'chai';
import { startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { Exposition, parseExposition } from '../helpers/prom-text';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';

async function scrape(t: TestServer): Promise<Exposition> {
  const res = await t.get('/metrics');
  expect(res.status, res.text).to.equal(200);
  return parseExposition(res.text);
}

/** etcd gets of `type` made by the server while `fn` ran. */
async function etcdGets(t: TestServer, type: string, fn: () => Promise<void>): Promise<number> {
  const before = await scrape(t);
  await fn();
  const after = await scrape(t);
  const labels = { operation: 'get', type };
  return after.value('etcd_requests_total', labels) - before.value('etcd_requests_total', labels);
}

describe('consistent single-object reads (watch cache on)', function () {
  this.timeout(120_000);
  const NS = 'cget';
  const CM = `/api/v1/namespaces/${NS}/configmaps`;
  const KEY = `/registry/configmaps/${NS}/a`;
  let t: TestServer;
  let own: Etcd3Storage;

  /** Replaces the stored ConfigMap `a` in etcd directly, bypassing the server; its new mod_revision. */
  const writeBehind = async (v: string): Promise<number> => {
    const kv = (await own.get(KEY)).kv!;
    const obj = JSON.parse(kv.value.toString());
    const res = await own.update(KEY, Buffer.from(JSON.stringify({ ...obj, data: { v } })), kv.modRevision);
    expect(res.ok).to.equal(true);
    return res.revision;
  };

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    own = new Etcd3Storage(new EtcdKvClient({ endpoints: [t.etcdEndpoint] }));
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    expect((await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: '0' } })).status).to.equal(201);
  });
  after(async () => {
    await own?.close();
    await t?.stop();
  });

  it('a GET without resourceVersion returns a value written to etcd directly at once, with its resourceVersion, by one etcd read', async () => {
    const rounds = 10;
    const gets = await etcdGets(t, 'configmaps', async () => {
      for (let i = 1; i <= rounds; i++) {
        const rev = await writeBehind(`direct-${i}`);
        const res = await t.get(`${CM}/a`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.data).to.deep.equal({ v: `direct-${i}` });
        expect(res.body.metadata.resourceVersion).to.equal(String(rev));
      }
    });
    expect(gets).to.equal(rounds);
  });

  it('a GET without resourceVersion of a key deleted in etcd directly is 404 at once', async () => {
    await writeBehind('doomed');
    const kv = (await own.get(KEY)).kv!;
    expect((await own.delete(KEY, kv.modRevision)).ok).to.equal(true);
    const res = await t.get(`${CM}/a`);
    expect(res.status, res.text).to.equal(404);
    expect(res.body).to.include({ kind: 'Status', reason: 'NotFound', message: 'configmaps "a" not found' });
    expect(res.body.details).to.deep.equal({ name: 'a', kind: 'configmaps' });
  });

  it('a GET with resourceVersion=0 is served from the watch cache: no etcd read', async () => {
    const created = await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { v: '1' } });
    expect(created.status, created.text).to.equal(201);
    // Once the cache holds the write (a read not older than it), reads at 0 stay in memory.
    const rv = created.body.metadata.resourceVersion;
    expect((await t.get(`${CM}/b?resourceVersion=${rv}`)).status).to.equal(200);
    const gets = await etcdGets(t, 'configmaps', async () => {
      for (let i = 0; i < 10; i++) {
        const res = await t.get(`${CM}/b?resourceVersion=0`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.data).to.deep.equal({ v: '1' });
      }
    });
    expect(gets).to.equal(0);
  });
});

describe('TokenRequest as a kubelet: one read of the bound pod', function () {
  this.timeout(120_000);
  const PODS = '/api/v1/namespaces/default/pods';
  const TOKEN = '/api/v1/namespaces/default/serviceaccounts/default/token';
  let t: TestServer;
  const uids: Record<string, string> = {};
  const tokenRequest = (pod: string, uid: string) => ({
    apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest',
    spec: { audiences: ['api'], boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod, uid } },
  });

  before(async () => {
    t = await startTestServer(['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction']);
    await t.post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    for (const [name, node] of [['on-n1', 'n1'], ['on-n2', 'n2']]) {
      const res = await t.post(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: node, serviceAccountName: 'default', containers: [{ name: 'c', image: 'img' }] } });
      expect(res.status, res.text).to.equal(201);
      uids[name] = res.body.metadata.uid;
    }
  });
  after(async () => { await t?.stop(); });

  it('issues the token reading the pod and the account from etcd once each', async () => {
    const n1 = t.identity('system:node:n1', ['system:nodes']);
    const rounds = 5;
    let accountGets = 0;
    const podGets = await etcdGets(t, 'pods', async () => {
      accountGets = await etcdGets(t, 'serviceaccounts', async () => {
        for (let i = 0; i < rounds; i++) {
          const res = await t.post(TOKEN, tokenRequest('on-n1', uids['on-n1']), { identity: n1 });
          expect(res.status, res.text).to.equal(201);
          const claims = JSON.parse(Buffer.from(res.body.status.token.split('.')[1], 'base64url').toString());
          expect(claims['orch.io'].pod).to.deep.equal({ name: 'on-n1', uid: uids['on-n1'] });
        }
      });
    });
    expect(podGets).to.equal(rounds);
    expect(accountGets).to.equal(rounds);
  });

  it('NodeRestriction judges the pod the handler reads: a uid changed in etcd directly is refused at once, by one read', async () => {
    const own = new Etcd3Storage(new EtcdKvClient({ endpoints: [t.etcdEndpoint] }));
    const key = '/registry/pods/default/on-n1';
    const rewrite = async (uid: string) => {
      const kv = (await own.get(key)).kv!;
      const pod = JSON.parse(kv.value.toString());
      expect((await own.update(key, Buffer.from(JSON.stringify({ ...pod, metadata: { ...pod.metadata, uid } })), kv.modRevision)).ok).to.equal(true);
    };
    try {
      await rewrite('recreated-uid');
      const n1 = t.identity('system:node:n1', ['system:nodes']);
      const podGets = await etcdGets(t, 'pods', async () => {
        const res = await t.post(TOKEN, tokenRequest('on-n1', uids['on-n1']), { identity: n1 });
        expect(res.status, res.text).to.equal(403);
        expect(res.body.message).to.equal(`serviceaccounts "default" is forbidden: the UID in the bound object reference (${uids['on-n1']}) does not match the UID in record. The object might have been deleted and then recreated`);
      });
      expect(podGets).to.equal(1);
    } finally {
      await rewrite(uids['on-n1']);
      await own.close();
    }
  });

  it('NodeRestriction still refuses a stale uid and another node\'s pod, and a missing pod is 404', async () => {
    const n1 = t.identity('system:node:n1', ['system:nodes']);
    const stale = await t.post(TOKEN, tokenRequest('on-n1', 'not-the-uid'), { identity: n1 });
    expect(stale.status, stale.text).to.equal(403);
    expect(stale.body.message).to.equal('serviceaccounts "default" is forbidden: the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated');
    const other = await t.post(TOKEN, tokenRequest('on-n2', uids['on-n2']), { identity: n1 });
    expect(other.status, other.text).to.equal(403);
    expect(other.body.message).to.equal('serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    const missing = await t.post(TOKEN, tokenRequest('gone', 'u'), { identity: n1 });
    expect(missing.status, missing.text).to.equal(404);
    expect(missing.body.message).to.equal('pods "gone" not found');
  });
});
