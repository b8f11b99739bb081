/**
 * The etcd health check's limits (lib/storage/etcd-health.ts): one probe per half timeout with
 * the newest outcome in between (kube-apiserver's rule), a probe that does not answer within the
 * timeout failing, a failure the client saw voiding a stored "ok", and a recent Txn answer
 * standing in for a probe. The probe here is a function with a clock; the server's real probe
 * and real etcd are in test/integration/etcd-health.test.ts.
 */
import { expect } from 'chai';
import { EtcdHealthCheck } from '../../../lib/storage/etcd-health';
import type { QuorumHealth } from '../../../lib/storage/etcd3/kv';

interface Harness {
  check: EtcdHealthCheck;
  probes: number;
  clock: { now: number };
  seen: QuorumHealth | undefined;
  next: Array<() => Promise<unknown>>;
}

function harness(timeoutMs = 2_000): Harness {
  const h = { probes: 0, clock: { now: 10_000 }, seen: undefined, next: [] } as unknown as Harness;
  h.check = new EtcdHealthCheck({
    timeoutMs,
    probe: () => {
      h.probes++;
      const answer = h.next.shift();
      return answer ? answer() : Promise.resolve();
    },
    evidence: () => h.seen,
    now: () => h.clock.now,
  });
  return h;
}

const outcome = (p: Promise<void>) => p.then(() => 'ok', (e: Error) => e.message);
const deferred = () => {
  let settle!: (err?: Error) => void;
  const promise = new Promise<void>((resolve, reject) => { settle = (err) => (err ? reject(err) : resolve()); });
  return { promise, settle };
};

describe('etcd health check', () => {
  it('probes etcd at most once per half timeout; checks in between give the newest outcome', async () => {
    const h = harness(2_000);
    expect(await outcome(h.check.check())).to.equal('ok');
    h.clock.now += 999;
    expect(await outcome(h.check.check())).to.equal('ok');
    expect(h.probes).to.equal(1);
    h.clock.now += 1;
    h.next.push(() => Promise.reject(new Error('connection refused')));
    expect(await outcome(h.check.check())).to.equal('error getting data from etcd: connection refused');
    expect(h.probes).to.equal(2);
    h.clock.now += 500;
    expect(await outcome(h.check.check()), 'the stored failure, without a probe').to.equal('error getting data from etcd: connection refused');
    expect(h.probes).to.equal(2);
    h.clock.now += 500;
    expect(await outcome(h.check.check())).to.equal('ok');
    expect(h.probes).to.equal(3);
  });

  it('fails a probe that etcd does not answer within the timeout', async () => {
    const h = harness(40);
    h.next.push(() => new Promise(() => undefined));
    expect(await outcome(h.check.check())).to.equal('error getting data from etcd: etcd did not answer within 40 ms');
  });

  it('checks made while the first probe is in flight wait for it: one probe', async () => {
    const h = harness();
    const d = deferred();
    h.next.push(() => d.promise);
    const all = [h.check.check(), h.check.check(), h.check.check()].map(outcome);
    d.settle(new Error('no leader'));
    expect(await Promise.all(all)).to.deep.equal(Array(3).fill('error getting data from etcd: no leader'));
    expect(h.probes).to.equal(1);
  });

  it('a failure the client saw after the stored "ok" voids it: the next check probes at once, and checks meanwhile share that probe', async () => {
    const h = harness(2_000);
    h.seen = { answeredAt: 0, failedAt: 0 };
    expect(await outcome(h.check.check())).to.equal('ok');
    h.clock.now += 100;
    h.seen = { answeredAt: 0, failedAt: h.clock.now };
    h.clock.now += 1;
    const d = deferred();
    h.next.push(() => d.promise);
    const both = [h.check.check(), h.check.check()].map(outcome);
    d.settle(new Error('connection refused'));
    expect(await Promise.all(both)).to.deep.equal(Array(2).fill('error getting data from etcd: connection refused'));
    expect(h.probes).to.equal(2);
    h.clock.now += 100;
    expect(await outcome(h.check.check()), 'the failure is stored: no probe').to.equal('error getting data from etcd: connection refused');
    expect(h.probes).to.equal(2);
  });

  it('a Txn answered within the half timeout, with no failure since, stands in for the probe', async () => {
    const h = harness(2_000);
    h.seen = { answeredAt: h.clock.now - 1_000, failedAt: 0 };
    expect(await outcome(h.check.check())).to.equal('ok');
    expect(h.probes).to.equal(0);
    h.clock.now += 1_000;
    h.seen = { answeredAt: h.clock.now - 1_001, failedAt: 0 };
    expect(await outcome(h.check.check()), 'an answer older than the half timeout').to.equal('ok');
    expect(h.probes).to.equal(1);
    h.clock.now += 1_000;
    h.seen = { answeredAt: h.clock.now - 10, failedAt: h.clock.now - 5 };
    h.next.push(() => Promise.reject(new Error('deadline exceeded')));
    expect(await outcome(h.check.check()), 'a failure after the answer').to.equal('error getting data from etcd: deadline exceeded');
    expect(h.probes).to.equal(2);
  });

  it('after a failed probe, the next is skipped only for a Txn answered since (one answered before it is too old to count)', async () => {
    const h = harness(2_000);
    h.seen = { answeredAt: 0, failedAt: 0 };
    h.next.push(() => Promise.reject(new Error('etcd is slow')));
    const failedAt = h.clock.now;
    expect(await outcome(h.check.check())).to.equal('error getting data from etcd: etcd is slow');
    h.clock.now += 1_000;
    h.seen = { answeredAt: failedAt - 1, failedAt: 0 };
    h.next.push(() => Promise.reject(new Error('etcd is slow')));
    expect(await outcome(h.check.check()), 'answered before the failed probe: probed again').to.equal('error getting data from etcd: etcd is slow');
    expect(h.probes).to.equal(2);
    h.clock.now += 1_000;
    h.seen = { answeredAt: h.clock.now - 100, failedAt: 0 };
    expect(await outcome(h.check.check()), 'answered after it').to.equal('ok');
    expect(h.probes).to.equal(2);
  });

  it('a slow probe answering after a newer one does not replace the newer outcome', async () => {
    const h = harness(2_000);
    const slow = deferred();
    h.next.push(() => slow.promise);
    const first = outcome(h.check.check());
    h.clock.now += 1_000;
    h.next.push(() => Promise.reject(new Error('connection refused')));
    expect(await outcome(h.check.check())).to.equal('error getting data from etcd: connection refused');
    slow.settle();
    expect(await first).to.equal('ok');
    h.clock.now += 10;
    expect(await outcome(h.check.check())).to.equal('error getting data from etcd: connection refused');
    expect(h.probes).to.equal(2);
  });

  it('refuses a timeout that is not positive', () => {
    expect(() => new EtcdHealthCheck({ timeoutMs: 0, probe: () => Promise.resolve() })).to.throw('must be positive');
  });
});
