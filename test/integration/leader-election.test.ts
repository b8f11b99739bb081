/**
 * Leases and leader election: the Lease kind through the API (validation, MicroTime, table,
 * optimistic updates), and two replicas on one etcd of which only the holder of the
 * controller-manager Lease runs the controllers; a graceful stop hands over at once, a leader
 * cut off from etcd stops its controllers and the other replica takes over once the lease expires.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { startRelay, portOf, TcpRelay } from '../helpers/tcp-relay';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { decodeProtobuf } from '../../lib/scheme/protobuf/envelope';
import { ServerProcess, startServerProcess } from '../helpers/server-process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LEASE_S = 3;
const ELECTION = [`--leader-elect-lease-duration=${LEASE_S}s`, '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=250ms'];
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const LEASES = '/apis/coordination.orch.io/v1/namespaces/default/leases';
const CM_LEASE = '/apis/coordination.orch.io/v1/namespaces/orch-system/leases/orch-controller-manager';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const leading = (t: TestServer) => t.server.controllers.runningNames().length > 0;
const identityOf = (t: TestServer) => t.server.controllers.elector?.identity;

describe('Lease kind', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(ELECTION); });
  after(async () => { await t?.stop(); });

  it('is served with every verb and kubectl\'s NAME HOLDER AGE table', async () => {
    const created = await t.post(LEASES, { metadata: { name: 'l1' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 10, renewTime: '2024-05-01T10:00:00.123456+02:00' } });
    expect(created.status, created.text).to.equal(201);
    // MicroTime is kept at microseconds, in UTC, as Go writes it.
    expect(created.body.spec.renewTime).to.equal('2024-05-01T08:00:00.123456Z');
    const table = await t.get(`${LEASES}/l1`, { headers: TABLE });
    expect(table.body.columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'Holder', 'Age']);
    expect(table.body.rows[0].cells.slice(0, 2)).to.deep.equal(['l1', 'me']);
    const proto = await t.get(`${LEASES}/l1`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(proto.headers['content-type']).to.equal('application/vnd.kubernetes.protobuf');
    expect(decodeProtobuf(proto.raw!).spec).to.deep.equal(created.body.spec);
    const patched = await t.request('PATCH', `${LEASES}/l1`, { body: { spec: { holderIdentity: 'you' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.body.spec.holderIdentity).to.equal('you');
    const list = await t.get(LEASES);
    expect(list.body.kind).to.equal('LeaseList');
    const del = await t.del(`${LEASES}/l1`);
    expect(del.status).to.equal(200);
    expect(del.body.kind).to.equal('Status');
  });

  it('refuses what Kubernetes\' validation refuses', async () => {
    const bad = await t.post(LEASES, { metadata: { name: 'bad' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } });
    expect(bad.status).to.equal(422);
    expect(bad.body.message).to.equal('Lease.coordination.orch.io "bad" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, '
      + 'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]');
    const strategy = await t.post(LEASES, { metadata: { name: 'bad' }, spec: { strategy: 'Newest', preferredHolder: 'x' } });
    expect(strategy.status).to.equal(422);
    expect(strategy.body.details.causes.map((c: any) => c.field)).to.deep.equal(['spec.strategy.strategy']);
    const holder = await t.post(LEASES, { metadata: { name: 'bad' }, spec: { preferredHolder: 'x' } });
    expect(holder.body.message).to.contain('spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined');
    const seconds = await t.post(LEASES, { metadata: { name: 'bad' }, spec: { renewTime: '2024-05-01T10:00:00Z' } });
    expect(seconds.status).to.equal(400);
    expect(seconds.body.message).to.contain('parsing time "2024-05-01T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00"');
    expect((await t.get(`${LEASES}/bad`)).status).to.equal(404);
  });

  it('needs the resourceVersion it read to update (optimistic concurrency)', async () => {
    const created = await t.post(LEASES, { metadata: { name: 'l2' }, spec: { holderIdentity: 'a' } });
    const noRv = await t.put(`${LEASES}/l2`, { metadata: { name: 'l2' }, spec: { holderIdentity: 'b' } });
    expect(noRv.status).to.equal(422);
    expect(noRv.body.message).to.contain('metadata.resourceVersion: Invalid value: 0: must be specified for an update');
    const first = await t.put(`${LEASES}/l2`, { ...created.body, spec: { holderIdentity: 'b' } });
    expect(first.status).to.equal(200);
    const stale = await t.put(`${LEASES}/l2`, { ...created.body, spec: { holderIdentity: 'c' } });
    expect(stale.status).to.equal(409);
  });

  it('a PUT of a missing Lease creates it without a resourceVersion, as Kubernetes (AllowCreateOnUpdate)', async () => {
    const put = await t.put(`${LEASES}/l3`, { metadata: { name: 'l3' }, spec: { holderIdentity: 'a' } });
    expect(put.status).to.equal(201);
    expect((await t.get(`${LEASES}/l3`)).body.spec.holderIdentity).to.equal('a');
  });

  it('the lone server holds the controller-manager Lease from the start and runs its controllers', async () => {
    expect(leading(t)).to.equal(true);
    const lease = await t.get(CM_LEASE);
    expect(lease.status).to.equal(200);
    expect(lease.body.spec.holderIdentity).to.equal(identityOf(t));
    expect(lease.body.spec.holderIdentity).to.match(/^.+_[0-9a-f-]{36}$/);
    expect(lease.body.spec.leaseDurationSeconds).to.equal(LEASE_S);
    expect(lease.body.spec.renewTime).to.match(/\.\d{6}Z$/);
  });
});

describe('leader election between two replicas', function () {
  this.timeout(120_000);
  let a: TestServer;
  let b: TestServer;
  let c: TestServer | undefined;
  let relay: TcpRelay;
  let etcd: TestEtcd;

  before(async () => {
    etcd = await startTestEtcd();
    a = await startTestServer(ELECTION, { etcd });
    // b reaches etcd through a relay, so that the test can cut it off.
    relay = await startRelay(portOf(etcd.endpoint));
    b = await startTestServer(ELECTION, { etcd: { endpoint: relay.url, stop: async () => undefined } });
  });
  after(async () => {
    relay?.retarget(portOf(etcd.endpoint));
    await c?.stop();
    await b?.stop();
    await a?.stop();
    await relay?.close();
    await etcd?.stop();
  });

  it('only the holder of the Lease runs the controllers; the other waits', async () => {
    expect(leading(a)).to.equal(true);
    expect(b.server.controllers.runningNames()).to.deep.equal([]);
    const table = await b.get(CM_LEASE, { headers: TABLE });
    expect(table.body.rows[0].cells.slice(0, 2)).to.deep.equal(['orch-controller-manager', identityOf(a)]);
    // Renewals keep it: after more than a lease duration, still a and only a.
    await sleep(LEASE_S * 1000 + 500);
    expect(leading(a)).to.equal(true);
    expect(leading(b)).to.equal(false);
    expect((await a.get(CM_LEASE)).body.spec.holderIdentity).to.equal(identityOf(a));
  });

  it('a new namespace gets its default ServiceAccount once', async () => {
    const watch = openWatch(adminTarget(b.server), '/api/v1/namespaces/le-once/serviceaccounts?watch=true');
    try {
      expect((await b.post('/api/v1/namespaces', { metadata: { name: 'le-once' } })).status).to.equal(201);
      await watch.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'default');
      await sleep(1000);
      expect(watch.events.filter((e) => e.object.metadata?.name === 'default').map((e) => e.type)).to.deep.equal(['ADDED']);
    } finally {
      watch.close();
    }
  });

  it('a graceful stop releases the Lease and the other replica takes over before it would expire', async () => {
    const before = (await b.get(CM_LEASE)).body.spec;
    const aIdentity = identityOf(a);
    await a.stop();
    // Released: free, or already b's (b retries every 250 ms and may win before this read).
    const released = (await b.get(CM_LEASE)).body.spec;
    expect(released.holderIdentity ?? '').to.not.equal(aIdentity);
    expect(['', identityOf(b)]).to.include(released.holderIdentity ?? '');
    // Well within the lease duration: the released lease is free, not waited out.
    await eventually(async () => leading(b), (LEASE_S - 1) * 1000, 50);
    const after = (await b.get(CM_LEASE)).body.spec;
    expect(after.holderIdentity).to.equal(identityOf(b));
    expect(after.leaseTransitions).to.equal((before.leaseTransitions ?? 0) + 1);
  });

  it('a leader that cannot renew stops its controllers, and the other takes over after the lease duration', async () => {
    c = await startTestServer(ELECTION, { etcd });
    expect(leading(c)).to.equal(false);
    const before = (await c.get(CM_LEASE)).body.spec;
    expect(before.holderIdentity).to.equal(identityOf(b));
    relay.retarget(1); // b loses etcd: renewals fail, nothing is released
    await eventually(async () => !leading(b), 10_000, 50);
    expect(b.server.controllers.elector?.isLeader()).to.equal(false);
    await eventually(async () => leading(c!), 3 * LEASE_S * 1000, 50);
    const after = (await c.get(CM_LEASE)).body.spec;
    expect(after.holderIdentity).to.equal(identityOf(c));
    expect(after.leaseTransitions).to.equal(before.leaseTransitions + 1);
    // Back on etcd, b sees c's valid lease and stays a follower.
    relay.retarget(portOf(etcd.endpoint));
    await sleep(LEASE_S * 1000);
    expect(leading(b)).to.equal(false);
    expect(leading(c)).to.equal(true);
    expect((await c.get(CM_LEASE)).body.spec.holderIdentity).to.equal(identityOf(c));
  });
});

describe('leader election when the leading server process is killed', function () {
  this.timeout(90_000);
  let etcd: TestEtcd;
  let leader: ServerProcess | undefined;
  let follower: TestServer | undefined;
  let dataDir: string;
  before(async () => {
    etcd = await startTestEtcd();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-leader-'));
  });
  after(async () => {
    await follower?.stop();
    await leader?.stop(2_000);
    await etcd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL of the leader: the other replica runs the controllers within the lease duration, and its controllers act (a new namespace gets its default account)', async () => {
    leader = await startServerProcess([`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error', ...ELECTION]);
    follower = await startTestServer(ELECTION, { etcd });
    const held = (await follower.get(CM_LEASE)).body.spec;
    expect(held.holderIdentity).to.not.equal(identityOf(follower));
    expect(leading(follower)).to.equal(false);
    // No release: the process dies without a word, as on a crash.
    const killedAt = Date.now();
    leader.process.kill('SIGKILL');
    await leader.stop(2_000);
    await eventually(async () => leading(follower!), 3 * LEASE_S * 1000, 50);
    // It waited for the lease to run out (by its own observation), not less.
    expect(Date.now() - killedAt).to.be.at.least((LEASE_S - 1) * 1000);
    const taken = (await follower.get(CM_LEASE)).body.spec;
    expect(taken.holderIdentity).to.equal(identityOf(follower));
    expect(taken.leaseTransitions).to.equal((held.leaseTransitions ?? 0) + 1);
    // The controllers now work here.
    expect((await follower.post('/api/v1/namespaces', { metadata: { name: 'after-kill' } })).status).to.equal(201);
    await eventually(async () => (await follower!.get('/api/v1/namespaces/after-kill/serviceaccounts/default')).status === 200, 10_000, 50);
  });
});

describe('leader election beside a real kube-controller-manager (kubernetes flavor)', function () {
  this.timeout(60_000);
  let t: TestServer;
  const KUBE_LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
  before(async () => { t = await startTestServer(['--flavor=kubernetes', ...ELECTION]); });
  after(async () => { await t?.stop(); });

  it('the server\'s controllers hold a Lease of their own name and leave kube-controller-manager\'s and kube-scheduler\'s free', async () => {
    expect(leading(t)).to.equal(true);
    const own = await t.get(`${KUBE_LEASES}/orch-apiserver-controller-manager`);
    expect(own.status, own.text).to.equal(200);
    expect(own.body.spec.holderIdentity).to.equal(identityOf(t));
    expect((await t.get(`${KUBE_LEASES}/kube-controller-manager`)).status).to.equal(404);
    expect((await t.get(`${KUBE_LEASES}/kube-scheduler`)).status).to.equal(404);
  });

  it('a kube-controller-manager taking its Lease does not stop the server\'s controllers', async () => {
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const kcm = await t.post(KUBE_LEASES, { metadata: { name: 'kube-controller-manager' },
      spec: { holderIdentity: 'kcm-host_1', leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaseTransitions: 0 } });
    expect(kcm.status, kcm.text).to.equal(201);
    await sleep(LEASE_S * 1000 + 500);
    expect(leading(t)).to.equal(true);
    expect((await t.get(`${KUBE_LEASES}/kube-controller-manager`)).body.spec.holderIdentity).to.equal('kcm-host_1');
    expect((await t.get(`${KUBE_LEASES}/orch-apiserver-controller-manager`)).body.spec.holderIdentity).to.equal(identityOf(t));
  });
});
