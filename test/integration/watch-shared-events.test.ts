/**
 * The watch cache's shared work on one change, seen through HTTP (issue 45): streams of one
 * resource in two served versions and four representations (JSON, protobuf, Table,
 * PartialObjectMetadata), with and without selectors, each receive their own correct encoding of
 * the same changes, and streams of one representation the same documents; and a watch with
 * allowWatchBookmarks whose own resource is idle is bookmarked past the writes to others.
 */
import { expect } from 'chai';
import https from 'node:https';
import { startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch, WatchClient, WatchTarget } from '../helpers/watch-client';
import { decodeWatchEvent, splitWatchFrames } from '../../lib/scheme/protobuf';

type Body = Record<string, any>;
const PB = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const PARTIAL = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
const pcPath = (version: string) => `/apis/scheduling.k8s.io/${version}/priorityclasses`;
const q = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
const changes = (w: WatchClient) => w.events.filter((e) => e.type !== 'BOOKMARK');

/** A protobuf watch: its raw bytes and decoded events, until closed. */
function protobufWatch(target: WatchTarget, path: string) {
  const events: Array<{ type: string; object: Body }> = [];
  let pending = Buffer.alloc(0);
  let contentType = '';
  const req = https.request(`${target.url}${path}`, {
    headers: { accept: PB }, ca: target.caPem, cert: target.certPem, key: target.keyPem, agent: false,
  }, (res) => {
    contentType = String(res.headers['content-type']);
    res.on('data', (chunk: Buffer) => {
      const { frames, rest } = splitWatchFrames(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      for (const f of frames) events.push(decodeWatchEvent(f) as { type: string; object: Body });
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { events, contentType: () => contentType, close: () => req.destroy() };
}

async function until(cond: () => boolean, what: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('watch streams sharing the cache\'s work on one change', () => {
  let t: TestServer;
  let target: WatchTarget;
  const opened: Array<{ close(): void }> = [];
  const watch = (path: string, headers: Record<string, string> = {}) => {
    const w = openWatch(target, path, headers);
    opened.push(w);
    return w;
  };
  const ok = (res: { status: number; text: string; body: unknown }, status: number) => {
    expect(res.status, res.text).to.equal(status);
    return res.body as Body;
  };

  before(async () => {
    t = await startTestServer(['--flavor=kubernetes', '--runtime-config=scheduling.k8s.io/v1beta1=true', WITHOUT_NAMESPACE_DEFAULTS]);
    target = adminTarget(t.server);
  });
  afterEach(() => { opened.splice(0).forEach((w) => w.close()); });
  after(async () => { await t?.stop(); });

  it('two served versions and four representations each get their own encoding of the same changes', async () => {
    const rv = ok(await t.get(pcPath('v1')), 200).metadata.resourceVersion as string;
    const from = q({ watch: 'true', resourceVersion: rv });
    const v1 = [watch(pcPath('v1') + from), watch(pcPath('v1') + from)];
    const v1beta1 = [watch(pcPath('v1beta1') + from), watch(pcPath('v1beta1') + from)];
    const selected = watch(pcPath('v1') + q({ watch: 'true', resourceVersion: rv, labelSelector: 'tier=high' }));
    const table = watch(pcPath('v1') + from, { accept: TABLE });
    const partial = [watch(pcPath('v1') + from, { accept: PARTIAL }), watch(pcPath('v1beta1') + from, { accept: PARTIAL })];
    const pb = protobufWatch(target, pcPath('v1beta1') + from);
    opened.push(pb);
    const json = [...v1, ...v1beta1, selected, table, ...partial];
    await Promise.all(json.map((w) => w.response()));

    const created = ok(await t.post(pcPath('v1'), { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'shared', labels: { tier: 'low' } }, value: 1000 }), 201);
    const cur = ok(await t.get(`${pcPath('v1')}/shared`), 200);
    cur.metadata.labels = { tier: 'high' };
    const updated = ok(await t.put(`${pcPath('v1')}/shared`, cur), 200);
    ok(await t.del(`${pcPath('v1')}/shared`), 200);
    await until(() => json.every((w) => changes(w).length >= (w === selected ? 2 : 3)) && pb.events.length >= 3,
      () => `every stream's events (${json.map((w) => `${w.statusCode}:${w.events.map((e) => e.type).join('+')}`).join(', ')}; protobuf ${pb.contentType()} ${pb.events.length})`);

    const kinds = (w: WatchClient) => changes(w).map((e) => `${e.type}:${e.object.kind}:${e.object.apiVersion}`);
    for (const w of v1) expect(kinds(w)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED'].map((type) => `${type}:PriorityClass:scheduling.k8s.io/v1`));
    for (const w of v1beta1) expect(kinds(w)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED'].map((type) => `${type}:PriorityClass:scheduling.k8s.io/v1beta1`));
    // The same events, as the same documents, to the streams of one version and format.
    expect(changes(v1[1])).to.deep.equal(changes(v1[0]));
    expect(changes(v1beta1[1])).to.deep.equal(changes(v1beta1[0]));
    expect(changes(v1[0])[1].object).to.deep.equal(updated);
    expect(changes(v1[0]).map((e) => e.object.metadata.resourceVersion)).to.deep.equal(changes(v1beta1[0]).map((e) => e.object.metadata.resourceVersion));
    expect(changes(v1[0])[0].object.metadata.uid).to.equal(created.metadata.uid);
    // A selector follows the object in (ADDED when it starts matching) and out.
    expect(kinds(selected)).to.deep.equal(['ADDED:PriorityClass:scheduling.k8s.io/v1', 'DELETED:PriorityClass:scheduling.k8s.io/v1']);
    expect(kinds(table)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED'].map((type) => `${type}:Table:meta.k8s.io/v1`));
    expect(changes(table)[0].object.columnDefinitions).to.have.length.above(0);
    expect(changes(table)[1].object.rows[0].cells[0]).to.equal('shared');
    for (const w of partial) {
      expect(kinds(w)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED'].map((type) => `${type}:PartialObjectMetadata:meta.k8s.io/v1`));
      expect(Object.keys(changes(w)[1].object).sort()).to.deep.equal(['apiVersion', 'kind', 'metadata']);
      expect(changes(w)[1].object.metadata.labels).to.deep.equal({ tier: 'high' });
    }
    expect(pb.contentType()).to.equal(`${PB};stream=watch`);
    expect(pb.events.map((e) => `${e.type}:${e.object.kind}:${e.object.apiVersion}`))
      .to.deep.equal(['ADDED', 'MODIFIED', 'DELETED'].map((type) => `${type}:PriorityClass:scheduling.k8s.io/v1beta1`));
    expect(pb.events[1].object.metadata.labels).to.deep.equal({ tier: 'high' });
  });

  it('an idle watch\'s bookmark carries a revision past the writes to other namespaces and resources', async () => {
    for (const name of ['bm-idle', 'bm-busy']) ok(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), 201);
    const rv = ok(await t.get('/api/v1/configmaps'), 200).metadata.resourceVersion as string;
    const params = { watch: 'true', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: 3 };
    // Its namespace's ConfigMaps are never written; other namespaces' are, and other resources.
    const idleNamespace = watch('/api/v1/namespaces/bm-idle/configmaps' + q(params));
    const idleResource = watch('/api/v1/namespaces/bm-idle/podtemplates' + q(params));
    await Promise.all([idleNamespace.response(), idleResource.response()]);
    let last = 0;
    for (let i = 0; i < 3; i++) {
      const cm = ok(await t.post('/api/v1/namespaces/bm-busy/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } }), 201);
      const secret = ok(await t.post('/api/v1/namespaces/bm-busy/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } }), 201);
      last = Math.max(Number(cm.metadata.resourceVersion), Number(secret.metadata.resourceVersion));
    }
    await Promise.all([idleNamespace.waitEnded(8_000), idleResource.waitEnded(8_000)]);
    for (const w of [idleNamespace, idleResource]) {
      expect(changes(w)).to.deep.equal([]);
      const bookmarks = w.events.filter((e) => e.type === 'BOOKMARK');
      expect(bookmarks, JSON.stringify(w.events)).to.have.length.above(0);
      expect(Number(bookmarks[bookmarks.length - 1].object.metadata.resourceVersion)).to.be.at.least(last);
    }
  });

  it('a watch with changes of its own is bookmarked at or past them, never behind', async () => {
    ok(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bm-own' } }), 201);
    const rv = ok(await t.get('/api/v1/namespaces/bm-own/configmaps'), 200).metadata.resourceVersion as string;
    const w = watch('/api/v1/namespaces/bm-own/configmaps' + q({ watch: 'true', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: 2 }));
    await w.response();
    const made = ok(await t.post('/api/v1/namespaces/bm-own/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own' } }), 201);
    await w.waitEnded(8_000);
    expect(changes(w).map((e) => e.object.metadata.name)).to.deep.equal(['own']);
    const types = w.events.map((e) => e.type);
    expect(types[types.length - 1]).to.equal('BOOKMARK');
    expect(Number(w.events[w.events.length - 1].object.metadata.resourceVersion)).to.be.at.least(Number(made.metadata.resourceVersion));
  });
});
