/**
 * Protobuf over HTTPS against a real etcd: protobuf request bodies (both media type spellings),
 * protobuf responses and errors, the fallback to JSON, protobuf watch frames, and
 * --storage-media-type: protobuf values in etcd that both storage settings read.
 */
import { expect } from 'chai';
import https from 'node:https';
import { Etcd3 } from 'etcd3';
import { eventually, HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { adminTarget, WatchTarget } from '../helpers/watch-client';
import {
  PROTOBUF_PREFIX, decodeProtobuf, decodeWatchEvent, encodeProtobuf, splitWatchFrames,
} from '../../lib/scheme/protobuf';
import { ApiObject } from '../../lib/scheme/types';

const K8S_PB = 'application/vnd.kubernetes.protobuf';
const ORCH_PB = 'application/vnd.orch.protobuf';
const NS = 'pb';
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const configMap = (name: string, data: Record<string, string> = { a: 'b' }): ApiObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

function expectStatus(res: HttpResponse, code: number, what = ''): void {
  expect(res.status, `${what} ${res.headers['content-type']} ${res.text}`).to.equal(code);
}

/** The object of a protobuf response, after checking its Content-Type and prefix. */
function protobufBody(res: HttpResponse, mediaType = K8S_PB): ApiObject {
  expect(res.headers['content-type']).to.equal(mediaType);
  expect(res.raw!.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
  return decodeProtobuf(res.raw!);
}

/** POSTs `obj` as a protobuf body, as kubectl's imperative create does. */
function postProtobuf(t: TestServer, path: string, body: Buffer, accept = `${K8S_PB}, application/json`, contentType = K8S_PB) {
  return t.request('POST', path, { raw: body, headers: { 'content-type': contentType, accept } });
}

/** Reads `count` protobuf watch events from a watch request (then closes it). */
function readWatchFrames(target: WatchTarget, path: string, count: number, during?: () => Promise<unknown>):
  Promise<{ contentType: string | undefined; events: Array<{ type: string; object: ApiObject }> }> {
  return new Promise((resolve, reject) => {
    const events: Array<{ type: string; object: ApiObject }> = [];
    const req = https.request(`${target.url}${path}`, {
      headers: { accept: `${K8S_PB}, application/json` }, ca: target.caPem, cert: target.certPem, key: target.keyPem, agent: false,
    }, (res) => {
      let pending: Buffer = Buffer.alloc(0);
      const timer = setTimeout(() => { req.destroy(); reject(new Error(`only ${events.length} of ${count} watch events`)); }, 10_000);
      res.on('data', (chunk: Buffer) => {
        const { frames, rest } = splitWatchFrames(Buffer.concat([pending, chunk]));
        pending = Buffer.from(rest);
        for (const f of frames) events.push(decodeWatchEvent(f));
        if (events.length >= count) {
          clearTimeout(timer);
          req.destroy();
          resolve({ contentType: res.headers['content-type'], events });
        }
      });
      if (during) during().catch(reject);
    });
    req.on('error', (err) => { if (events.length < count) reject(err); });
    req.end();
  });
}

describe('protobuf over HTTPS', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
  });
  after(async () => { await t?.stop(); });

  describe('request bodies', () => {
    it('POST with Content-Type application/vnd.kubernetes.protobuf creates (201)', async () => {
      const res = await postProtobuf(t, cmPath(), encodeProtobuf({ ...configMap('pb-create'), binaryData: { bin: 'AAH/' }, immutable: false }), 'application/json');
      expectStatus(res, 201);
      expect(res.body.metadata).to.include({ name: 'pb-create', namespace: NS });
      expect(res.body).to.deep.include({ data: { a: 'b' }, binaryData: { bin: 'AAH/' }, immutable: false });
      expect(res.body.metadata.uid).to.be.a('string');
    });

    it('POST with Content-Type application/vnd.orch.protobuf creates (201)', async () => {
      expectStatus(await postProtobuf(t, cmPath(), encodeProtobuf(configMap('pb-orch')), 'application/json', ORCH_PB), 201);
      expectStatus(await t.get(cmPath('pb-orch')), 200);
    });

    it('a namespace as kubectl sends it (every zero value explicit) is created with the server defaults', async () => {
      const res = await postProtobuf(t, '/api/v1/namespaces', encodeProtobuf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pb-ns' } }));
      const ns = protobufBody(res);
      expectStatus(res, 201);
      expect(ns.metadata).to.include({ name: 'pb-ns' });
      expect(ns.status).to.deep.equal({ phase: 'Active' });
      expect((ns.spec as { finalizers: string[] }).finalizers).to.have.length(1);
    });

    it('PUT with a protobuf body updates', async () => {
      const created = (await t.post(cmPath(), configMap('pb-put'))).body;
      const next = { ...created, data: { a: 'changed' } };
      const res = await t.request('PUT', cmPath('pb-put'), { raw: encodeProtobuf(next), headers: { 'content-type': K8S_PB } });
      expectStatus(res, 200);
      expect(res.body.data).to.deep.equal({ a: 'changed' });
    });

    it('a bad prefix is 400 and stores nothing', async () => {
      const body = encodeProtobuf(configMap('pb-bad-prefix'));
      body[3] = 0x01;
      const res = await postProtobuf(t, cmPath(), body, 'application/json');
      expectStatus(res, 400);
      expect(res.body).to.include({ kind: 'Status', reason: 'BadRequest' });
      expect(res.body.message).to.match(/prefix/);
      expectStatus(await t.get(cmPath('pb-bad-prefix')), 404);
    });

    it('an undecodable body is 400 and stores nothing', async () => {
      const body = encodeProtobuf(configMap('pb-truncated'));
      const res = await postProtobuf(t, cmPath(), body.subarray(0, body.length - 9), 'application/json');
      expectStatus(res, 400);
      expect(res.body.reason).to.equal('BadRequest');
      expectStatus(await t.get(cmPath('pb-truncated')), 404);
    });

    it('a body of another kind is 400', async () => {
      const res = await postProtobuf(t, cmPath(), encodeProtobuf({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }), 'application/json');
      expectStatus(res, 400);
      expect(res.body.message).to.match(/kind "Secret"/);
    });

    it('a DELETE with a protobuf DeleteOptions body honours it', async () => {
      const created = (await t.post(cmPath(), configMap('pb-delete'))).body;
      const options = encodeProtobuf({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } });
      const refused = await t.request('DELETE', cmPath('pb-delete'), { raw: options, headers: { 'content-type': K8S_PB } });
      expectStatus(refused, 409);
      const ok = encodeProtobuf({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: created.metadata.uid } });
      expectStatus(await t.request('DELETE', cmPath('pb-delete'), { raw: ok, headers: { 'content-type': K8S_PB } }), 200);
    });
  });

  describe('responses', () => {
    before(async () => { expectStatus(await t.post(cmPath(), configMap('pb-read', { x: '1' })), 201); });

    it('GET with Accept application/vnd.kubernetes.protobuf answers k8s\\0 + the object', async () => {
      const json = (await t.get(cmPath('pb-read'))).body;
      const res = await t.get(cmPath('pb-read'), { headers: { accept: K8S_PB } });
      expectStatus(res, 200);
      const obj = protobufBody(res);
      expect(obj).to.deep.include({ apiVersion: 'v1', kind: 'ConfigMap', data: { x: '1' } });
      expect(obj.metadata).to.include({ name: 'pb-read', namespace: NS, uid: json.metadata.uid, resourceVersion: json.metadata.resourceVersion, creationTimestamp: json.metadata.creationTimestamp });
      expect(obj.metadata?.managedFields).to.deep.equal(json.metadata.managedFields);
    });

    it('GET with Accept application/vnd.orch.protobuf answers that media type', async () => {
      const res = await t.get(cmPath('pb-read'), { headers: { accept: ORCH_PB } });
      expectStatus(res, 200);
      expect(protobufBody(res, ORCH_PB).metadata?.name).to.equal('pb-read');
    });

    it('a list in protobuf', async () => {
      const res = await t.get(cmPath(), { headers: { accept: `${K8S_PB}, application/json` } });
      expectStatus(res, 200);
      const list = protobufBody(res);
      expect(list).to.include({ apiVersion: 'v1', kind: 'ConfigMapList' });
      expect((list.metadata as { resourceVersion: string }).resourceVersion).to.match(/^\d+$/);
      expect((list.items as ApiObject[]).map((i) => i.metadata?.name)).to.include('pb-read');
    });

    it('the first acceptable entry wins: JSON listed first is JSON', async () => {
      const res = await t.get(cmPath('pb-read'), { headers: { accept: `application/json, ${K8S_PB}` } });
      expectStatus(res, 200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.body.metadata.name).to.equal('pb-read');
    });

    it('protobuf then JSON falls back to JSON for what has no protobuf (a Table)', async () => {
      const accept = `${K8S_PB};as=Table;g=meta.k8s.io;v=v1, application/json`;
      const res = await t.get(cmPath('pb-read'), { headers: { accept } });
      expectStatus(res, 200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.body.kind).to.equal('ConfigMap');
    });

    it('errors are a protobuf Status when protobuf is asked for', async () => {
      const res = await t.get(cmPath('pb-missing'), { headers: { accept: `${K8S_PB}, application/json` } });
      expectStatus(res, 404);
      const status = protobufBody(res);
      expect(status).to.include({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
      expect(status.details).to.deep.include({ name: 'pb-missing', kind: 'configmaps' });
    });

    it('DELETE answers its Status in protobuf', async () => {
      expectStatus(await t.post(cmPath(), configMap('pb-del-status')), 201);
      const res = await t.request('DELETE', cmPath('pb-del-status'), { headers: { accept: K8S_PB } });
      expectStatus(res, 200);
      expect(protobufBody(res)).to.include({ kind: 'Status', status: 'Success' });
    });
  });

  describe('workload and storage kinds', () => {
    const pvcPath = (name = '') => `/api/v1/namespaces/${NS}/persistentvolumeclaims${name ? `/${name}` : ''}`;
    const podPath = (name = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}`;

    it('POST of a protobuf PersistentVolumeClaim creates it (201, protobuf answer)', async () => {
      const pvc: ApiObject = {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'pb-claim' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
      };
      const res = await postProtobuf(t, pvcPath(), encodeProtobuf(pvc));
      expectStatus(res, 201);
      const created = protobufBody(res);
      expect(created.metadata).to.include({ name: 'pb-claim', namespace: NS });
      expect(created.spec).to.deep.include({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' });
      const json = await t.get(pvcPath('pb-claim'));
      expectStatus(json, 200);
      expect(json.body.spec.resources).to.deep.equal({ requests: { storage: '1Gi' } });
    });

    it('GET of a Pod with Accept protobuf answers protobuf', async () => {
      const pod = {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pb-pod' },
        spec: {
          containers: [{ name: 'app', image: 'registry.example/app:1.0', env: [{ name: 'A', value: 'b' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'pb-claim' } }],
        },
      };
      expectStatus(await t.post(podPath(), pod), 201);
      const json = (await t.get(podPath('pb-pod'))).body;
      const res = await t.request('GET', podPath('pb-pod'), { headers: { accept: K8S_PB } });
      expectStatus(res, 200);
      expect(protobufBody(res)).to.deep.equal(json);
    });

    it('GET of a StorageClass with Accept protobuf answers protobuf', async () => {
      const sv = `${t.server.naming.group('storage')}/v1`;
      const scPath = `/apis/${sv}/storageclasses`;
      const sc = { apiVersion: sv, kind: 'StorageClass', metadata: { name: 'pb-fast' }, provisioner: 'example.com/fast', parameters: { type: 'ssd' } };
      expectStatus(await t.post(scPath, sc), 201);
      const json = (await t.get(`${scPath}/pb-fast`)).body;
      const res = await t.request('GET', `${scPath}/pb-fast`, { headers: { accept: K8S_PB } });
      expectStatus(res, 200);
      expect(protobufBody(res)).to.deep.equal(json);
    });
  });

  it('a watch with Accept protobuf streams length-prefixed WatchEvent frames', async () => {
    // The root-CA publisher's ConfigMap lands in a new namespace on its own time: list after it.
    await eventually(async () => ((await t.get(cmPath())).body.items as ApiObject[]).some((o) => o.metadata?.name?.endsWith('root-ca.crt')), 10_000, 50);
    const list = (await t.get(cmPath())).body;
    const target = adminTarget(t.server);
    const { contentType, events } = await readWatchFrames(target, `${cmPath()}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, 2, async () => {
      await new Promise((r) => setTimeout(r, 200));
      expectStatus(await t.post(cmPath(), configMap('pb-watched')), 201);
      expectStatus(await t.request('DELETE', cmPath('pb-watched')), 200);
    });
    expect(contentType).to.equal(`${K8S_PB};stream=watch`);
    expect(events.map((e) => `${e.type}:${e.object.metadata?.name}`)).to.deep.equal(['ADDED:pb-watched', 'DELETED:pb-watched']);
    expect(events[0].object).to.deep.include({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } });
  });
});

