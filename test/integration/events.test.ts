/**
 * core/v1 Event through HTTPS against a real etcd (lib/registry/core/events/definition.ts): what `kubectl
 * describe` relies on (a list by `involvedObject.*` field selectors), Kubernetes' core/v1
 * validation of both forms of event, MicroTimes in Go's form, PUT that creates, and kubectl's
 * table.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'events-ns';
const EVENTS = `/api/v1/namespaces/${NS}/events`;

const reference = (name: string, uid = `uid-${name}`) => ({ kind: 'ConfigMap', namespace: NS, name, uid, apiVersion: 'v1' });
const oldStyle = (name: string, about: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name },
  involvedObject: reference(about), reason: 'Synced', message: `synced ${about}`, type: 'Normal',
  source: { component: 'tester', host: 'box-1' }, firstTimestamp: '2026-11-29T10:00:00Z', lastTimestamp: '2026-11-29T10:05:00Z', count: 2, ...extra,
});

describe('core/v1 Event', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('is served as kubectl expects it: `ev`, namespaced, every verb', async () => {
    const res = await t.get('/api/v1');
    const events = res.body.resources.find((r: { name: string }) => r.name === 'events');
    expect(events).to.include({ kind: 'Event', namespaced: true, singularName: 'event' });
    expect(events.shortNames).to.deep.equal(['ev']);
    expect(events.verbs).to.have.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  });

  it('reads reportingComponent and reportingInstance as empty strings when unset (Go strings without omitempty)', async () => {
    const res = await t.post(EVENTS, oldStyle('reporting.1', 'alpha'));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ reportingComponent: '', reportingInstance: '' });
    expect((await t.get(`${EVENTS}/reporting.1`)).body).to.include({ reportingComponent: '', reportingInstance: '' });
    await t.del(`${EVENTS}/reporting.1`);
  });

  it('lists by involvedObject.* as kubectl describe asks, and by reason, type and source', async () => {
    for (const [name, about] of [['a.1', 'alpha'], ['a.2', 'alpha'], ['b.1', 'beta']]) {
      expect((await t.post(EVENTS, oldStyle(name, about))).status).to.equal(201);
    }
    const select = async (selector: string) => {
      const res = await t.get(`${EVENTS}?fieldSelector=${encodeURIComponent(selector)}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.items.map((e: { metadata: { name: string } }) => e.metadata.name).sort();
    };
    expect(await select(`involvedObject.kind=ConfigMap,involvedObject.uid=uid-alpha,involvedObject.name=alpha,involvedObject.namespace=${NS}`)).to.deep.equal(['a.1', 'a.2']);
    expect(await select('involvedObject.name=beta')).to.deep.equal(['b.1']);
    expect(await select('reason=Synced,type=Normal,source=tester')).to.deep.equal(['a.1', 'a.2', 'b.1']);
    expect(await select('type=Warning')).to.deep.equal([]);
    const bad = await t.get(`${EVENTS}?fieldSelector=involvedObject.color%3Dred`);
    expect(bad.status).to.equal(400);
    expect(bad.body.message).to.include('field label not supported: involvedObject.color');
  });

  it('refuses an event whose object is in another namespace, as core/v1 validates the old form', async () => {
    const res = await t.post(EVENTS, oldStyle('elsewhere.1', 'x', { involvedObject: { ...reference('x'), namespace: 'other' } }));
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal('Event "elsewhere.1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
    expect((await t.get(`${EVENTS}/elsewhere.1`)).status).to.equal(404);
  });

  it('the newer form (eventTime set) needs reportingComponent, reportingInstance, action and reason, within their limits', async () => {
    const bare = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'new.1' }, involvedObject: reference('alpha'), eventTime: '2026-11-29T10:00:00.123456Z' };
    const res = await t.post(EVENTS, bare);
    expect(res.status).to.equal(422);
    expect(res.body.details.causes.map((c: { field: string; reason: string }) => `${c.reason} ${c.field}`)).to.deep.equal([
      // An empty name also fails IsQualifiedName's two checks, as in Kubernetes.
      'FieldValueRequired reportingComponent', 'FieldValueInvalid reportingComponent', 'FieldValueInvalid reportingComponent',
      'FieldValueRequired reportingInstance', 'FieldValueRequired action', 'FieldValueRequired reason',
    ]);
    const long = await t.post(EVENTS, { ...bare, reportingComponent: 'example.com/ctl', reportingInstance: 'ctl-0', action: 'Sync', reason: 'R'.repeat(129) });
    expect(long.status).to.equal(422);
    expect(long.body.message).to.include('reason: Invalid value: "": can have at most 128 characters');
    const ok = await t.post(EVENTS, {
      ...bare, eventTime: '2026-11-29T12:00:00.123456+02:00', reportingComponent: 'example.com/ctl', reportingInstance: 'ctl-0', action: 'Sync', reason: 'Done',
      series: { count: 4, lastObservedTime: '2026-11-29T10:30:00.000001Z' }, type: 'Warning', message: 'done',
    });
    expect(ok.status, ok.text).to.equal(201);
    // MicroTime in Go's form: UTC with six fraction digits.
    expect(ok.body.eventTime).to.equal('2026-11-29T10:00:00.123456Z');
  });

  it('a malformed eventTime is 400, as Go fails to decode it', async () => {
    const res = await t.post(EVENTS, { ...oldStyle('badtime.1', 'alpha'), eventTime: 'yesterday' });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.include('parsing time "yesterday"');
  });

  it('PUT creates a missing event and updates without a resourceVersion', async () => {
    const created = await t.put(`${EVENTS}/put.1`, oldStyle('put.1', 'alpha'));
    expect(created.status, created.text).to.equal(201);
    const updated = await t.put(`${EVENTS}/put.1`, { ...oldStyle('put.1', 'alpha'), count: 3 });
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body.count).to.equal(3);
  });

  it('as a Table: kubectl\'s columns; a series gives the count and last seen', async () => {
    const res = await t.get(`${EVENTS}?fieldSelector=metadata.name%3Dnew.1`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}/${c.priority}`)).to.deep.equal([
      'Last Seen/0', 'Type/0', 'Reason/0', 'Object/0', 'Subobject/1', 'Source/1', 'Message/0', 'First Seen/1', 'Count/1', 'Name/1',
    ]);
    const [row] = res.body.rows;
    const [, type, reason, object, subobject, source, message, , count, name] = row.cells;
    expect([type, reason, object, subobject, source, message, count, name]).to.deep.equal(['Warning', 'Done', 'configmap/alpha', '', 'example.com/ctl, ctl-0', 'done', 4, 'new.1']);
  });
});

describe('--event-ttl', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--event-ttl=2s']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('etcd deletes an event that long after its last write (the watch cache sees it go); other kinds stay', async () => {
    expect((await t.post(EVENTS, oldStyle('brief.1', 'alpha'))).status).to.equal(201);
    expect((await t.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stays' } })).status).to.equal(201);
    await new Promise((r) => setTimeout(r, 1_200));
    // Written again: its time starts over.
    expect((await t.put(`${EVENTS}/brief.1`, { ...oldStyle('brief.1', 'alpha'), count: 5 })).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await t.get(`${EVENTS}/brief.1`)).status, 'renewed by the update').to.equal(200);
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      // resourceVersion=0: from the watch cache, which learns of the expiry from etcd's watch.
      status = (await t.get(`${EVENTS}/brief.1?resourceVersion=0`)).status;
    }
    expect(status, 'expired').to.equal(404);
    expect((await t.get(`${EVENTS}/brief.1`)).status).to.equal(404);
    expect((await t.get(`/api/v1/namespaces/${NS}/configmaps/stays`)).status).to.equal(200);
  });
});

