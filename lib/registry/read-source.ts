/**
 * Executes a ReadPlan: from the watch cache when one is running and the plan allows it, else
 * from etcd. "Too large" versions are held for a moment and then answered 504 Timeout; versions
 * compacted away are 410 Expired.
 */
import { KeyValue, RangeResult, Storage } from '../storage/interfaces';
import { Cacher } from '../storage/cacher/cacher';
import { StorageError } from '../storage/errors';
import { errors } from '../meta/api-errors';
import { ReadPlan } from './read-plan';
import { RequestReads } from './request-reads';

/** How long a read for a version ahead of the store waits before 504. */
export const TOO_LARGE_WAIT_MS = 3000;

/** Reads of one state: every call sees the same revision. */
export interface ReadSource {
  /** The revision the state is at: the list's resourceVersion. */
  revision: number;
  /** `indexValue`: the caller will keep only keys whose cache-indexed field has this value; the cache may read only those. */
  range(prefix: string, opts: { startKey?: string; limit?: number; indexValue?: string }): Promise<RangeResult>;
  get(key: string): Promise<KeyValue | undefined>;
}

export function tooLarge(requested: number, current: number) {
  return errors.timeout(`Too large resource version: ${requested}, current: ${current}`, 1);
}

export function tooOld(requested: number, compacted?: number) {
  return errors.expired(`too old resource version: ${requested}${compacted ? ` (${compacted})` : ''}`);
}

/** The state in memory, labelled with the revision it equals (cache reads are synchronous). */
function fromCache(cache: Cacher, revision: number): ReadSource {
  return {
    revision,
    range: async (prefix, opts) => ({ ...cache.list(prefix, opts), revision }),
    get: async (key) => cache.get(key).kv,
  };
}

/** etcd at one revision (0: the newest, fixed by the first read). */
function fromEtcd(storage: Storage, revision: number): ReadSource {
  const src: ReadSource = {
    revision,
    async range(prefix, { startKey, limit }) {
      const res = await storage.range(prefix, { startKey, limit, revision: src.revision || undefined });
      if (!src.revision) src.revision = res.revision;
      return res;
    },
    async get(key) {
      const res = await storage.get(key, { revision: src.revision || undefined });
      if (!src.revision) src.revision = res.revision;
      return res.kv;
    },
  };
  return src;
}

/** Waits until etcd's revision reaches `rev`; 504 Timeout when it does not in time. */
async function awaitEtcdRevision(storage: Storage, rev: number): Promise<void> {
  const deadline = Date.now() + TOO_LARGE_WAIT_MS;
  for (;;) {
    const current = await storage.currentRevision();
    if (current >= rev) return;
    if (Date.now() >= deadline) throw tooLarge(rev, current);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The state at `revision` from memory while the cache can tell that the keys read have not changed
 * since (Cacher.unchangedSince), else from `etcd` (etcd at exactly that revision).
 */
function fromCacheAt(cache: Cacher, etcd: ReadSource, revision: number): ReadSource {
  return {
    revision,
    range: (prefix, opts) => (cache.unchangedSince(prefix, revision)
      ? Promise.resolve({ ...cache.list(prefix, opts), revision })
      : etcd.range(prefix, opts)),
    get: (key) => (cache.unchangedSince(key, revision) ? Promise.resolve(cache.get(key).kv) : etcd.get(key)),
  };
}

/**
 * `prefix`: the keys an exact read will cover. Given with a ready cache, a read at an exact
 * revision under which nothing has changed since is served from memory (a paginated list's later
 * pages): etcd is asked only whether it still has that revision (410 when compacted, as a read
 * from etcd would answer).
 */
export async function openReadSource(storage: Storage, cache: Cacher | undefined, plan: ReadPlan, prefix?: string): Promise<ReadSource> {
  const usable = cache?.ready ? cache : undefined;
  switch (plan.kind) {
    case 'any':
      return usable ? fromCache(usable, usable.revision) : fromEtcd(storage, 0);
    case 'consistent': {
      if (usable) {
        const rev = await usable.consistentRevision();
        if (rev !== undefined && usable.ready) return fromCache(usable, usable.revision);
      }
      return fromEtcd(storage, 0);
    }
    case 'notOlderThan': {
      if (usable) {
        if (await usable.waitForRevision(plan.revision, TOO_LARGE_WAIT_MS)) return fromCache(usable, usable.revision);
        throw tooLarge(plan.revision, usable.revision);
      }
      await awaitEtcdRevision(storage, plan.revision);
      return fromEtcd(storage, 0);
    }
    case 'exact': {
      if (usable && prefix !== undefined && usable.unchangedSince(prefix, plan.revision)) {
        const etcd = exactAt(storage, plan.revision);
        // One small read at the revision: a compacted one is refused (a key that never exists).
        await etcd.get(prefix);
        return fromCacheAt(usable, etcd, plan.revision);
      }
      await awaitEtcdRevision(storage, plan.revision);
      return exactAt(storage, plan.revision);
    }
  }
}

/**
 * One object as a GET reads it. A consistent read is one linearizable read of the key from etcd, as
 * kube-apiserver answers a GET without resourceVersion: no dearer than confirming the cache fresh
 * (itself a read of etcd) and it never waits for the watch to catch up. Other plans as
 * openReadSource. `reads`: a consistent read joins the request's earlier read of the key.
 */
export async function readOne(storage: Storage, cache: Cacher | undefined, plan: ReadPlan, key: string, reads?: RequestReads): Promise<KeyValue | undefined> {
  if (plan.kind === 'consistent') {
    const load = async () => (await storage.get(key)).kv;
    return reads ? reads.read(key, load) : load();
  }
  return (await openReadSource(storage, cache, plan)).get(key);
}

/** etcd at exactly `revision`, with compaction turned into 410. */
function exactAt(storage: Storage, revision: number): ReadSource {
  const src = fromEtcd(storage, revision);
  const guard = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') throw tooOld(revision, err.compactRevision);
      throw err;
    }
  };
  return {
    revision,
    range: (prefix, opts) => guard(() => src.range(prefix, opts)),
    get: (key) => guard(() => src.get(key)),
  };
}
