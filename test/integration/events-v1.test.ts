/**
 * events.k8s.io/v1 Event (events.orch.io/v1 in the orch flavor) over HTTPS against a real etcd:
 * the same objects as core/v1 Event. An event written in one group is read in the other with its
 * fields renamed as Kubernetes converts them, one object with one resourceVersion; a watch in
 * either group sees writes made in the other; Kubernetes' events/v1 validation (422 with its
 * causes, nothing stored); its field labels; kubectl's table; protobuf.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { decodeProtobuf } from '../../lib/scheme/protobuf';

const NS = 'events-v1';
type Body = Record<string, any>;
const QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const newEvent = (name: string, extra: Body = {}): Body => ({
  kind: 'Event', metadata: { name },
  eventTime: '2026-01-02T03:04:05.123456Z', reportingController: 'example.com/controller', reportingInstance: 'controller-1',
  action: 'Scale', reason: 'Scaled', type: 'Normal', note: 'scaled to 3',
  regarding: { kind: 'Deployment', apiVersion: 'apps/v1', namespace: NS, name: 'web', uid: 'u-1' },
  ...extra,
});

describe('Event (events.k8s.io/v1) over the core/v1 Events', () => {
  let t: TestServer;
  let group: string;
  let v1Path: (name?: string) => string;
  const corePath = (name = '') => `/api/v1/namespaces/${NS}/events${name ? `/${name}` : ''}`;
  const body = (name: string, extra: Body = {}) => ({ apiVersion: `${group}/v1`, ...newEvent(name, extra) });

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('events');
    v1Path = (name = '') => `/apis/${group}/v1/namespaces/${NS}/events${name ? `/${name}` : ''}`;
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('serves an events/v1 write as core/v1 with the fields renamed, one object, one resourceVersion', async () => {
    const created = await t.post(v1Path(), body('a', { related: { kind: 'ReplicaSet', name: 'web-1', namespace: NS }, series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000001Z' } }));
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.deep.include({ apiVersion: `${group}/v1`, kind: 'Event', note: 'scaled to 3', reportingController: 'example.com/controller' });
    const core = await t.get(corePath('a'));
    expect(core.status, core.text).to.equal(200);
    expect(core.body).to.deep.include({
      apiVersion: 'v1', kind: 'Event', message: 'scaled to 3', reason: 'Scaled', action: 'Scale', type: 'Normal',
      reportingComponent: 'example.com/controller', reportingInstance: 'controller-1', eventTime: '2026-01-02T03:04:05.123456Z',
      involvedObject: { kind: 'Deployment', apiVersion: 'apps/v1', namespace: NS, name: 'web', uid: 'u-1' },
      related: { kind: 'ReplicaSet', name: 'web-1', namespace: NS },
      series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000001Z' },
    });
    expect(core.body).not.to.have.any.keys('note', 'regarding', 'reportingController');
    expect(core.body.metadata.resourceVersion).to.equal(created.body.metadata.resourceVersion);
    expect(core.body.metadata.uid).to.equal(created.body.metadata.uid);
    const back = await t.get(v1Path('a'));
    expect(back.body).to.deep.equal(created.body);
  });

  it('serves a core/v1 write as events/v1 with the deprecated fields', async () => {
    const created = await t.post(corePath(), {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'old' }, involvedObject: { kind: 'Pod', namespace: NS, name: 'p' },
      reason: 'Pulled', message: 'pulled the image', type: 'Normal', source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-01-02T03:04:05Z', lastTimestamp: '2026-01-02T03:06:05Z', count: 4,
    });
    expect(created.status, created.text).to.equal(201);
    const v1 = await t.get(v1Path('old'));
    expect(v1.status, v1.text).to.equal(200);
    expect(v1.body).to.deep.include({
      apiVersion: `${group}/v1`, kind: 'Event', note: 'pulled the image', reason: 'Pulled', type: 'Normal',
      regarding: { kind: 'Pod', namespace: NS, name: 'p' }, deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-01-02T03:04:05Z', deprecatedLastTimestamp: '2026-01-02T03:06:05Z', deprecatedCount: 4,
    });
    // Empty reporting fields are omitted at events/v1 (omitempty), and no core name leaks through.
    expect(v1.body).not.to.have.any.keys('message', 'involvedObject', 'source', 'count', 'reportingController', 'reportingInstance');
    expect(v1.body.metadata.resourceVersion).to.equal(created.body.metadata.resourceVersion);
    const list = await t.get(v1Path());
    expect(list.body.kind).to.equal('EventList');
    expect(list.body.apiVersion).to.equal(`${group}/v1`);
    expect(list.body.items.map((i: Body) => i.metadata.name)).to.include.members(['a', 'old']);
  });

  it('a watch in each group sees the other group\'s writes with the same resourceVersion', async () => {
    const rv = (await t.get(corePath())).body.metadata.resourceVersion;
    const v1Watch = openWatch(adminTarget(t.server), `${v1Path()}?watch=1&resourceVersion=${rv}`);
    const coreWatch = openWatch(adminTarget(t.server), `${corePath()}?watch=1&resourceVersion=${rv}`);
    try {
      const fromCore = await t.post(corePath(), { apiVersion: 'v1', kind: 'Event', metadata: { name: 'w-core' }, involvedObject: { kind: 'Pod', namespace: NS, name: 'p' }, reason: 'R', message: 'm' });
      expect(fromCore.status, fromCore.text).to.equal(201);
      const fromV1 = await t.post(v1Path(), body('w-v1'));
      expect(fromV1.status, fromV1.text).to.equal(201);
      const seenV1 = await v1Watch.waitFor((e) => e.object.metadata.name === 'w-core');
      expect(seenV1.type).to.equal('ADDED');
      expect(seenV1.object).to.deep.include({ apiVersion: `${group}/v1`, note: 'm', regarding: { kind: 'Pod', namespace: NS, name: 'p' } });
      expect(seenV1.object.metadata.resourceVersion).to.equal(fromCore.body.metadata.resourceVersion);
      const seenCore = await coreWatch.waitFor((e) => e.object.metadata.name === 'w-v1');
      expect(seenCore.type).to.equal('ADDED');
      expect(seenCore.object).to.deep.include({ apiVersion: 'v1', message: 'scaled to 3', reportingComponent: 'example.com/controller' });
      expect(seenCore.object.metadata.resourceVersion).to.equal(fromV1.body.metadata.resourceVersion);
      // A delete in core/v1 is a DELETED at events/v1.
      expect((await t.del(corePath('w-v1'))).status).to.equal(200);
      const gone = await v1Watch.waitFor((e) => e.type === 'DELETED' && e.object.metadata.name === 'w-v1');
      expect(gone.object.apiVersion).to.equal(`${group}/v1`);
    } finally {
      v1Watch.close();
      coreWatch.close();
    }
  });

  describe('validation at events/v1 (ValidateEventCreate / ValidateEventUpdate)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no eventTime', { eventTime: undefined }, [{ field: 'eventTime', reason: 'FieldValueRequired', message: 'Required value' }]],
      // Kubernetes also runs IsQualifiedName on the empty name: two more causes.
      ['no reportingController', { reportingController: undefined }, [
        { field: 'reportingController', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'reportingController', reason: 'FieldValueInvalid', message: 'Invalid value: "": name part must be non-empty' },
        { field: 'reportingController', reason: 'FieldValueInvalid', message: `Invalid value: "": ${QUALIFIED}` }]],
      ['a reportingController that is not a qualified name', { reportingController: 'a b' }, [{
        field: 'reportingController', reason: 'FieldValueInvalid',
        message: `Invalid value: "a b": ${QUALIFIED}`,
      }]],
      ['no reportingInstance', { reportingInstance: undefined }, [{ field: 'reportingInstance', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a reportingInstance over 128 characters', { reportingInstance: 'i'.repeat(129) }, [{ field: 'reportingInstance', reason: 'FieldValueInvalid', message: 'Invalid value: "": can have at most 128 characters' }]],
      ['no action', { action: undefined }, [{ field: 'action', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['an action over 128 characters', { action: 'a'.repeat(129) }, [{ field: 'action', reason: 'FieldValueInvalid', message: 'Invalid value: "": can have at most 128 characters' }]],
      ['no reason', { reason: undefined }, [{ field: 'reason', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a reason over 128 characters', { reason: 'r'.repeat(129) }, [{ field: 'reason', reason: 'FieldValueInvalid', message: 'Invalid value: "": can have at most 128 characters' }]],
      ['a note over 1 kB', { note: 'n'.repeat(1025) }, [{ field: 'message', reason: 'FieldValueInvalid', message: 'Invalid value: "": can have at most 1024 characters' }]],
      ['a type other than Normal or Warning', { type: 'Info' }, [{ field: 'type', reason: 'FieldValueInvalid', message: 'Invalid value: "": has invalid value: Info' }]],
      ['no type', { type: undefined }, [{ field: 'type', reason: 'FieldValueInvalid', message: 'Invalid value: "": has invalid value: ' }]],
      ['a regarding object in another namespace... none, outside default and kube-system', { regarding: { kind: 'Node', name: 'n' } }, [{
        field: 'involvedObject.namespace', reason: 'FieldValueInvalid', message: 'Invalid value: "": does not match event.namespace' }]],
      ['a series of one', { series: { count: 1, lastObservedTime: '2026-01-02T03:05:00.000000Z' } }, [{ field: 'series.count', reason: 'FieldValueInvalid', message: 'Invalid value: "": should be at least 2' }]],
      ['a series without lastObservedTime', { series: { count: 3 } }, [{ field: 'series.lastObservedTime', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['deprecatedFirstTimestamp set', { deprecatedFirstTimestamp: '2026-01-02T03:04:05Z' }, [{ field: 'firstTimestamp', reason: 'FieldValueInvalid', message: 'Invalid value: "": needs to be unset' }]],
      ['deprecatedLastTimestamp set', { deprecatedLastTimestamp: '2026-01-02T03:04:05Z' }, [{ field: 'lastTimestamp', reason: 'FieldValueInvalid', message: 'Invalid value: "": needs to be unset' }]],
      ['deprecatedCount set', { deprecatedCount: 2 }, [{ field: 'count', reason: 'FieldValueInvalid', message: 'Invalid value: "": needs to be unset' }]],
      ['deprecatedSource set', { deprecatedSource: { component: 'kubelet' } }, [{ field: 'source', reason: 'FieldValueInvalid', message: 'Invalid value: "": needs to be unset' }]],
    ];
    invalid.forEach(([what, extra, causes]) => {
      it(`refuses ${what} (422, nothing stored)`, async () => {
        const res = await rejectedLeavingStore(t, corePath(), () => t.post(v1Path(), body('bad', extra)));
        expectInvalidCauses(res, 'Event', causes);
        expect(res.body.details.group).to.equal(group);
      });
    });

    it('accepts at core/v1 what events/v1 refuses (no strict rules for the old API)', async () => {
      const res = await t.post(corePath(), { apiVersion: 'v1', kind: 'Event', metadata: { name: 'lenient' }, involvedObject: { namespace: NS }, type: 'Info', count: 3 });
      expect(res.status, res.text).to.equal(201);
    });

    it('keeps every field but the series immutable on update, and checks a changed series', async () => {
      expect((await t.post(v1Path(), body('imm'))).status).to.equal(201);
      const current = (await t.get(v1Path('imm'))).body;
      const changed = await rejectedLeavingStore(t, corePath(), () => t.put(v1Path('imm'), { ...current, note: 'other', action: 'Other' }));
      expectInvalidCauses(changed, 'Event', [
        { field: 'message', reason: 'FieldValueInvalid', message: 'Invalid value: "other": field is immutable' },
        { field: 'action', reason: 'FieldValueInvalid', message: 'Invalid value: "Other": field is immutable' },
      ]);
      const badSeries = await t.put(v1Path('imm'), { ...current, series: { count: 1, lastObservedTime: '2026-01-02T03:05:00.000000Z' } });
      expectInvalidCauses(badSeries, 'Event', [{ field: 'series.count', reason: 'FieldValueInvalid', message: 'Invalid value: "": should be at least 2' }]);
      const series = await t.put(v1Path('imm'), { ...current, series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' } });
      expect(series.status, series.text).to.equal(200);
      expect((await t.get(corePath('imm'))).body.series).to.deep.equal({ count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' });
    });
  });

  it('takes the series heartbeat client-go\'s event recorder sends (a strategic merge patch)', async () => {
    expect((await t.post(v1Path(), body('beat'))).status).to.equal(201);
    const series = { count: 5, lastObservedTime: '2026-01-02T03:09:00.000002Z' };
    const res = await t.request('PATCH', v1Path('beat'), { raw: JSON.stringify({ series }), headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.series).to.deep.equal(series);
    expect((await t.get(corePath('beat'))).body.series).to.deep.equal(series);
  });

  it('filters by Kubernetes\' events/v1 field labels and refuses the core ones', async () => {
    const names = async (selector: string) => {
      const res = await t.get(`${v1Path()}?fieldSelector=${encodeURIComponent(selector)}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.items.map((i: Body) => i.metadata.name).sort();
    };
    expect(await names('regarding.name=web')).to.include('a').and.not.include('old');
    expect(await names('regarding.kind=Pod,regarding.name=p')).to.include('old').and.not.include('a');
    expect(await names('reportingController=example.com/controller')).to.include('a').and.not.include('old');
    expect(await names('reason=Pulled')).to.deep.equal(['old']);
    expect(await names('type=Normal')).to.include.members(['a', 'old']);
    const refused = await t.get(`${v1Path()}?fieldSelector=involvedObject.name%3Dweb`);
    expect(refused.status).to.equal(400);
    // core/v1 keeps its own labels over the same objects.
    const core = await t.get(`${corePath()}?fieldSelector=involvedObject.name%3Dweb`);
    expect(core.body.items.map((i: Body) => i.metadata.name)).to.include('a');
  });

  it('prints kubectl\'s event table at events/v1', async () => {
    const res = await t.get(v1Path(), { ...TABLE, headers: { ...TABLE.headers } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    const row = res.body.rows.find((r: Body) => r.object.metadata.name === 'old');
    expect(row.cells.slice(1, 9)).to.deep.equal(['Normal', 'Pulled', 'pod/p', '', 'kubelet, node-1', 'pulled the image', row.cells[7], 4]);
    const a = res.body.rows.find((r: Body) => r.object.metadata.name === 'a');
    // A series stands in for the count; the reporting fields for the source.
    expect(a.cells.slice(1, 9)).to.deep.equal(['Normal', 'Scaled', 'deployment/web', '', 'example.com/controller, controller-1', 'scaled to 3', a.cells[7], 2]);
  });

  it('answers in protobuf and takes a protobuf body', async () => {
    const res = await t.get(v1Path('a'), { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.status, res.text).to.equal(200);
    const decoded = decodeProtobuf(res.raw as Buffer);
    expect(decoded).to.deep.include({ apiVersion: `${group}/v1`, kind: 'Event', note: 'scaled to 3', reportingController: 'example.com/controller', reason: 'Scaled' });
    expect(decoded.regarding).to.deep.include({ kind: 'Deployment', name: 'web', uid: 'u-1' });
    const put = await t.request('PUT', v1Path('a'), { raw: res.raw, headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.note).to.equal('scaled to 3');
  });

  it('lists the resource in discovery with core/v1 Event\'s storage version hash', async () => {
    const v1 = (await t.get(`/apis/${group}/v1`)).body.resources.find((r: Body) => r.name === 'events');
    const core = (await t.get('/api/v1')).body.resources.find((r: Body) => r.name === 'events');
    expect(v1).to.deep.include({ kind: 'Event', namespaced: true, shortNames: ['ev'] });
    expect(v1.storageVersionHash).to.equal(core.storageVersionHash);
  });
});

describe('--event-ttl at events.k8s.io/v1', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--event-ttl=2s']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('etcd deletes an event written at events/v1 that long after its write, in both groups', async () => {
    const group = t.server.naming.group('events');
    const v1 = `/apis/${group}/v1/namespaces/${NS}/events`;
    expect((await t.post(v1, { apiVersion: `${group}/v1`, ...newEvent('brief') })).status).to.equal(201);
    expect((await t.get(`/api/v1/namespaces/${NS}/events/brief`)).status).to.equal(200);
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await t.get(`${v1}/brief?resourceVersion=0`)).status;
    }
    expect(status, 'expired').to.equal(404);
    expect((await t.get(`/api/v1/namespaces/${NS}/events/brief`)).status).to.equal(404);
  });
});
