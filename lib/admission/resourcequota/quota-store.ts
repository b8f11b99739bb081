/**
 * The namespace's ResourceQuotas as the plugin reads and writes them: from the watch cache (or,
 * when it holds none, from etcd at most every 30 s per namespace, as Kubernetes' live lookup
 * cache; and from etcd when a write lost a race), each replaced by the copy this process
 * last wrote when that one is newer (the cache trails our own writes); a status written through
 * the store's `/status` pipeline with a compare on the quota's resourceVersion.
 */
import { ApiObject } from '../../scheme/types';
import { KeyValue } from '../../storage/interfaces';
import { GenericStore } from '../../registry/store';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { InFlightCharges, inFlightCharges } from './in-flight';

const rvOf = (q: ApiObject): number => Number(q.metadata?.resourceVersion ?? 0);

export class QuotaStore {
  /** The newest copy of each quota this process wrote, by namespace/name. */
  private readonly written = new Map<string, ApiObject>();

  /**
   * The watch cache's quotas as decoded, by their key-value (the cache replaces one on each write,
   * never changes it): a quota is decoded once per version, not once per request and per batch.
   */
  private readonly decoded = new WeakMap<KeyValue, ApiObject>();

  /** Live lookups of namespaces the cache had no quota for (Kubernetes' liveLookupCache), by namespace. */
  private readonly lookups = new Map<string, { until: number; quotas: ApiObject[] }>();

  constructor(private readonly stores: StoreIndex, private readonly liveTtlMs = 30_000) {}

  get store(): GenericStore | undefined {
    return this.stores.get(storeKey('', 'v1', 'resourcequotas'));
  }

  /** The charges of this server whose objects are not written yet. */
  get inFlight(): InFlightCharges | undefined {
    const store = this.store;
    return store && inFlightCharges(store.storage);
  }

  /** The quotas of `namespace` (shared: not to be changed); `live`: read etcd rather than the cache. */
  async list(namespace: string, live = false): Promise<ApiObject[]> {
    const store = this.store;
    if (!store) return [];
    const prefix = store.collectionPrefix(namespace);
    const cache = store.deps.cache;
    const fromCache = !live && cache?.ready;
    const kvs = fromCache ? cache!.list(prefix).kvs : (await store.storage.range(prefix)).kvs;
    if (fromCache && !kvs.length) {
      // None in the cache: a quota just created may not be there yet; ask etcd, at most every liveTtlMs.
      const seen = this.lookups.get(namespace);
      if (seen && seen.until > Date.now()) return seen.quotas;
      const quotas = await this.list(namespace, true);
      this.lookups.set(namespace, { until: Date.now() + this.liveTtlMs, quotas });
      return quotas;
    }
    const quotas = fromCache ? await this.decodeCached(store, kvs) : await store.outputKvs(kvs);
    return quotas.map((q) => {
      const mine = this.written.get(`${namespace}/${q.metadata?.name}`);
      return mine && rvOf(mine) > rvOf(q) ? mine : q;
    });
  }

  /** Whether `namespace` has a quota: the cache's count when it holds some (nothing decoded), else list's answer. */
  async any(namespace: string): Promise<boolean> {
    const store = this.store;
    if (!store) return false;
    const cache = store.deps.cache;
    if (cache?.ready && cache.list(store.collectionPrefix(namespace)).kvs.length) return true;
    return (await this.list(namespace)).length > 0;
  }

  /** The quotas of cached key-values, shared between callers (not to be changed). */
  private async decodeCached(store: GenericStore, kvs: readonly KeyValue[]): Promise<ApiObject[]> {
    const out: ApiObject[] = [];
    for (const kv of kvs) {
      let q = this.decoded.get(kv);
      if (!q) this.decoded.set(kv, q = (await store.outputKvs([kv]))[0]);
      out.push(q);
    }
    return out;
  }

  /**
   * Writes `status.used` of `quota` if its resourceVersion is still current: the written quota,
   * or undefined when another write came first (or the quota is gone).
   */
  async writeUsed(quota: ApiObject, used: Record<string, string>): Promise<ApiObject | undefined> {
    const store = this.store!;
    const namespace = quota.metadata?.namespace ?? '';
    const name = quota.metadata?.name ?? '';
    const next = { ...quota, status: { ...(quota.status as object ?? {}), used } };
    try {
      const { object } = await store.update({ namespace }, name, next, { dryRun: false, subresource: 'status', fieldManager: 'kube-apiserver' });
      this.remember(object);
      return object;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 409 || code === 404) {
        this.written.delete(`${namespace}/${name}`);
        return undefined;
      }
      throw err;
    }
  }

  /** Keeps `quota` as the newest copy this process knows (a status the controller wrote too). */
  remember(quota: ApiObject): void {
    const key = `${quota.metadata?.namespace}/${quota.metadata?.name}`;
    const had = this.written.get(key);
    if (!had || rvOf(quota) > rvOf(had)) this.written.set(key, quota);
  }

  /** Forgets a deleted quota. */
  forget(namespace: string, name: string): void {
    this.written.delete(`${namespace}/${name}`);
  }
}
