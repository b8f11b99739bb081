/**
 * The watch cache's index on one field (a pod's spec.nodeName): lists of one value read only its
 * keys, and a change reaches only the watchers of the values its object had and has, so a pod
 * moved off a node still reaches that node's watchers, and the other nodes' are never visited.
 */
import { expect } from 'chai';
import { CacheStore } from '../../../lib/storage/cacher/cache-store';
import { CacheWatcher } from '../../../lib/storage/cacher/cache-watcher';
import { CacheIndex } from '../../../lib/storage/cacher/field-index';
import { WatchDispatcher } from '../../../lib/storage/cacher/watch-dispatcher';
import { KeyValue, StorageEvent } from '../../../lib/storage/interfaces';

const index: CacheIndex = { field: 'spec.nodeName', valueOf: (object) => (object() as { node?: string }).node ?? '' };
const pod = (node?: string) => Buffer.from(JSON.stringify(node === undefined ? {} : { node }));
const kv = (key: string, node: string | undefined, rev: number): KeyValue => ({ key, value: pod(node), createRevision: rev, modRevision: rev });
const put = (key: string, node: string | undefined, revision: number, created = false): StorageEvent =>
  ({ type: 'put', key, value: pod(node), revision, created });
const del = (key: string, revision: number): StorageEvent => ({ type: 'delete', key, value: Buffer.alloc(0), revision, created: false });
const keysOf = (kvs: KeyValue[]) => kvs.map((k) => k.key);

