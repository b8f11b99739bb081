/**
 * Custom resources at several versions over HTTPS against a real etcd: writes in any served
 * version are stored at the storage version (read back from etcd), reads, lists and watches
 * answer in the version asked for, with conversion `None` (apiVersion rewritten) and `Webhook`
 * (a test-served conversion webhook renaming v1 `spec.cronSpec` to v2 `spec.schedule`): one
 * webhook call per list page and per change for all watchers of a version; a failing webhook is
 * a 500 with Kubernetes' message and writes nothing; objects stored before the storage version
 * changed stay readable; status.storedVersions accumulates; merge patch and server-side apply
 * in the version that is not stored.
 */
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { ConversionWebhookServer, ReviewCall, convertWith, failure, startConversionWebhookServer } from '../helpers/conversion-webhook-server';

type Obj = Record<string, any>;
const AEXT = 'apiextensions.orch.io';
const CRDS = `/apis/${AEXT}/v1/customresourcedefinitions`;
const NS = 'conv';
const WEBHOOK_GROUP = 'hooked.example.com';
const NONE_GROUP = 'plain.example.com';
const anything = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

/** v1 has spec.cronSpec, v2 spec.schedule: the test webhook renames it. */
function renameSpec(obj: Obj, desired: string): Obj {
  const spec = { ...(obj.spec ?? {}) };
  if (desired.endsWith('/v2') && 'cronSpec' in spec) {
    spec.schedule = spec.cronSpec;
    delete spec.cronSpec;
  } else if (desired.endsWith('/v1') && 'schedule' in spec) {
    spec.cronSpec = spec.schedule;
    delete spec.schedule;
  }
  return { ...obj, apiVersion: desired, spec };
}

