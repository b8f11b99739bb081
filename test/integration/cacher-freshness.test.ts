/**
 * Consistent reads from the watch cache against a real etcd: what the freshness probe relies on
 * (etcd counts keys before the min_mod_revision filter), consistentRevision after writes to the
 * resource and to other resources, shared and linearizable checks, waits and fallbacks.
 */
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { Storage, WatchHandlers } from '../../lib/storage/interfaces';
import { Cacher, CacherOptions } from '../../lib/storage/cacher/cacher';
import { Etcd3Probe } from '../../lib/storage/cacher/etcd3-probe';
import { FreshnessProbe } from '../../lib/storage/cacher/freshness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const soon = (fn: () => boolean) => eventually(async () => fn(), 10_000, 10);

describe('Cacher consistent reads', () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let kv: EtcdKvClient;
  let storage: Etcd3Storage;
  let probe: Etcd3Probe;
  const cachers: Cacher[] = [];

  const put = async (key: string, value: string) => Number((await client.put(key).value(value).exec()).header.revision);
  const del = async (key: string) => Number((await client.delete().key(key).exec()).header.revision);
  async function started(prefix: string, opts: CacherOptions = {}, s: Storage = storage) {
    const c = new Cacher(s, prefix, { probe, ...opts });
    cachers.push(c);
    await c.start();
    return c;
  }
  /** A probe that counts its calls and may hold each answer back after etcd gave it. */
  function countingProbe(delayMs = 0) {
    const counter = { calls: 0 };
    const p: FreshnessProbe = {
      async probe(prefix, since) {
        counter.calls++;
        const r = await probe.probe(prefix, since);
        if (delayMs) await sleep(delayMs);
        return r;
      },
    };
    return { probe: p, counter };
  }

  before(async () => {
    etcd = await startTestEtcd();
    client = createEtcdClient({ endpoints: [etcd.endpoint] });
    kv = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    storage = new Etcd3Storage(kv);
    probe = new Etcd3Probe(kv);
  });
  afterEach(async () => {
    await Promise.all(cachers.splice(0).map((c) => c.stop()));
  });
  after(async () => {
    await storage?.close();
    client?.close();
    await etcd?.stop();
  });

  it('etcd 3.4 counts every key under the prefix before filtering by min_mod_revision', async () => {
    for (let i = 0; i < 5; i++) await put(`/probe/cms/ns/k${i}`, 'v');
    await put('/probe/cms-other/x', 'v');
    const r0 = await put('/probe/other/y', 'v');
    expect(await probe.probe('/probe/cms/', r0)).to.deep.equal({ changedKeys: 0, maxModRevision: 0, count: 5, revision: r0 });
    await put('/probe/cms/ns/k1', 'v2');
    await del('/probe/cms/ns/k2');
    const r3 = await put('/probe/cms/ns/k5', 'v');
    expect(await probe.probe('/probe/cms/', r0)).to.deep.equal({ changedKeys: 2, maxModRevision: r3, count: 5, revision: r3 });
    expect(await probe.probe('/probe/cms/', r3)).to.deep.equal({ changedKeys: 0, maxModRevision: 0, count: 5, revision: r3 });
  });

  it('consistentRevision covers a write made just before, and the cache holds it', async () => {
    const c = await started('/fresh/cms/');
    for (let i = 0; i < 30; i++) {
      const key = `/fresh/cms/ns/k${i % 7}`;
      const written = i % 4 === 3 ? await del(key) : await put(key, `v${i}`);
      const rev = await c.consistentRevision();
      expect(rev).to.be.a('number').and.at.least(written);
      expect(c.revision).to.be.at.least(rev!);
      expect(c.get(key).kv?.value.toString()).to.equal(i % 4 === 3 ? undefined : `v${i}`);
    }
  });

  it('consistentRevision confirms freshness after a write to another resource without waiting', async () => {
    const c = await started('/other/cms/', { freshnessTimeoutMs: 5_000 });
    await put('/other/cms/ns/a', '1');
    const written = await put('/other/secrets/ns/s', 'x');
    const t0 = Date.now();
    const rev = await c.consistentRevision();
    expect(Date.now() - t0).to.be.below(1_000);
    expect(rev).to.be.at.least(written);
    const list = c.list('/other/cms/');
    expect([list.revision >= written, list.kvs.map((kv) => kv.key)]).to.deep.equal([true, ['/other/cms/ns/a']]);
    expect(await c.waitForRevision(written, 1_000)).to.equal(true);
  });

  it('without a probe, a write to another resource makes it give up after the timeout', async () => {
    const c = await started('/noprobe/cms/', { probe: undefined, freshnessTimeoutMs: 200 });
    const mine = await put('/noprobe/cms/ns/a', '1');
    expect(await c.consistentRevision()).to.be.at.least(mine);
    await put('/noprobe/other/b', '1');
    expect(await c.consistentRevision()).to.equal(undefined);
    expect(await c.listConsistent('/noprobe/cms/')).to.equal(undefined);
  });

  it('concurrent callers share checks: 50 calls cost at most two checks and one probe', async () => {
    let currentRevisionCalls = 0;
    const counting = Object.assign(Object.create(storage) as Storage, {
      currentRevision: () => {
        currentRevisionCalls++;
        return storage.currentRevision();
      },
    });
    const { probe: p, counter } = countingProbe();
    const c = await started('/shared/cms/', { probe: p }, counting);
    const mine = await put('/shared/cms/ns/a', '1');
    await soon(() => c.revision >= mine);
    const written = await put('/shared/other/b', '1');
    const results = await Promise.all(Array.from({ length: 50 }, () => c.consistentRevision()));
    expect(results.every((r) => r !== undefined && r >= written)).to.equal(true);
    expect(currentRevisionCalls).to.be.at.most(2);
    expect(counter.calls).to.equal(1);
  });

  it('a call made while a check is in flight waits for a check that started after it', async () => {
    const { probe: slow } = countingProbe(300);
    const c = await started('/linear/cms/', { probe: slow, freshnessTimeoutMs: 5_000 });
    const w1 = await put('/linear/other/a', '1');
    const first = c.consistentRevision();
    await sleep(100); // the first check has read etcd and holds its answer
    const w2 = await put('/linear/cms/ns/x', 'late');
    const w3 = await put('/linear/other/b', '1');
    const second = await c.consistentRevision();
    expect(await first).to.be.at.least(w1);
    expect(second).to.be.at.least(w3);
    expect(c.get('/linear/cms/ns/x').kv?.modRevision).to.equal(w2);
  });

  /** The storage with every watch delivery held back by `ms`. */
  const lagging = (ms: number): Storage => Object.assign(Object.create(storage) as Storage, {
    watch: (prefix: string, after: number, h: WatchHandlers) => storage.watch(prefix, after, {
      onEvents: (evs, rev) => void setTimeout(() => h.onEvents(evs, rev), ms),
      onError: (err) => h.onError(err),
    }),
  });

  it('a call made while another caller waits for the watch does not wait for that caller first: its target is read at once', async () => {
    const c = await started('/chase/cms/', { freshnessTimeoutMs: 5_000 }, lagging(300));
    await put('/chase/cms/ns/w1', '1');
    const first = c.consistentRevision(); // waits about 300 ms for w1
    await sleep(50);
    const w2 = await put('/chase/cms/ns/w2', '1');
    const second = c.consistentRevision();
    await sleep(150);
    // Written after the second call, before the first is done: waiting the first check out and
    // then reading etcd's revision would make the second wait for w3 too.
    await put('/chase/cms/ns/w3', '1');
    const rev = await second;
    expect(rev).to.be.at.least(w2);
    expect(c.get('/chase/cms/ns/w2').kv).to.not.equal(undefined);
    expect(c.get('/chase/cms/ns/w3').kv, 'the second call chased a write made after it').to.equal(undefined);
    expect(await first).to.not.equal(undefined);
  });

  it('a delete the watch has not delivered yet keeps it from confirming (the count differs)', async () => {
    const c = await started('/pending-delete/cms/', { freshnessTimeoutMs: 5_000 }, lagging(300));
    const created = await put('/pending-delete/cms/ns/a', '1');
    await soon(() => c.revision >= created);
    const deleted = await del('/pending-delete/cms/ns/a');
    const rev = await c.consistentRevision();
    expect(rev).to.be.at.least(deleted);
    expect(c.get('/pending-delete/cms/ns/a').kv).to.equal(undefined);
  });

  it('falls back (undefined) when the watch lags behind for longer than the timeout', async () => {
    const c = await started('/lag/cms/', { freshnessTimeoutMs: 300 }, lagging(1_500));
    const written = await put('/lag/cms/ns/a', '1');
    const t0 = Date.now();
    expect(await c.getConsistent('/lag/cms/ns/a')).to.equal(undefined);
    expect(Date.now() - t0).to.be.within(250, 1_000);
    expect(await c.waitForRevision(written, 5_000)).to.equal(true);
    expect((await c.getConsistent('/lag/cms/ns/a'))?.kv?.value.toString()).to.equal('1');
  });

  it('waitForRevision gives up on a revision etcd has not reached', async () => {
    const c = await started('/future/cms/');
    const now = await put('/future/other/a', '1');
    const t0 = Date.now();
    expect(await c.waitForRevision(now + 1_000, 300)).to.equal(false);
    expect(Date.now() - t0).to.be.within(250, 1_500);
    const later = put('/future/cms/ns/a', '1');
    expect(await c.waitForRevision(now + 1, 5_000)).to.equal(true);
    expect(c.revision).to.be.at.least(await later);
  });
});
