/**
 * The watch cache against a real etcd: filling, applying changes, lists by namespace prefix,
 * watches replayed from the ring and started with the current state, slow watchers, and the
 * single etcd watch behind any number of watchers.
 */
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { KeyValue, Storage, StorageEvent, WatchHandle } from '../../lib/storage/interfaces';
import { StorageError } from '../../lib/storage/errors';
import { Cacher } from '../../lib/storage/cacher/cacher';

/** Collects what a cache watch delivers. */
class Recorder {
  events: StorageEvent[] = [];
  errors: Error[] = [];
  onEvents = (events: StorageEvent[]) => {
    this.events.push(...events);
  };
  onError = (err: Error) => {
    this.errors.push(err);
  };
  keys = () => this.events.map((e) => `${e.type}:${e.key}`);
}

const soon = <T>(fn: () => T | undefined | false, ms = 10_000) => eventually(async () => fn(), ms, 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const view = (kvs: KeyValue[]) => kvs.map((kv) => [kv.key, kv.value.toString(), kv.createRevision, kv.modRevision]);

describe('Cacher', () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let kv: EtcdKvClient;
  let storage: Etcd3Storage;
  const cachers: Cacher[] = [];

  const put = async (key: string, value: string) => Number((await client.put(key).value(value).exec()).header.revision);
  const del = async (key: string) => Number((await client.delete().key(key).exec()).header.revision);
  async function started(prefix: string, opts: ConstructorParameters<typeof Cacher>[2] = {}, s: Storage = storage) {
    const c = new Cacher(s, prefix, opts);
    cachers.push(c);
    await c.start();
    return c;
  }

  before(async () => {
    etcd = await startTestEtcd();
    client = createEtcdClient({ endpoints: [etcd.endpoint] });
    kv = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    storage = new Etcd3Storage(kv);
  });
  afterEach(async () => {
    await Promise.all(cachers.splice(0).map((c) => c.stop()));
  });
  after(async () => {
    await storage?.close();
    client?.close();
    await etcd?.stop();
  });

  it('start fills the cache with every key under the prefix, at the list revision', async () => {
    for (const ns of ['a', 'b']) for (let i = 0; i < 3; i++) await put(`/fill/cms/${ns}/k${i}`, `${ns}${i}`);
    await put('/fill/cms-other/x', 'not mine');
    const c = await started('/fill/cms/');
    const etcdList = await storage.range('/fill/cms/');
    expect(c.size).to.equal(6);
    const list = c.list('/fill/cms/');
    expect(view(list.kvs)).to.deep.equal(view(etcdList.kvs));
    expect(list.revision).to.equal(etcdList.revision);
    expect(c.get('/fill/cms/b/k1').kv?.value.toString()).to.equal('b1');
    expect(c.get('/fill/cms-other/x').kv).to.equal(undefined);
  });

  it('applies creates, updates and deletes from the watch; an update keeps create_revision', async () => {
    const c = await started('/apply/cms/');
    const created = await put('/apply/cms/ns/a', '1');
    await put('/apply/cms/ns/b', '1');
    const updated = await put('/apply/cms/ns/a', '2');
    const deleted = await del('/apply/cms/ns/b');
    await soon(() => c.revision >= deleted);
    const a = c.get('/apply/cms/ns/a').kv!;
    expect([a.value.toString(), a.createRevision, a.modRevision]).to.deep.equal(['2', created, updated]);
    expect(c.get('/apply/cms/ns/b').kv).to.equal(undefined);
    expect(view(c.list('/apply/cms/').kvs)).to.deep.equal(view((await storage.range('/apply/cms/')).kvs));
  });

  it('lists a namespace prefix with startKey and limit exactly as an etcd range does', async () => {
    for (const ns of ['ns1', 'ns10', 'ns2']) for (let i = 0; i < 5; i++) await put(`/page/cms/${ns}/cm${i}`, 'v');
    const c = await started('/page/cms/');
    const cases: [string, { startKey?: string; limit?: number }][] = [
      ['/page/cms/', {}], ['/page/cms/ns1/', {}], ['/page/cms/ns1/', { limit: 2 }],
      ['/page/cms/ns1/', { startKey: '/page/cms/ns1/cm2', limit: 2 }], ['/page/cms/ns1/', { startKey: '/page/cms/ns1/cm3', limit: 5 }],
      ['/page/cms/', { startKey: '/page/cms/ns10/cm4', limit: 3 }], ['/page/cms/ns3/', {}],
    ];
    for (const [prefix, opts] of cases) {
      const want = await storage.range(prefix, opts);
      const got = c.list(prefix, opts);
      expect({ kvs: view(got.kvs), more: got.more, count: got.count }, `${prefix} ${JSON.stringify(opts)}`)
        .to.deep.equal({ kvs: view(want.kvs), more: want.more, count: want.count });
    }
  });

  it('a watch from an old revision replays retained changes, then live ones, filtered by prefix', async () => {
    const c = await started('/replay/cms/');
    const r0 = await put('/replay/cms/ns1/a', '1');
    await put('/replay/cms/ns2/b', '1');
    await put('/replay/cms/ns1/a', '2');
    const r3 = await del('/replay/cms/ns1/a');
    await soon(() => c.revision >= r3);
    const all = new Recorder();
    const ns1 = new Recorder();
    c.watch('/replay/cms/', r0, all);
    c.watch('/replay/cms/ns1/', r0 - 1, ns1);
    await put('/replay/cms/ns1/c', '1');
    await soon(() => all.events.length === 4 && ns1.events.length === 4);
    expect(all.keys()).to.deep.equal(['put:/replay/cms/ns2/b', 'put:/replay/cms/ns1/a', 'delete:/replay/cms/ns1/a', 'put:/replay/cms/ns1/c']);
    expect(ns1.keys()).to.deep.equal(['put:/replay/cms/ns1/a', 'put:/replay/cms/ns1/a', 'delete:/replay/cms/ns1/a', 'put:/replay/cms/ns1/c']);
    expect(all.events[2].value.toString()).to.equal('2'); // a delete carries the previous value
    // The cache's etcd watch asks for no previous values: the cache fills them from its state.
    expect(all.events[1].prevValue?.toString()).to.equal('1');
    expect(all.events[0].prevValue).to.equal(undefined);
    const revs = all.events.map((e) => e.revision);
    expect(revs).to.deep.equal([...revs].sort((x, y) => x - y)).and.satisfy((r: number[]) => r[0] > r0);
    expect(all.errors.concat(ns1.errors)).to.deep.equal([]);
  });

  it('a watch from a revision older than the ring is refused with Compacted', async () => {
    const c = await started('/ring/cms/', { eventCapacity: 5 });
    const start = c.revision;
    let last = 0;
    for (let i = 0; i < 10; i++) last = await put(`/ring/cms/ns/k${i}`, 'v');
    await soon(() => c.revision >= last);
    expect(() => c.watch('/ring/cms/', start, new Recorder())).to.throw(StorageError)
      .that.satisfies((e: StorageError) => e.code === 'Compacted' && e.compactRevision === c.oldestWatchRevision);
    const rec = new Recorder();
    c.watch('/ring/cms/', c.oldestWatchRevision, rec);
    await soon(() => rec.events.length === 5);
    expect(rec.events.map((e) => e.key)).to.deep.equal([5, 6, 7, 8, 9].map((i) => `/ring/cms/ns/k${i}`));
  });

  it('watchWithInitialState: initial state plus delivered changes equals etcd, under concurrent writes', async function () {
    this.timeout(60_000);
    const prefix = '/atomic/cms/';
    const c = await started(prefix);
    let seed = 99;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    let writing = true;
    let lastWrite = 0;
    const writer = (async () => {
      while (writing) {
        const key = `${prefix}ns${Math.floor(rand() * 3)}/k${Math.floor(rand() * 20)}`;
        lastWrite = rand() < 0.3 ? await del(key) : await put(key, String(rand()));
      }
    })();
    const watchers: { prefix: string; state: Map<string, string>; revision: number; rec: Recorder }[] = [];
    for (let i = 0; i < 30; i++) {
      await sleep(rand() * 20);
      const p = i % 3 === 0 ? prefix : `${prefix}ns${i % 3}/`;
      const rec = new Recorder();
      const { initial, revision } = c.watchWithInitialState(p, rec);
      watchers.push({ prefix: p, state: new Map(initial.map((kv) => [kv.key, kv.value.toString()])), revision, rec });
    }
    writing = false;
    await writer;
    await soon(() => c.revision >= lastWrite);
    await sleep(50);
    for (const w of watchers) {
      const revs = w.rec.events.map((e) => e.revision);
      expect(revs.every((r, i) => r > w.revision && (i === 0 || r >= revs[i - 1]))).to.equal(true);
      for (const e of w.rec.events) {
        if (e.type === 'put') w.state.set(e.key, e.value.toString());
        else w.state.delete(e.key);
      }
      const truth = await storage.range(w.prefix);
      expect([...w.state.entries()].sort()).to.deep.equal(truth.kvs.map((kv) => [kv.key, kv.value.toString()]).sort());
      expect(w.rec.errors).to.deep.equal([]);
    }
  });

  it('a watcher that cannot keep up is ended while a fast one receives everything', async () => {
    const c = await started('/slow/cms/', { watcherQueueLimit: 10 });
    const fast = new Recorder();
    const slow = new Recorder();
    const paced = new Recorder();
    c.watch('/slow/cms/', c.revision, fast);
    // Never acknowledges its first batch: events pile up in its queue.
    c.watch('/slow/cms/', c.revision, { onEvents: () => new Promise<void>(() => undefined), onError: slow.onError });
    // Acknowledges each batch after a while, but stays within the limit.
    c.watch('/slow/cms/', c.revision, { onEvents: async (evs) => { paced.onEvents(evs); await sleep(30); }, onError: paced.onError });
    for (let i = 0; i < 40; i++) {
      await put(`/slow/cms/ns/k${i}`, 'v');
      if (i % 5 === 4) await sleep(40);
    }
    await soon(() => fast.events.length === 40 && paced.events.length === 40 && slow.errors.length === 1);
    expect(slow.errors[0]).to.be.instanceOf(StorageError).and.include({ code: 'Internal', message: 'watcher could not keep up' });
    expect(fast.errors.concat(paced.errors)).to.deep.equal([]);
    expect(c.watcherCount).to.equal(2);
  });

  it('a watcher that keeps up takes one delivery larger than the queue limit; a slow one is ended', async () => {
    const c = await started('/bulk/cms/', { watcherQueueLimit: 10 });
    const putAll = (n: number, value: string) => client.kv.txn({ compare: [], failure: [], success: Array.from({ length: n },
      (_, i) => ({ request_put: { key: Buffer.from(`/bulk/cms/ns/k${i}`), value: Buffer.from(value) } })) });
    const sync = new Recorder();
    const slow = new Recorder();
    c.watch('/bulk/cms/', c.revision, sync);
    c.watch('/bulk/cms/', c.revision, { onEvents: () => new Promise<void>(() => undefined), onError: slow.onError });
    // One transaction of 40 puts: one etcd watch response, one delivery of 40 events.
    await putAll(40, 'v');
    await soon(() => sync.events.length === 40);
    // The slow watcher took the first delivery and never settled it; the next one piles up behind it.
    await putAll(40, 'w');
    await soon(() => sync.events.length === 80 && slow.errors.length === 1);
    expect(sync.errors).to.deep.equal([]);
    expect(slow.errors[0]).to.include({ message: 'watcher could not keep up' });
  });

  it('unchangedSince: true while nothing under the prefix changed after the revision and the ring still covers it', async () => {
    const c = await started('/since/cms/', { eventCapacity: 3 });
    const r0 = await put('/since/cms/a/k1', '1');
    await soon(() => c.revision >= r0);
    expect(c.unchangedSince('/since/cms/a/', r0)).to.equal(true);
    expect(c.unchangedSince('/since/cms/a/', r0 - 1)).to.equal(false);
    expect(c.unchangedSince('/since/cms/a/', c.revision + 1)).to.equal(false);
    const r1 = await put('/since/cms/b/k1', '1');
    await soon(() => c.revision >= r1);
    expect(c.unchangedSince('/since/cms/a/', r0)).to.equal(true);
    expect(c.unchangedSince('/since/cms/b/', r0)).to.equal(false);
    expect(c.unchangedSince('/since/cms/', r0)).to.equal(false);
    // Three more changes elsewhere push r0 out of a ring of three: it can no longer tell.
    let last = r1;
    for (let i = 0; i < 3; i++) last = await put(`/since/cms/b/k${i + 2}`, '1');
    await soon(() => c.revision >= last);
    expect(c.unchangedSince('/since/cms/a/', r0)).to.equal(false);
    expect(c.unchangedSince('/since/cms/a/', last)).to.equal(true);
  });

  it('runs exactly one etcd watch however many watchers it serves; stop ends them', async () => {
    let active = 0;
    let created = 0;
    const counting: Storage = Object.assign(Object.create(storage) as Storage, {
      watch: async (prefix: string, after: number, h: Parameters<Storage['watch']>[2]): Promise<WatchHandle> => {
        const handle = await storage.watch(prefix, after, h);
        created++;
        active++;
        return { close: async () => { active--; await handle.close(); } };
      },
    });
    const c = await started('/one/cms/', {}, counting);
    const recs = Array.from({ length: 100 }, () => new Recorder());
    recs.forEach((r, i) => (i % 2 ? c.watch(`/one/cms/ns${i % 4}/`, c.revision, r) : c.watchWithInitialState('/one/cms/', r)));
    for (let i = 0; i < 4; i++) await put(`/one/cms/ns${i}/k`, 'v');
    await soon(() => recs.every((r, i) => r.events.length === (i % 2 ? 1 : 4)));
    expect([created, active]).to.deep.equal([1, 1]);
    const closed = new Recorder();
    const handle = c.watch('/one/cms/', c.revision, closed);
    await handle.close();
    await c.stop();
    expect(active).to.equal(0);
    await soon(() => recs.every((r) => r.errors.length === 1));
    expect(recs[0].errors[0]).to.include({ code: 'Unavailable' });
    expect(closed.errors).to.deep.equal([]);
    expect(() => c.list('/one/cms/')).to.throw(StorageError);
  });
});
