/**
 * Every stored object of one resource as an admission plugin reads it: from the resource's watch
 * cache when it is ready, from etcd otherwise (a server without the cache). The default-class
 * plugins (storage classes, ingress classes) list their classes so.
 */
import { ApiObject } from '../../scheme/types';
import { StoreIndex } from '../../registry/store-index';
import { decodeFromStorage } from '../../storage/storage-codec';

/** The objects of the store under `key`; none when the server does not serve it. `live`: from etcd, not the cache. */
export async function listStoredObjects(stores: StoreIndex, key: string, live = false): Promise<ApiObject[]> {
  const store = stores.get(key);
  if (!store) return [];
  const prefix = store.collectionPrefix();
  const cache = store.deps.cache;
  const kvs = !live && cache?.ready ? cache.list(prefix).kvs : (await store.storage.range(prefix)).kvs;
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

const notFound = (err: unknown): boolean => (err as { code?: number }).code === 404;

/**
 * One object of the store under `key` by name, as Kubernetes' plugins read it: from the watch cache
 * (resourceVersion 0), and when the cache does not have it (an object created a moment ago) by a
 * consistent read from etcd before answering "none". Undefined when absent or not served.
 */
export async function getStoredObject(stores: StoreIndex, key: string, name: string, namespace?: string): Promise<ApiObject | undefined> {
  const store = stores.get(key);
  if (!store || !name) return undefined;
  try {
    return await store.get(namespace, name, '0');
  } catch (err) {
    if (!notFound(err)) throw err;
  }
  return store.get(namespace, name).catch((err: unknown) => {
    if (notFound(err)) return undefined;
    throw err;
  });
}
