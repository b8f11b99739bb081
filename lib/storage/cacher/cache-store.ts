/**
 * The cached state of one resource: every key under its prefix with its value and revisions,
 * kept in etcd's key order so that a list is a binary search plus a walk, never a sort.
 */
import { KeyValue, StorageEvent } from '../interfaces';
import { compareKeys } from './key-order';
import { SortedKeys } from './sorted-keys';

export interface CacheListResult {
  kvs: KeyValue[];
  /** More keys under the prefix follow the last returned one. */
  more: boolean;
  /** Keys from the start key to the end of the prefix. */
  count: number;
}

export class CacheStore {
  private readonly byKey = new Map<string, KeyValue>();
  /** The keys of `byKey`, sorted by compareKeys. */
  private readonly keys = new SortedKeys();

  get size(): number {
    return this.byKey.size;
  }

  /** The key's entry; shared with the cache, so callers must not mutate it. */
  get(key: string): KeyValue | undefined {
    return this.byKey.get(key);
  }

  /** Replaces the whole state with `kvs` (a range result, normally already in key order). */
  replace(kvs: readonly KeyValue[]): void {
    this.byKey.clear();
    const keys: string[] = new Array(kvs.length);
    let sorted = true;
    for (let i = 0; i < kvs.length; i++) {
      this.byKey.set(kvs[i].key, kvs[i]);
      keys[i] = kvs[i].key;
      if (i > 0 && sorted && compareKeys(keys[i - 1], keys[i]) >= 0) sorted = false;
    }
    if (!sorted) keys.sort(compareKeys);
    this.keys.reset(keys);
  }

  /**
   * Applies watch events in revision order; the key order learns only the keys that appeared or
   * vanished. Events from a watch without previous values get them here, from the state the
   * event replaces: prevValue of an update, value of a delete.
   */
  apply(events: readonly StorageEvent[]): void {
    // Existence of each touched key before the batch, to know which keys appeared or vanished.
    const before = new Map<string, boolean>();
    for (const ev of events) {
      const old = this.byKey.get(ev.key);
      if (old) {
        if (ev.type === 'put' && ev.prevValue === undefined && !ev.created) ev.prevValue = old.value;
        else if (ev.type === 'delete' && !ev.value.length) ev.value = old.value;
      }
      if (!before.has(ev.key)) before.set(ev.key, old !== undefined);
      if (ev.type === 'delete') {
        this.byKey.delete(ev.key);
        continue;
      }
      this.byKey.set(ev.key, {
        key: ev.key,
        value: ev.value,
        // Events do not carry create_revision; an update keeps the one the cache already has.
        createRevision: ev.created || !old ? ev.revision : old.createRevision,
        modRevision: ev.revision,
      });
    }
    const added: string[] = [];
    const removed: string[] = [];
    for (const [key, existed] of before) {
      const exists = this.byKey.has(key);
      if (exists && !existed) added.push(key);
      else if (!exists && existed) removed.push(key);
    }
    for (const key of removed) this.keys.remove(key);
    for (const key of added) this.keys.insert(key);
  }

  /**
   * Keys under `prefix` in key order, from `startKey` (inclusive, inside the prefix) when given,
   * at most `limit` of them (0 or absent: all). Entries are shared: callers must not mutate them.
   */
  list(prefix: string, opts: { startKey?: string; limit?: number } = {}): CacheListResult {
    const from = opts.startKey && compareKeys(opts.startKey, prefix) > 0 ? opts.startKey : prefix;
    const { keys, count } = this.keys.range(from, prefix, opts.limit && opts.limit > 0 ? opts.limit : 0);
    const n = keys.length;
    const kvs: KeyValue[] = new Array(n);
    for (let i = 0; i < n; i++) kvs[i] = this.byKey.get(keys[i]) as KeyValue;
    return { kvs, more: n < count, count };
  }
}