function crd(group: string, conversion: Obj, storage = 'v1'): Obj {
  return {
    apiVersion: `${AEXT}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, conversion,
      versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === storage, schema: anything })),
    },
  };
}

describe('CRD conversion', function () {
  this.timeout(60_000);
  let t: TestServer;
  let etcd: Etcd3;
  let hooks: ConversionWebhookServer;
  const converts = () => hooks.callsTo('/convert').length;
  const stored = async (group: string, name: string): Promise<Obj | null> => {
    const raw = await etcd.get(`/registry/${group}/widgets/${NS}/${name}`).string();
    return raw === null ? null : JSON.parse(raw);
  };
  const path = (group: string, version: string, name = '') => `/apis/${group}/${version}/namespaces/${NS}/widgets${name ? `/${name}` : ''}`;
  const served = async (group: string) => eventually(async () => (await t.get(path(group, 'v1'))).status === 200
    && (await t.get(path(group, 'v2'))).status === 200, 5000, 20);
  const webhookConversion = () => ({ strategy: 'Webhook', webhook: { clientConfig: hooks.clientConfig('/convert'), conversionReviewVersions: ['v1'] } });

  before(async () => {
    hooks = await startConversionWebhookServer();
    hooks.handlers.set('/convert', (call: ReviewCall) => convertWith(call, renameSpec));
    t = await startTestServer();
    etcd = new Etcd3({ hosts: t.etcdEndpoint });
    await t.post('/api/v1/namespaces', { metadata: { name: NS } });
    expect((await t.post(CRDS, crd(NONE_GROUP, { strategy: 'None' }))).status).to.equal(201);
    expect((await t.post(CRDS, crd(WEBHOOK_GROUP, webhookConversion()))).status).to.equal(201);
    await served(NONE_GROUP);
    await served(WEBHOOK_GROUP);
  });
  after(async () => {
    etcd?.close();
    await t?.stop();
    await hooks?.stop();
  });

  it('None: a v2 write is stored as v1; reads, lists and watches rewrite only apiVersion', async () => {
    const w2 = openWatch(adminTarget(t.server), `${path(NONE_GROUP, 'v2')}?watch=1`);
    const created = await t.post(path(NONE_GROUP, 'v2'), { apiVersion: `${NONE_GROUP}/v2`, kind: 'Widget', metadata: { name: 'n1' }, spec: { size: 3 } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.apiVersion).to.equal(`${NONE_GROUP}/v2`);
    expect(await stored(NONE_GROUP, 'n1')).to.deep.include({ apiVersion: `${NONE_GROUP}/v1`, spec: { size: 3 } });
    for (const v of ['v1', 'v2']) {
      for (const q of ['', '?resourceVersion=0']) {
        const got = await t.get(path(NONE_GROUP, v, `n1${q}`));
        expect(got.body).to.deep.include({ apiVersion: `${NONE_GROUP}/${v}`, kind: 'Widget', spec: { size: 3 } });
      }
      const list = await t.get(path(NONE_GROUP, v));
      expect(list.body.items.map((i: Obj) => i.apiVersion)).to.deep.equal([`${NONE_GROUP}/${v}`]);
    }
    await t.post(path(NONE_GROUP, 'v1'), { apiVersion: `${NONE_GROUP}/v1`, kind: 'Widget', metadata: { name: 'n2' }, spec: { size: 1 } });
    const ev = await w2.waitFor((e) => e.object?.metadata?.name === 'n2');
    expect(ev.type).to.equal('ADDED');
    expect(ev.object).to.deep.include({ apiVersion: `${NONE_GROUP}/v2`, spec: { size: 1 } });
    w2.close();
  });

  it('Webhook: a v2 create is converted and stored as v1, the response and every read in the version asked for', async () => {
    const before = converts();
    const created = await t.post(path(WEBHOOK_GROUP, 'v2'), { apiVersion: `${WEBHOOK_GROUP}/v2`, kind: 'Widget', metadata: { name: 'a' }, spec: { schedule: '*/5' } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: '*/5' } });
    // To v1 for storage, back to v2 for the response.
    expect(converts() - before).to.equal(2);
    const inEtcd = await stored(WEBHOOK_GROUP, 'a');
    expect(inEtcd).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v1`, kind: 'Widget', spec: { cronSpec: '*/5' } });
    for (const q of ['', '?resourceVersion=0']) {
      expect((await t.get(path(WEBHOOK_GROUP, 'v1', `a${q}`))).body).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v1`, spec: { cronSpec: '*/5' } });
      expect((await t.get(path(WEBHOOK_GROUP, 'v2', `a${q}`))).body).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: '*/5' } });
    }
    // A read in the stored version asks no webhook.
    const n = converts();
    await t.get(path(WEBHOOK_GROUP, 'v1', 'a'));
    expect(converts()).to.equal(n);
  });

  it('Webhook: one conversion per list page, items in the version asked for', async () => {
    for (const name of ['b', 'c', 'd']) {
      expect((await t.post(path(WEBHOOK_GROUP, 'v1'), { apiVersion: `${WEBHOOK_GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { cronSpec: name } })).status).to.equal(201);
    }
    let before = converts();
    const page1 = await t.get(`${path(WEBHOOK_GROUP, 'v2')}?limit=2`);
    expect(page1.status, page1.text).to.equal(200);
    expect(converts() - before).to.equal(1);
    expect(hooks.calls[hooks.calls.length - 1].review.request.objects).to.have.length(2);
    expect(page1.body.items.map((i: Obj) => [i.apiVersion, i.metadata.name, i.spec])).to.deep.equal([
      [`${WEBHOOK_GROUP}/v2`, 'a', { schedule: '*/5' }], [`${WEBHOOK_GROUP}/v2`, 'b', { schedule: 'b' }],
    ]);
    before = converts();
    const page2 = await t.get(`${path(WEBHOOK_GROUP, 'v2')}?limit=2&continue=${encodeURIComponent(page1.body.metadata.continue)}`);
    expect(converts() - before).to.equal(1);
    expect(page2.body.items.map((i: Obj) => i.spec.schedule)).to.deep.equal(['c', 'd']);
    before = converts();
    const v1 = await t.get(path(WEBHOOK_GROUP, 'v1'));
    expect(converts()).to.equal(before);
    expect(v1.body.items.map((i: Obj) => i.spec.cronSpec)).to.deep.equal(['*/5', 'b', 'c', 'd']);
  });

  it('Webhook: watches get each change in their version, converted once for all watchers of a version', async () => {
    const rv = (await t.get(path(WEBHOOK_GROUP, 'v1'))).body.metadata.resourceVersion;
    const v2a = openWatch(adminTarget(t.server), `${path(WEBHOOK_GROUP, 'v2')}?watch=1&resourceVersion=${rv}`);
    const v2b = openWatch(adminTarget(t.server), `${path(WEBHOOK_GROUP, 'v2')}?watch=1&resourceVersion=${rv}`);
    const v1 = openWatch(adminTarget(t.server), `${path(WEBHOOK_GROUP, 'v1')}?watch=1&resourceVersion=${rv}`);
    await Promise.all([v2a, v2b, v1].map((w) => eventually(async () => w.statusCode === 200, 5000, 10)));
    const before = converts();
    await t.post(path(WEBHOOK_GROUP, 'v1'), { apiVersion: `${WEBHOOK_GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { cronSpec: 'w' } });
    for (const w of [v2a, v2b]) {
      const ev = await w.waitFor((e) => e.object?.metadata?.name === 'w');
      expect(ev.type).to.equal('ADDED');
      expect(ev.object).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: 'w' } });
    }
    expect((await v1.waitFor((e) => e.object?.metadata?.name === 'w')).object.spec).to.deep.equal({ cronSpec: 'w' });
    expect(converts() - before).to.equal(1);
    const deleted = await t.del(path(WEBHOOK_GROUP, 'v2', 'w'));
    expect(deleted.status, deleted.text).to.equal(200);
    expect(deleted.body).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: 'w' } });
    const del = await v2a.waitFor((e) => e.type === 'DELETED');
    expect(del.object).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: 'w' } });
    for (const w of [v2a, v2b, v1]) w.close();
    // Initial events of a watch from now: in the watch's version.
    const fresh = openWatch(adminTarget(t.server), `${path(WEBHOOK_GROUP, 'v2')}?watch=1`);
    const first = await fresh.waitFor((e) => e.object?.metadata?.name === 'a');
    expect(first.object.spec).to.deep.equal({ schedule: '*/5' });
    fresh.close();
  });

  it('Webhook: merge patch and server-side apply in v2 are stored as v1', async () => {
    const patched = await t.request('PATCH', path(WEBHOOK_GROUP, 'v2', 'b'), { body: { spec: { schedule: 'patched' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: 'patched' } });
    expect((await stored(WEBHOOK_GROUP, 'b'))?.spec).to.deep.equal({ cronSpec: 'patched' });
    const apply = { apiVersion: `${WEBHOOK_GROUP}/v2`, kind: 'Widget', metadata: { name: 'applied' }, spec: { schedule: 'ssa' } };
    const applied = await t.request('PATCH', `${path(WEBHOOK_GROUP, 'v2', 'applied')}?fieldManager=tester`, { raw: JSON.stringify(apply), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect(applied.status, applied.text).to.equal(201);
    expect(applied.body.spec).to.deep.equal({ schedule: 'ssa' });
    expect(applied.body.metadata.managedFields[0]).to.deep.include({ manager: 'tester', operation: 'Apply', apiVersion: `${WEBHOOK_GROUP}/v2` });
    expect(await stored(WEBHOOK_GROUP, 'applied')).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v1`, spec: { cronSpec: 'ssa' } });
    const again = await t.request('PATCH', `${path(WEBHOOK_GROUP, 'v2', 'applied')}?fieldManager=tester`, { raw: JSON.stringify({ ...apply, spec: { schedule: 'ssa2' } }), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect(again.status, again.text).to.equal(200);
    expect((await stored(WEBHOOK_GROUP, 'applied'))?.spec).to.deep.equal({ cronSpec: 'ssa2' });
  });

  it('a failing webhook answers 500 with Kubernetes\' message and writes nothing', async () => {
    hooks.handlers.set('/convert', (call) => failure(call, 'boom'));
    try {
      const res = await t.post(path(WEBHOOK_GROUP, 'v2'), { apiVersion: `${WEBHOOK_GROUP}/v2`, kind: 'Widget', metadata: { name: 'never' }, spec: { schedule: 'x' } });
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
        message: `conversion webhook for ${WEBHOOK_GROUP}/v2, Kind=Widget failed: boom`,
      });
      expect(await stored(WEBHOOK_GROUP, 'never')).to.equal(null);
      const before = await stored(WEBHOOK_GROUP, 'b');
      const upd = await t.request('PATCH', path(WEBHOOK_GROUP, 'v2', 'b'), { body: { spec: { schedule: 'nope' } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expect(upd.status).to.equal(500);
      expect(await stored(WEBHOOK_GROUP, 'b')).to.deep.equal(before);
      const get = await t.get(path(WEBHOOK_GROUP, 'v2', 'b'));
      expect(get.status).to.equal(500);
      expect(get.body.message).to.equal(`conversion webhook for ${WEBHOOK_GROUP}/v1, Kind=Widget failed: boom`);
      const list = await t.get(path(WEBHOOK_GROUP, 'v2'));
      expect(list.status).to.equal(500);
      expect(list.body.message).to.equal(`conversion webhook for ${WEBHOOK_GROUP}/v2, Kind=WidgetList failed: boom`);
      // The stored version needs no webhook.
      expect((await t.get(path(WEBHOOK_GROUP, 'v1', 'b'))).status).to.equal(200);
      // A watch from now fails before it starts; a running one ends with the error as an event.
      const refused = openWatch(adminTarget(t.server), `${path(WEBHOOK_GROUP, 'v2')}?watch=1`);
      await eventually(async () => refused.ended, 5000, 10);
      expect(refused.statusCode).to.equal(500);
      expect(refused.errorBody.message).to.equal(`conversion webhook for ${WEBHOOK_GROUP}/v2, Kind=WidgetList failed: boom`);
      const rv = (await t.get(path(WEBHOOK_GROUP, 'v1'))).body.metadata.resourceVersion;
      const running = openWatch(adminTarget(t.server), `${path(WEBHOOK_GROUP, 'v2')}?watch=1&resourceVersion=${rv}`);
      await eventually(async () => running.statusCode === 200, 5000, 10);
      await t.post(path(WEBHOOK_GROUP, 'v1'), { apiVersion: `${WEBHOOK_GROUP}/v1`, kind: 'Widget', metadata: { name: 'unconvertible' }, spec: { cronSpec: 'u' } });
      const err = await running.waitFor((e) => e.type === 'ERROR');
      expect(err.object).to.deep.include({ kind: 'Status', status: 'Failure', code: 500, message: `conversion webhook for ${WEBHOOK_GROUP}/v1, Kind=Widget failed: boom` });
      await eventually(async () => running.ended, 5000, 10);
      await t.del(path(WEBHOOK_GROUP, 'v1', 'unconvertible'));
    } finally {
      hooks.handlers.set('/convert', (call: ReviewCall) => convertWith(call, renameSpec));
    }
  });

  it('switching the storage version: new writes stored at v2, old objects still readable, storedVersions accumulates', async () => {
    const name = `widgets.${WEBHOOK_GROUP}`;
    expect((await t.get(`${CRDS}/${name}`)).body.status.storedVersions).to.deep.equal(['v1']);
    const current = (await t.get(`${CRDS}/${name}`)).body;
    const switched = await t.put(`${CRDS}/${name}`, crdWith(current, 'v2'));
    expect(switched.status, switched.text).to.equal(200);
    expect(switched.body.status.storedVersions).to.deep.equal(['v1', 'v2']);
    await t.server.customResources.serving!.ready(name);
    await eventually(async () => {
      await t.post(path(WEBHOOK_GROUP, 'v1'), { apiVersion: `${WEBHOOK_GROUP}/v1`, kind: 'Widget', metadata: { name: 'probe' }, spec: { cronSpec: 'p' } });
      const s = await stored(WEBHOOK_GROUP, 'probe');
      if (s?.apiVersion !== `${WEBHOOK_GROUP}/v2`) await t.del(path(WEBHOOK_GROUP, 'v1', 'probe'));
      return s?.apiVersion === `${WEBHOOK_GROUP}/v2`;
    }, 5000, 50);
    expect((await stored(WEBHOOK_GROUP, 'probe'))?.spec).to.deep.equal({ schedule: 'p' });
    // Written before the switch, still at v1 in etcd, readable at both versions.
    expect((await stored(WEBHOOK_GROUP, 'c'))?.apiVersion).to.equal(`${WEBHOOK_GROUP}/v1`);
    expect((await t.get(path(WEBHOOK_GROUP, 'v2', 'c'))).body.spec).to.deep.equal({ schedule: 'c' });
    expect((await t.get(path(WEBHOOK_GROUP, 'v1', 'c'))).body.spec).to.deep.equal({ cronSpec: 'c' });
    const list = await t.get(path(WEBHOOK_GROUP, 'v1'));
    expect(list.body.items.find((i: Obj) => i.metadata.name === 'probe').spec).to.deep.equal({ cronSpec: 'p' });
    // An update of an old object stores it at the new storage version.
    const upd = await t.request('PATCH', path(WEBHOOK_GROUP, 'v1', 'c'), { body: { metadata: { labels: { moved: 'yes' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(upd.status, upd.text).to.equal(200);
    expect(await stored(WEBHOOK_GROUP, 'c')).to.deep.include({ apiVersion: `${WEBHOOK_GROUP}/v2`, spec: { schedule: 'c' } });
    // Switching back keeps both entries; only a /status write removes one.
    const back = await t.put(`${CRDS}/${name}`, crdWith((await t.get(`${CRDS}/${name}`)).body, 'v1'));
    expect(back.body.status.storedVersions).to.deep.equal(['v1', 'v2']);
  });
});

/** `current` with `storage` as its storage version. */
function crdWith(current: Obj, storage: string): Obj {
  const next = structuredClone(current);
  for (const v of next.spec.versions) v.storage = v.name === storage;
  return next;
}
