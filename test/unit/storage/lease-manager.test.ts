/**
 * The lease manager (lib/storage/etcd3/lease-manager.ts): keys written within a window share one
 * lease, each key lives at least its TTL, and a grant in flight is shared.
 */
import { expect } from 'chai';
import { LeaseManager } from '../../../lib/storage/etcd3/lease-manager';

function fakeKv() {
  const grants: number[] = [];
  let next = 1n << 60n;
  return {
    grants,
    leaseGrant: async (ttl: number) => {
      grants.push(ttl);
      return { header: { revision: 1 }, id: next++, ttl };
    },
  };
}

describe('lease manager', () => {
  it('grants TTL + 5% (at most 60 s) and shares that lease while it still covers the TTL', async () => {
    let now = 1_000_000;
    const kv = fakeKv();
    const m = new LeaseManager(kv, () => now);
    const first = await m.lease(3600);
    expect(kv.grants).to.deep.equal([3660]);
    now += 59_000;
    expect(await m.lease(3600), 'inside the 60 s window').to.equal(first);
    now += 1_000;
    const second = await m.lease(3600);
    expect(second, 'the lease would end before the TTL').to.not.equal(first);
    expect(kv.grants).to.deep.equal([3660, 3660]);
    expect(second > first).to.equal(true);
  });

  it('5% of a short TTL: 100 s gets 105 s leases, shared for 5 s', async () => {
    let now = 0;
    const kv = fakeKv();
    const m = new LeaseManager(kv, () => now);
    const a = await m.lease(100);
    now += 4_999;
    expect(await m.lease(100)).to.equal(a);
    now += 1;
    expect(await m.lease(100)).to.not.equal(a);
    expect(kv.grants).to.deep.equal([105, 105]);
  });

  it('a TTL under 20 s has no window: each write gets its own lease', async () => {
    const kv = fakeKv();
    const m = new LeaseManager(kv, () => 0);
    const a = await m.lease(2);
    const b = await m.lease(2);
    expect(a).to.not.equal(b);
    expect(kv.grants).to.deep.equal([2, 2]);
  });

  it('writes asking while a grant is in flight share it; a failed grant is not kept', async () => {
    const kv = fakeKv();
    let fail = true;
    const m = new LeaseManager({ leaseGrant: async (ttl: number) => { if (fail) throw new Error('etcd down'); return kv.leaseGrant(ttl); } }, () => 0);
    await Promise.all([m.lease(3600), m.lease(3600)].map((p) => p.then(() => expect.fail('granted'), (e: Error) => expect(e.message).to.equal('etcd down'))));
    fail = false;
    const [a, b] = await Promise.all([m.lease(3600), m.lease(3600)]);
    expect(a).to.equal(b);
    expect(kv.grants).to.deep.equal([3660]);
  });
});
