/**
 * The LimitRanges of a namespace as LimitRanger reads them: from the LimitRange watch cache
 * (Kubernetes' informer lister), and, when the cache holds none for the namespace, Kubernetes'
 * live lookup: a direct read from etcd, remembered per namespace for 30 seconds (liveTTL) in a
 * cache of at most 10000 namespaces, one read at a time per namespace (singleflight). A
 * LimitRange created a moment ago, not yet in the watch cache, is so honoured at once. A server
 * without watch caches reads etcd on every lookup (etcd stands in for the informer).
 */
import { ApiObject } from '../../scheme/types';
import { KeyValue } from '../../storage/interfaces';
import { decodeFromStorage } from '../../storage/storage-codec';
import type { GenericStore } from '../../registry/store';

/** liveTTL and the size of liveLookupCache in Kubernetes' plugin. */
export const LIVE_TTL_MS = 30_000;
const LIVE_CACHE_SIZE = 10_000;

interface LiveEntry { expiry: number; items: ApiObject[] }

export class LimitRangeLookup {
  /** Decoded objects by the cache's (immutable, shared) entries. */
  private readonly decoded = new WeakMap<KeyValue, ApiObject>();
  /** liveLookupCache: namespace -> the last live read, oldest first (a Map keeps insertion order). */
  private readonly live = new Map<string, LiveEntry>();
  private readonly inFlight = new Map<string, Promise<LiveEntry>>();

  /** `store`: the LimitRange store (undefined: not served, so no limits); `now` for tests. */
  constructor(private readonly store: () => GenericStore | undefined, private readonly now: () => number = Date.now) {}

  /** The namespace's LimitRanges: the watch cache's, else the live lookup's. */
  async forNamespace(namespace: string): Promise<ApiObject[]> {
    const store = this.store();
    if (!store || !namespace) return [];
    const cache = store.deps.cache;
    // Without a watch cache (--watch-cache=false) etcd stands in for the informer: read every time.
    if (!cache) return (await this.liveLookup(store, namespace)).items;
    if (cache.ready) {
      const cached = this.decode(cache.list(store.collectionPrefix(namespace)).kvs);
      if (cached.length) return cached;
    }
    const hit = this.live.get(namespace);
    if (hit && hit.expiry >= this.now()) return hit.items;
    return (await this.liveLookup(store, namespace)).items;
  }

  /** One etcd read per namespace at a time; its result remembered for LIVE_TTL_MS. */
  private liveLookup(store: GenericStore, namespace: string): Promise<LiveEntry> {
    let pending = this.inFlight.get(namespace);
    if (!pending) {
      pending = (async () => {
        const { kvs } = await store.storage.range(store.collectionPrefix(namespace));
        const entry: LiveEntry = { expiry: this.now() + LIVE_TTL_MS, items: this.decode(kvs) };
        this.live.delete(namespace);
        this.live.set(namespace, entry);
        if (this.live.size > LIVE_CACHE_SIZE) this.live.delete(this.live.keys().next().value as string);
        return entry;
      })().finally(() => this.inFlight.delete(namespace));
      this.inFlight.set(namespace, pending);
    }
    return pending;
  }

  private decode(kvs: readonly KeyValue[]): ApiObject[] {
    const out: ApiObject[] = [];
    for (const kv of kvs) {
      let obj = this.decoded.get(kv);
      if (!obj) {
        try {
          obj = decodeFromStorage(kv.value, kv.modRevision);
        } catch {
          continue; // An undecodable object limits nothing (the store reports it on reads).
        }
        this.decoded.set(kv, obj);
      }
      out.push(obj);
    }
    return out;
  }
}