describe('watch cache field index', () => {
  describe('CacheStore lists', () => {
    it('lists the keys of one value in key order, within the prefix, and follows moves, deletes and unscheduled objects', () => {
      const store = new CacheStore(index);
      store.replace([kv('/p/ns1/b', 'n1', 1), kv('/p/ns1/a', 'n2', 2), kv('/p/ns2/c', 'n1', 3), kv('/p/ns1/d', undefined, 4)]);
      expect(keysOf(store.list('/p/', { indexValue: 'n1' }).kvs)).to.deep.equal(['/p/ns1/b', '/p/ns2/c']);
      expect(keysOf(store.list('/p/ns1/', { indexValue: 'n1' }).kvs)).to.deep.equal(['/p/ns1/b']);
      // spec.nodeName= : the unscheduled ones.
      expect(keysOf(store.list('/p/', { indexValue: '' }).kvs)).to.deep.equal(['/p/ns1/d']);
      expect(store.list('/p/', { indexValue: 'n9' }).kvs).to.deep.equal([]);

      const changes = store.apply([put('/p/ns1/d', 'n1', 5), put('/p/ns1/b', 'n2', 6), del('/p/ns2/c', 7), put('/p/ns1/e', 'n1', 8, true)]);
      expect(changes).to.deep.equal([
        { before: '', after: 'n1' }, { before: 'n1', after: 'n2' }, { before: 'n1', after: undefined }, { before: undefined, after: 'n1' },
      ]);
      expect(keysOf(store.list('/p/', { indexValue: 'n1' }).kvs)).to.deep.equal(['/p/ns1/d', '/p/ns1/e']);
      expect(keysOf(store.list('/p/', { indexValue: 'n2' }).kvs)).to.deep.equal(['/p/ns1/a', '/p/ns1/b']);
      expect(store.list('/p/', { indexValue: '' }).kvs).to.deep.equal([]);
      // The entries are the store's current ones.
      expect(store.list('/p/', { indexValue: 'n1' }).kvs[0].modRevision).to.equal(5);
    });

    it('pages through one value with startKey and limit, counting what is left', () => {
      const store = new CacheStore(index);
      store.replace(['a', 'b', 'c', 'd', 'e'].map((k, i) => kv(`/p/ns/${k}`, i % 2 ? 'x' : 'y', i + 1)));
      const first = store.list('/p/', { indexValue: 'y', limit: 2 });
      expect(keysOf(first.kvs)).to.deep.equal(['/p/ns/a', '/p/ns/c']);
      expect(first.more).to.equal(true);
      expect(first.count).to.equal(3);
      const next = store.list('/p/', { indexValue: 'y', limit: 2, startKey: '/p/ns/c\x00' });
      expect(keysOf(next.kvs)).to.deep.equal(['/p/ns/e']);
      expect(next.more).to.equal(false);
    });

    it('without an index, or without a value, lists every key', () => {
      const plain = new CacheStore();
      plain.replace([kv('/p/a', 'n1', 1), kv('/p/b', 'n2', 2)]);
      expect(plain.apply([put('/p/c', 'n1', 3, true)])).to.equal(undefined);
      expect(keysOf(plain.list('/p/', { indexValue: 'n1' }).kvs)).to.deep.equal(['/p/a', '/p/b', '/p/c']);
      const indexed = new CacheStore(index);
      indexed.replace([kv('/p/a', 'n1', 1), kv('/p/b', 'n2', 2)]);
      expect(keysOf(indexed.list('/p/').kvs)).to.deep.equal(['/p/a', '/p/b']);
    });
  });

  describe('WatchDispatcher', () => {
    /** A store feeding a dispatcher, as the Cacher does, and watchers recording what reaches them. */
    function setup() {
      const store = new CacheStore(index);
      store.replace([]);
      const dispatcher = new WatchDispatcher(0);
      const watchers: CacheWatcher[] = [];
      const watcher = (indexValue?: string, prefix = '/p/') => {
        const seen: string[] = [];
        const w = new CacheWatcher(prefix, 0, { onEvents: (evs) => { for (const e of evs) seen.push(`${e.key}@${e.revision}`); }, onError: () => undefined },
          1000, dispatcher.schedule, (x) => dispatcher.remove(x), undefined, indexValue);
        dispatcher.add(w);
        watchers.push(w);
        return { w, seen };
      };
      const apply = async (events: StorageEvent[]) => {
        dispatcher.publish(events, store.apply(events));
        await dispatcher.whenDelivered();
      };
      return { dispatcher, watcher, apply, close: () => Promise.all(watchers.map((w) => w.close())) };
    }

    it('sends a change only to the watchers of its old and new value, and every change to the unindexed ones', async () => {
      const t = setup();
      const n1 = t.watcher('n1');
      const n1b = t.watcher('n1');
      const n2 = t.watcher('n2');
      const n3 = t.watcher('n3');
      const unscheduled = t.watcher('');
      const all = t.watcher();
      await t.apply([put('/p/ns/a', undefined, 1, true)]); // created unscheduled
      await t.apply([put('/p/ns/a', 'n1', 2)]); // bound to n1
      await t.apply([put('/p/ns/b', 'n2', 3, true)]);
      await t.apply([put('/p/ns/a', 'n2', 4)]); // moved off n1 to n2
      await t.apply([put('/p/ns/a', 'n2', 5)]); // status change on n2
      await t.apply([del('/p/ns/a', 6)]); // deleted from n2
      expect(unscheduled.seen).to.deep.equal(['/p/ns/a@1', '/p/ns/a@2']);
      expect(n1.seen).to.deep.equal(['/p/ns/a@2', '/p/ns/a@4']);
      expect(n1b.seen).to.deep.equal(n1.seen);
      expect(n2.seen).to.deep.equal(['/p/ns/b@3', '/p/ns/a@4', '/p/ns/a@5', '/p/ns/a@6']);
      expect(n3.seen).to.deep.equal([]);
      expect(all.seen).to.deep.equal(['/p/ns/a@1', '/p/ns/a@2', '/p/ns/b@3', '/p/ns/a@4', '/p/ns/a@5', '/p/ns/a@6']);
      await t.close();
      expect(t.dispatcher.size).to.equal(0);
    });

    it('splits one batch by value, in revision order, within the watcher\'s prefix', async () => {
      const t = setup();
      const n1 = t.watcher('n1');
      const n1ns2 = t.watcher('n1', '/p/ns2/');
      const n2 = t.watcher('n2');
      await t.apply([put('/p/ns1/a', 'n1', 1, true), put('/p/ns2/b', 'n2', 2, true), put('/p/ns2/c', 'n1', 3, true), put('/p/ns2/b', 'n1', 4)]);
      expect(n1.seen).to.deep.equal(['/p/ns1/a@1', '/p/ns2/c@3', '/p/ns2/b@4']);
      expect(n1ns2.seen).to.deep.equal(['/p/ns2/c@3', '/p/ns2/b@4']);
      expect(n2.seen).to.deep.equal(['/p/ns2/b@2', '/p/ns2/b@4']);
      await t.close();
    });

    it('tells an idle watcher, indexed or not, the cache\'s revision, and the last delivered change while others wait', async () => {
      const t = setup();
      const n1 = t.watcher('n1');
      const all = t.watcher();
      const otherNamespace = t.watcher(undefined, '/p/other/');
      await t.apply([put('/p/ns/a', 'n1', 1, true)]);
      await t.apply([put('/p/ns/b', 'n2', 2, true), put('/p/ns/c', 'n3', 3, true)]);
      expect(n1.seen).to.deep.equal(['/p/ns/a@1']);
      expect(otherNamespace.seen).to.deep.equal([]);
      // Nothing waits: the cache's revision (7: writes to other resources since), whatever each was sent.
      for (const w of [n1, all, otherNamespace]) expect(t.dispatcher.progressOf(w.w, 7)).to.equal(7);
      // A change not yet delivered: only as far as the last delivered one.
      t.dispatcher.publish([put('/p/ns/d', 'n1', 8, true)], [{ after: 'n1' }]);
      for (const w of [n1, all, otherNamespace]) expect(t.dispatcher.progressOf(w.w, 8)).to.equal(3);
      await t.dispatcher.whenDelivered();
      expect(t.dispatcher.progressOf(otherNamespace.w, 8)).to.equal(8);
      await t.close();
    });

    it('tells a watcher with events queued, or a consumer still busy with them, nothing beyond its own events', async () => {
      const t = setup();
      let release: () => void = () => undefined;
      const busy = new CacheWatcher('/p/', 0, { onEvents: () => new Promise<void>((r) => { release = r; }), onError: () => undefined },
        1000, t.dispatcher.schedule, (x) => t.dispatcher.remove(x));
      t.dispatcher.add(busy);
      await t.apply([put('/p/ns/a', 'n1', 1, true)]);
      expect(t.dispatcher.progressOf(busy, 5)).to.equal(0);
      release();
      await new Promise((r) => setImmediate(r));
      expect(t.dispatcher.progressOf(busy, 5)).to.equal(5);
      await busy.close();
      await t.close();
    });

    it('ends indexed and unindexed watchers alike on failAll', async () => {
      const t = setup();
      const errors: string[] = [];
      const w = new CacheWatcher('/p/', 0, { onEvents: () => undefined, onError: (e) => errors.push(e.message) }, 10, t.dispatcher.schedule, (x) => t.dispatcher.remove(x), undefined, 'n1');
      t.dispatcher.add(w);
      t.watcher();
      t.dispatcher.failAll(new Error('gone'));
      await new Promise((r) => setImmediate(r));
      expect(errors).to.deep.equal(['gone']);
      expect(t.dispatcher.size).to.equal(0);
    });
  });
});