describe('--storage-media-type', () => {
  const keyOf = (name: string) => `/registry/configmaps/${NS}/${name}`;

  describe('application/vnd.kubernetes.protobuf', () => {
    let t: TestServer;
    let etcd: Etcd3;
    before(async () => {
      t = await startTestServer([`--storage-media-type=${K8S_PB}`]);
      etcd = new Etcd3({ hosts: t.etcdEndpoint });
      expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
    });
    after(async () => { etcd?.close(); await t?.stop(); });

    it('stores k8s\\0 values in etcd and still serves JSON', async () => {
      const created = await t.post(cmPath(), configMap('stored', { k: 'v' }));
      expectStatus(created, 201);
      const value = await etcd.get(keyOf('stored')).buffer();
      expect(value).to.not.equal(null);
      expect(value!.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
      const stored = decodeProtobuf(value!);
      expect(stored).to.deep.include({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } });
      expect(stored.metadata).to.include({ name: 'stored', uid: created.body.metadata.uid });
      expect(stored.metadata).to.not.have.property('resourceVersion');

      const got = await t.get(cmPath('stored'));
      expectStatus(got, 200);
      expect(got.headers['content-type']).to.match(/^application\/json/);
      expect(got.body).to.deep.equal(created.body);
    });

    it('updates, lists and deletes objects stored in protobuf', async () => {
      const created = (await t.post(cmPath(), configMap('cycle'))).body;
      const updated = await t.put(cmPath('cycle'), { ...created, data: { a: 'c' } });
      expectStatus(updated, 200);
      expect((await t.get(cmPath('cycle'))).body.data).to.deep.equal({ a: 'c' });
      expect((await t.get(cmPath())).body.items.map((i: ApiObject) => i.metadata?.name)).to.include('cycle');
      expectStatus(await t.del(cmPath('cycle')), 200);
      expect(await etcd.get(keyOf('cycle')).buffer()).to.equal(null);
    });

    it('a namespace stored in protobuf goes through deletion and its finalizer', async () => {
      expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pb-gone' } }), 201);
      expectStatus(await t.del('/api/v1/namespaces/pb-gone'), 200);
      const deadline = Date.now() + 15_000;
      while ((await t.get('/api/v1/namespaces/pb-gone')).status !== 404) {
        if (Date.now() > deadline) throw new Error('namespace pb-gone was not removed');
        await new Promise((r) => setTimeout(r, 100));
      }
    });
  });

  describe('application/json (the default)', () => {
    let t: TestServer;
    let etcd: Etcd3;
    before(async () => {
      t = await startTestServer();
      etcd = new Etcd3({ hosts: t.etcdEndpoint });
      expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
    });
    after(async () => { etcd?.close(); await t?.stop(); });

    it('stores JSON and reads a value another server stored in protobuf', async () => {
      expectStatus(await t.post(cmPath(), configMap('json-stored')), 201);
      expect((await etcd.get(keyOf('json-stored')).string())?.[0]).to.equal('{');

      const foreign = configMap('from-protobuf', { p: 'q' });
      foreign.metadata = { name: 'from-protobuf', namespace: NS, uid: '11111111-2222-3333-4444-555555555555', creationTimestamp: '2024-01-01T00:00:00Z' };
      await etcd.put(keyOf('from-protobuf')).value(encodeProtobuf(foreign));
      const got = await t.get(cmPath('from-protobuf'));
      expectStatus(got, 200);
      expect(got.body).to.deep.include({ apiVersion: 'v1', kind: 'ConfigMap', data: { p: 'q' } });
      expect(got.body.metadata).to.include({ uid: foreign.metadata.uid, creationTimestamp: '2024-01-01T00:00:00Z' });
      // Updating it writes JSON again.
      expectStatus(await t.put(cmPath('from-protobuf'), { ...got.body, data: { p: 'r' } }), 200);
      expect((await etcd.get(keyOf('from-protobuf')).string())?.[0]).to.equal('{');
    });
  });
});
