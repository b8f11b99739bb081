/**
 * Reads of one object for authenticators (service accounts, bound pods and secrets, bootstrap
 * token Secrets): from the resource's watch cache, in memory, never from etcd per request
 * (DESIGN: policy read on every request comes from the watch caches). Without a watch cache
 * (--watch-cache=false) the store is asked (a consistent read).
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { KeyValue } from '../storage/interfaces';
import { decodeKv } from '../storage/storage-codec';
import { MaybePromise } from './authenticator';

export interface ObjectLookup {
  /** The object, or undefined when it does not exist. Must not be mutated. */
  get(namespace: string | undefined, name: string): MaybePromise<ApiObject | undefined>;
}

/** Decoded objects by the cache's key-value they came from: a cached value is decoded once. */
const decoded = new WeakMap<KeyValue, ApiObject>();

export function storeLookup(store: GenericStore): ObjectLookup {
  return {
    get(namespace, name) {
      const cache = store.deps.cache;
      if (cache?.ready) {
        const kv = cache.get(store.key(namespace, name)).kv;
        if (!kv) return undefined;
        let obj = decoded.get(kv);
        if (!obj) {
          obj = decodeKv(kv);
          decoded.set(kv, obj);
        }
        return obj;
      }
      return store.get(namespace, name).catch((err: { code?: number }) => {
        if (err.code === 404) return undefined;
        throw err;
      });
    },
  };
}
