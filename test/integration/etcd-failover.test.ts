/**
 * How the lean etcd client (lib/storage/etcd3/kv-client.ts) leaves a failing member of a real
 * 3-member cluster: a member that hangs (SIGSTOP: its kernel still accepts connections) is found
 * by the keepalive probe and left, also by an idle watch; a hung member is skipped at dial
 * within the 1 s dial budget; a member cut off from the quorum answers "no leader" at once
 * (hasleader) and the client moves on; writes in flight when the leader is killed end when the
 * member's raft term rises, not at a deadline; a reconnection wakes a watch cache waiting out its
 * back-off (lib/storage/cacher/reflector.ts).
 */
import { expect } from 'chai';
import { startTestEtcdCluster, TestEtcdCluster } from '../helpers/etcd-cluster';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { portOf, startRelay, TcpRelay } from '../helpers/tcp-relay';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { watchPrefix } from '../../lib/storage/etcd3/watcher';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { Reflector } from '../../lib/storage/cacher/reflector';
import { KeyValue, StorageEvent } from '../../lib/storage/interfaces';
import { StorageError } from '../../lib/storage/errors';
import { freeLoopbackPort } from '../helpers/free-port';

const b = (s: string) => Buffer.from(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

describe('etcd client fail-over on a 3-member cluster', function () {
  this.timeout(90_000);
  // Each case races real etcd processes (signals, elections, restarts) on a shared 2-core
  // machine: a case that loses such a race once is run again; one that fails three times fails.
  this.retries(2);
  let cluster: TestEtcdCluster;
  const clients: EtcdKvClient[] = [];
  const client = (endpoints: string[], opts: Partial<ConstructorParameters<typeof EtcdKvClient>[0]> = {}) => {
    const c = new EtcdKvClient({ endpoints, ...opts });
    clients.push(c);
    return c;
  };
  const memberOf = (c: EtcdKvClient) => cluster.memberByUrl(c.state().endpoint ?? '')?.name;

  before(async function () {
    this.timeout(60_000);
    cluster = await startTestEtcdCluster();
  });
  afterEach(async function () {
    this.timeout(60_000);
    await Promise.all(clients.splice(0).map((c) => c.close()));
    for (const m of cluster.members) if (m.paused) cluster.cont(m.name);
    await cluster.startAll();
    await cluster.waitLeader(30_000);
  });
  after(async () => {
    await cluster?.close();
  });

  it('a hung member (SIGSTOP): an idle watch ends within keepalive interval + timeout, and calls go to another member', async () => {
    const c = client(cluster.endpoints, { keepaliveIntervalMs: 500, keepaliveTimeoutMs: 500 });
    await c.txn({ success: [{ put: { key: b('/f/a'), value: b('1') } }] });
    const hung = memberOf(c)!;
    expect(hung).to.be.a('string');
    let ended: { err: StorageError; at: number } | undefined;
    await watchPrefix(c, '/f/', 0, { onEvents: () => undefined, onError: (err) => { ended = { err: err as StorageError, at: Date.now() }; } });
    let reconnectedTo: string | undefined;
    c.onConnected((url) => { reconnectedTo = url; });
    const stoppedAt = Date.now();
    cluster.stop(hung);
    const end = await until(() => ended, 10_000, 'the watch on the hung member ended');
    expect(end.err.code).to.equal('Unavailable');
    // Idle: no bytes in one interval, then a probe unanswered for its timeout (500 + 500 ms), with slack.
    expect(end.at - stoppedAt, 'ms until the hung member was left').to.be.at.most(3_000);
    // If the hung member was the leader, the others answer "no leader" (at once) until they elect one.
    const started = Date.now();
    const r = await until(() => c.range({ key: b('/f/a') }).catch((e: StorageError) => {
      expect(e.message).to.match(/no leader/);
      return undefined;
    }), 10_000, 'a read served by another member');
    expect(r.kvs[0].value.toString()).to.equal('1');
    expect(Date.now() - started, 'a call after the member was left').to.be.below(4_000);
    expect(memberOf(c)).to.not.equal(hung);
    expect(reconnectedTo, 'onConnected ran for the new session').to.equal(c.state().endpoint);
  });

  it('a call in flight on a member that hangs fails as sent (Unavailable, connection lost) well before its deadline', async () => {
    const c = client(cluster.endpoints, { callTimeoutMs: 20_000, txnTimeoutMs: 20_000, keepaliveIntervalMs: 500, keepaliveTimeoutMs: 500 });
    await c.range({ key: b('/f/a') });
    const hung = memberOf(c)!;
    cluster.stop(hung);
    const started = Date.now();
    const err = await c.txn({ success: [{ put: { key: b('/f/b'), value: b('2') } }] }).then(() => undefined, (e) => e as StorageError);
    expect(err, 'a write to a hung member cannot succeed').to.be.instanceOf(StorageError);
    expect(err!.code).to.equal('Unavailable');
    expect(err!.sent, 'the Txn was written: it may have been applied').to.equal(true);
    expect(Date.now() - started).to.be.at.most(3_000);
  });

  it('writes in flight on a follower when the leader is killed: a raw Txn fails as sent, and CAS writes through the store complete, soon after the new leader (not at a deadline), applied once', async () => {
    const leader = (await cluster.leader())!;
    const follower = cluster.members.find((m) => m.name !== leader)!;
    // Deadlines far above etcd's own request timeout (7 s), which would otherwise end the wait.
    const c = client([follower.clientUrl, ...cluster.endpoints.filter((e) => e !== follower.clientUrl)], { callTimeoutMs: 20_000, txnTimeoutMs: 20_000 });
    const storage = new Etcd3Storage(c);
    // Keys of this attempt's own (a retried attempt finds the previous one's keys in place).
    const lost = `/lost/${Date.now().toString(36)}`;
    const updated = await storage.create(`${lost}/updated`, b('v1'));
    expect(updated.ok).to.equal(true);
    await storage.get(`${lost}/updated`);
    expect(memberOf(c)).to.equal(follower.name);
    await cluster.kill(leader);
    // Sent at once: the follower forwards them to the dead leader (it notices the loss only after
    // an election timeout, 1 s), where they are lost; etcd answers nothing until its request timeout.
    const sentAt = Date.now();
    const raw = c.txn({ success: [{ put: { key: b(`${lost}/raw`), value: b('r') } }] }).then(() => undefined, (e) => ({ err: e as StorageError, ms: Date.now() - sentAt }));
    // A write the follower refuses with "no leader" (once it has noticed the loss) was not sent:
    // the client tries it again, as on a 503.
    const again = async <T>(write: () => Promise<T>): Promise<T> => {
      for (;;) {
        try {
          return await write();
        } catch (err) {
          if (!(err instanceof StorageError && err.sent === false && Date.now() - sentAt < 5_000)) throw err;
          await sleep(50);
        }
      }
    };
    const create = again(() => storage.create(`${lost}/created`, b('c1'))).then((r) => ({ r, ms: Date.now() - sentAt }));
    const update = again(() => storage.update(`${lost}/updated`, b('v2'), updated.revision)).then((r) => ({ r, ms: Date.now() - sentAt }));
    let leaderAt = 0;
    void cluster.waitLeader(30_000).then(() => { leaderAt = Date.now() - sentAt; }, () => undefined);
    const rawOutcome = await raw;
    expect(rawOutcome, 'a write sent to a lost leader cannot succeed').to.not.equal(undefined);
    expect(rawOutcome!.err.code).to.equal('Unavailable');
    expect(rawOutcome!.err.sent, 'its outcome is unknown').to.equal(true);
    const [created, up] = await Promise.all([create, update]);
    expect(created.r.ok, 'the create, completed by the store on the new leader').to.equal(true);
    expect(up.r.ok, 'the update, completed by the store on the new leader').to.equal(true);
    // An election takes 1-2 election timeouts (1 s each); etcd's request timeout is 7 s.
    for (const ms of [rawOutcome!.ms, created.ms, up.ms]) expect(ms, `ms after the kill (new leader seen at ${leaderAt} ms)`).to.be.below(5_000);
    // Applied once each: the create's version 1, the update's 2 (a second apply would fail its compare).
    const check = new EtcdKvClient({ endpoints: cluster.endpoints.filter((e) => e !== cluster.member(leader).clientUrl) });
    clients.push(check);
    const [cr, ur] = await Promise.all([check.range({ key: b(`${lost}/created`) }), check.range({ key: b(`${lost}/updated`) })]);
    expect([cr.kvs[0]?.value.toString(), cr.kvs[0]?.version]).to.deep.equal(['c1', 1]);
    expect([ur.kvs[0]?.value.toString(), ur.kvs[0]?.version]).to.deep.equal(['v2', 2]);
  });

  it('a hung member first in the list is skipped at dial within the dial budget', async () => {
    // A follower: stopping the leader would start an election, and a read meanwhile may be
    // refused with "leader changed", which is not what this test is about.
    const leader = await cluster.leader();
    const hung = cluster.members.find((m) => m.name !== leader)!;
    // Serving (a member restarted by the previous test's clean-up may not listen yet, and a
    // refused dial would skip it at once).
    const probe = new EtcdKvClient({ endpoints: [hung.clientUrl], callTimeoutMs: 1_000 });
    try {
      await until(() => probe.range({ key: b('/f/a') }).then((r) => r, () => undefined), 20_000, 'the member to stop serving first');
    } finally {
      await probe.close();
    }
    cluster.stop(hung.name);
    await sleep(100); // the signal delivered: the member answers no new connection from here on
    const c = client([hung.clientUrl, ...cluster.endpoints.filter((e) => e !== hung.clientUrl)]);
    const started = Date.now();
    await c.range({ key: b('/f/a') });
    const ms = Date.now() - started;
    expect(memberOf(c)).to.not.equal(hung.name);
    // 1 s dial budget for the hung member, then the next answers at once.
    expect(ms).to.be.within(900, 2_500);
  });

  it('a member cut off from the quorum answers "no leader" at once (hasleader), not sent, and the client moves to the next member', async () => {
    const c = client(cluster.endpoints, { callTimeoutMs: 2_000 });
    await c.range({ key: b('/f/a') });
    const alone = memberOf(c)!;
    for (const m of cluster.members) if (m.name !== alone) await cluster.kill(m.name);
    // Until the member steps down (an election timeout), a read may wait out its deadline.
    const err = await until(async () => {
      const e = await c.range({ key: b('/f/a') }).then(() => undefined, (x) => x as StorageError);
      return e && /no leader/.test(e.message) ? e : undefined;
    }, 20_000, '"no leader"');
    expect(err.code).to.equal('Unavailable');
    expect(err.sent, 'refused before it ran').to.equal(false);
    const started = Date.now();
    const again = await c.txn({ success: [{ put: { key: b('/f/c'), value: b('3') } }] }).then(() => undefined, (x) => x as StorageError);
    expect(again?.code).to.equal('Unavailable');
    expect(Date.now() - started, 'answered at once, not at a deadline').to.be.below(1_000);
    // Quorum back: the next call is served (by whichever member has a leader).
    await cluster.startAll();
    await cluster.waitLeader(30_000);
    await until(() => c.range({ key: b('/f/a') }).then((r) => r, () => undefined), 10_000, 'served again');
  });
});

describe('watch cache back-off', function () {
  this.timeout(60_000);
  let etcd: TestEtcd;
  let relay: TcpRelay;

  before(async () => {
    etcd = await startTestEtcd();
    relay = await startRelay(portOf(etcd.endpoint));
  });
  after(async () => {
    await relay?.close();
    await etcd?.stop();
  });

  it('a reconnection of the etcd client wakes a Reflector waiting out its back-off: the watch resumes at once, nothing missed', async () => {
    const kv = new EtcdKvClient({ endpoints: [relay.url], callTimeoutMs: 2_000 });
    const storage = new Etcd3Storage(kv);
    const applied: StorageEvent[] = [];
    let appliedRevision = 0;
    const sink = {
      get appliedRevision() { return appliedRevision; },
      replace(_kvs: KeyValue[], revision: number) { appliedRevision = revision; },
      apply(events: StorageEvent[]) { applied.push(...events); appliedRevision = events[events.length - 1].revision; },
    };
    // A long back-off: without the wake, the resume would come 20 s later.
    const reflector = new Reflector(storage, '/wake/', sink, { initialBackoffMs: 20_000, maxBackoffMs: 20_000 });
    const writer = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    try {
      await reflector.start();
      await writer.txn({ success: [{ put: { key: b('/wake/a'), value: b('1') } }] });
      await until(() => (applied.length === 1 ? true : undefined), 5_000, 'first event');
      // Cut the watch and point the relay at nothing: the resume fails and the back-off starts.
      relay.retarget(await freeLoopbackPort());
      await sleep(500);
      await writer.txn({ success: [{ put: { key: b('/wake/b'), value: b('2') } }] });
      relay.retarget(portOf(etcd.endpoint));
      await sleep(300);
      expect(applied.length, 'nothing can arrive while the Reflector waits').to.equal(1);
      // Any call that reconnects the client (here a read) wakes the Reflector.
      const woke = Date.now();
      await storage.get('/wake/a');
      await until(() => (applied.length === 2 ? true : undefined), 5_000, 'the event written during the outage');
      expect(Date.now() - woke).to.be.below(2_000);
      expect(applied.map((e) => e.key)).to.deep.equal(['/wake/a', '/wake/b']);
    } finally {
      await reflector.stop();
      await writer.close();
      await kv.close();
    }
  });
});
