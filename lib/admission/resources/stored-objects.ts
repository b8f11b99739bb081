/**
 * Every stored object of one resource as an admission plugin reads it: from the resource's watch
 * cache when it is ready, from etcd otherwise (a server without the cache). The default-class
 * plugins (storage classes, ingress classes) list their classes so.
 */
import { ApiObject } from '../../scheme/types';
import { StoreIndex } from '../../registry/store-index';
import { decodeFromStorage } from '../../storage/storage-codec';

/** The objects of the store under `key`; none when the server does not serve it. */
export async function listStoredObjects(stores: StoreIndex, key: string): Promise<ApiObject[]> {
  const store = stores.get(key);
  if (!store) return [];
  const prefix = store.collectionPrefix();
  const cache = store.deps.cache;
  const kvs = cache?.ready ? cache.list(prefix).kvs : (await store.storage.range(prefix)).kvs;
  const out: ApiObject[] = [];
  for (const kv of kvs) {
    try {
      out.push(decodeFromStorage(kv.value, kv.modRevision));
    } catch {
      // An undecodable object is none to pick (the store reports it on reads).
    }
  }
  return out;
}
