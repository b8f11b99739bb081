/**
 * The watch cache's in-memory structures on their own (no etcd): key order as etcd sorts keys,
 * the sorted store against a naive model, the bounded event ring and revision-aligned chunks.
 */
import { expect } from 'chai';
import { StorageEvent } from '../../lib/storage/interfaces';
import { compareKeys } from '../../lib/storage/cacher/key-order';
import { CacheStore } from '../../lib/storage/cacher/cache-store';
import { EventRing } from '../../lib/storage/cacher/event-ring';
import { chunkByRevision } from '../../lib/storage/cacher/cache-watcher';

/** A deterministic PRNG so that a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const put = (key: string, revision: number, created = false): StorageEvent =>
  ({ type: 'put', key, value: Buffer.from(`v${revision}`), revision, created });
const del = (key: string, revision: number): StorageEvent =>
  ({ type: 'delete', key, value: Buffer.from('old'), revision, created: false });

describe('cacher structures', () => {
  describe('compareKeys', () => {
    it('orders keys as etcd does (UTF-8 bytes), including characters above U+FFFF', () => {
      const alphabet = ['a', 'b', '/', '-', 'z', '\u00e9', '\u4e2d', '\uff21', '\ud83d\ude00', '\ud800\udc00', '\ue000'];
      const rand = rng(7);
      const keys = Array.from({ length: 400 }, () =>
        Array.from({ length: 1 + Math.floor(rand() * 4) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''));
      const ours = [...keys].sort(compareKeys);
      const etcds = [...keys].sort(byteOrder);
      expect(ours).to.deep.equal(etcds);
      // The case JavaScript's own comparison gets wrong:
      expect('\ud83d\ude00' < '\uff21').to.equal(true);
      expect(compareKeys('\ud83d\ude00', '\uff21')).to.be.above(0);
    });
  });

  describe('CacheStore', () => {
    it('matches a naive sorted model under random batches of creates, updates and deletes', () => {
      const rand = rng(42);
      const store = new CacheStore();
      const model = new Map<string, { value: string; createRevision: number; modRevision: number }>();
      let rev = 1;
      for (let round = 0; round < 300; round++) {
        // Mostly small batches (splice path), sometimes large ones (merge path).
        const size = rand() < 0.1 ? 40 + Math.floor(rand() * 80) : 1 + Math.floor(rand() * 3);
        const batch: StorageEvent[] = [];
        for (let i = 0; i < size; i++) {
          const key = `/r/ns${Math.floor(rand() * 5)}/k${Math.floor(rand() * 60)}`;
          rev++;
          const cur = model.get(key);
          if (cur && rand() < 0.4) {
            model.delete(key);
            batch.push(del(key, rev));
          } else {
            model.set(key, { value: `v${rev}`, createRevision: cur ? cur.createRevision : rev, modRevision: rev });
            batch.push(put(key, rev, !cur));
          }
        }
        store.apply(batch);
        const got = store.list('/r/');
        const want = [...model.keys()].sort(byteOrder);
        expect(got.kvs.map((kv) => kv.key)).to.deep.equal(want);
        expect(got.count).to.equal(want.length);
        for (const kv of got.kvs) {
          const m = model.get(kv.key)!;
          expect([kv.value.toString(), kv.createRevision, kv.modRevision]).to.deep.equal([m.value, m.createRevision, m.modRevision]);
        }
      }
    });

    it('lists a sub-prefix with startKey and limit, reporting more and count like an etcd range', () => {
      const store = new CacheStore();
      const keys = ['/r/a/1', '/r/a/2', '/r/a/3', '/r/a0/x', '/r/b/1', '/r/b/2'];
      store.replace(keys.map((key, i) => ({ key, value: Buffer.from('v'), createRevision: i + 1, modRevision: i + 1 })));
      const names = (r: { kvs: { key: string }[] }) => r.kvs.map((kv) => kv.key);
      expect(names(store.list('/r/a/'))).to.deep.equal(['/r/a/1', '/r/a/2', '/r/a/3']);
      const page = store.list('/r/a/', { limit: 2 });
      expect([names(page), page.more, page.count]).to.deep.equal([['/r/a/1', '/r/a/2'], true, 3]);
      const next = store.list('/r/a/', { startKey: '/r/a/2', limit: 2 });
      expect([names(next), next.more, next.count]).to.deep.equal([['/r/a/2', '/r/a/3'], false, 2]);
      expect(store.list('/r/c/').count).to.equal(0);
      expect(names(store.list('/r/', { startKey: '/r/a0/x' }))).to.deep.equal(['/r/a0/x', '/r/b/1', '/r/b/2']);
    });

    it('keeps 100,000 keys ordered without re-sorting: single changes and namespace lists stay cheap', function () {
      this.timeout(30_000);
      const store = new CacheStore();
      const kvs = [];
      for (let ns = 0; ns < 100; ns++) {
        for (let i = 0; i < 1000; i++) {
          const key = `/registry/configmaps/ns-${String(ns).padStart(3, '0')}/cm-${String(i).padStart(4, '0')}`;
          kvs.push({ key, value: Buffer.from('v'), createRevision: 1, modRevision: 1 });
        }
      }
      store.replace(kvs);
      let rev = 2;
      // Any sort of a large array while changes are applied and namespaces listed is a re-sort
      // (the chunks sort nothing: a key goes into its place in one chunk). Counted by a spy on
      // Array.prototype.sort, restored at once; the speed itself is for the benchmarks.
      const sort = Array.prototype.sort;
      let largeSorts = 0;
      Array.prototype.sort = function <T>(this: T[], compare?: (a: T, b: T) => number): T[] {
        if (this.length > 1_000) largeSorts++;
        return sort.call(this, compare) as T[];
      };
      try {
        for (let i = 0; i < 2000; i++) {
          const ns = String(i % 100).padStart(3, '0');
          store.apply([put(`/registry/configmaps/ns-${ns}/new-${i}`, rev++, true)]);
          const page = store.list(`/registry/configmaps/ns-${ns}/`, { limit: 500 });
          if (i % 250 === 0) expect(page.kvs.map((kv) => kv.key)).to.deep.equal(page.kvs.map((kv) => kv.key).slice().sort());
        }
      } finally {
        Array.prototype.sort = sort;
      }
      expect(largeSorts, 'sorts of more than 1,000 keys during 2,000 changes').to.equal(0);
      expect(store.size).to.equal(102_000);
      expect(store.list('/registry/configmaps/ns-007/').count).to.equal(1020);
    });
  });

  describe('EventRing', () => {
    it('keeps the newest events and moves its start revision as it evicts', () => {
      const ring = new EventRing(4, 10);
      expect(ring.startRevision).to.equal(10);
      ring.push([put('/a', 11), put('/b', 12), put('/c', 13)]);
      expect(ring.since(10).map((e) => e.revision)).to.deep.equal([11, 12, 13]);
      expect(ring.since(12).map((e) => e.revision)).to.deep.equal([13]);
      ring.push([put('/d', 14), put('/e', 15), put('/f', 16)]);
      expect(ring.startRevision).to.equal(12);
      expect(ring.since(12).map((e) => e.revision)).to.deep.equal([13, 14, 15, 16]);
      ring.reset(40);
      expect([ring.size, ring.startRevision, ring.since(0).length]).to.deep.equal([0, 40, 0]);
      // Filled again after a reset (the ring grows as events come), it wraps around as before.
      ring.push([put('/g', 41), put('/h', 42), put('/i', 43), put('/j', 44), put('/k', 45)]);
      expect([ring.size, ring.startRevision]).to.deep.equal([4, 41]);
      expect(ring.since(40).map((e) => e.revision)).to.deep.equal([42, 43, 44, 45]);
      expect(ring.changedSince(44, '/k')).to.equal(true);
    });
  });

  describe('chunkByRevision', () => {
    it('cuts near the size but never inside a revision', () => {
      const events = [put('/a', 1), put('/b', 2), put('/c', 2), put('/d', 2), put('/e', 3), put('/f', 4)];
      const chunks = chunkByRevision(events, 2);
      expect(chunks.map((c) => c.map((e) => e.revision))).to.deep.equal([[1, 2, 2, 2], [3, 4]]);
      expect(chunkByRevision([], 2)).to.deep.equal([]);
    });
  });
});
