/**
 * The cached state of one resource: every key under its prefix with its value and revisions,
 * kept in etcd's key order so that a list is a binary search plus a walk, never a sort.
 */
import { KeyValue, StorageEvent } from '../interfaces';
import { compareKeys } from './key-order';
import { SortedKeys } from './sorted-keys';
import { CacheIndex, FieldIndexKeys, IndexChange } from './field-index';
import { objectAfter } from './event-objects';
import { decodeFromStorage } from '../storage-codec';

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
  /** The keys by the value of the indexed field, when the resource has one. */
  private readonly indexed?: FieldIndexKeys;

  constructor(index?: CacheIndex) {
    if (index) this.indexed = new FieldIndexKeys(index);
  }

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
    this.indexed?.clear();
    const keys: string[] = new Array(kvs.length);
    let sorted = true;
    for (let i = 0; i < kvs.length; i++) {
      this.byKey.set(kvs[i].key, kvs[i]);
      this.indexed?.set(kvs[i].key, this.indexed.index.valueOf(() => decodeFromStorage(kvs[i].value, kvs[i].modRevision)));
      keys[i] = kvs[i].key;
      if (i > 0 && sorted && compareKeys(keys[i - 1], keys[i]) >= 0) sorted = false;
    }
    if (!sorted) keys.sort(compareKeys);
    this.keys.reset(keys);
  }

  /**
   * Applies watch events in revision order; the key order learns only the keys that appeared or
   * vanished. Events from a watch without previous values get them here, from the state the
   * event replaces: prevValue of an update, value of a delete. With an index, returns each
   * event's index values (same positions as `events`).
   */
  apply(events: readonly StorageEvent[]): IndexChange[] | undefined {
    // Existence of each touched key before the batch, to know which keys appeared or vanished.
    const before = new Map<string, boolean>();
    const changes: IndexChange[] | undefined = this.indexed && new Array(events.length);
    for (const [i, ev] of events.entries()) {
      if (changes) {
        const after = ev.type === 'put' ? this.indexed!.index.valueOf(() => objectAfter(ev)!) : undefined;
        changes[i] = { before: this.indexed!.set(ev.key, after), after };
      }
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
    return changes;
  }

  /**
   * Keys under `prefix` in key order, from `startKey` (inclusive, inside the prefix) when given,
   * at most `limit` of them (0 or absent: all). `indexValue`: only the keys whose indexed field
   * has that value (ignored without an index). Entries are shared: callers must not mutate them.
   */
  list(prefix: string, opts: { startKey?: string; limit?: number; indexValue?: string } = {}): CacheListResult {
    const from = opts.startKey && compareKeys(opts.startKey, prefix) > 0 ? opts.startKey : prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const { keys, count } = this.indexed && opts.indexValue !== undefined
      ? firstOf(this.indexed.keys(opts.indexValue, prefix, from), limit)
      : this.keys.range(from, prefix, limit);
    const n = keys.length;
    const kvs: KeyValue[] = new Array(n);
    for (let i = 0; i < n; i++) kvs[i] = this.byKey.get(keys[i]) as KeyValue;
    return { kvs, more: n < count, count };
  }
}

/** At most `limit` (0: all) of `keys`, and how many there were. */
function firstOf(keys: string[], limit: number): { keys: string[]; count: number } {
  return { keys: limit && keys.length > limit ? keys.slice(0, limit) : keys, count: keys.length };
}
