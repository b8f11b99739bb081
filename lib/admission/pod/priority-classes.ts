/**
 * The PriorityClasses the Priority plugin reads: one by name from the PriorityClass watch cache,
 * with a consistent read from etcd when the cache does not have it (a class just created), and
 * every class from the cache, or from etcd when asked for a live list (the globalDefault check
 * on a class write, where a lagging cache would let two defaults in). A server that does not
 * serve PriorityClass has none.
 */
import { ApiObject } from '../../scheme/types';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { getStoredObject, listStoredObjects } from '../resources/stored-objects';

/** What the plugin needs of the classes (tests hand in their own). */
export interface PriorityClassSource {
  /** The class of that name, or undefined. */
  get(name: string): Promise<ApiObject | undefined>;
  /** Every class; `live`: read from etcd rather than the cache. */
  list(live?: boolean): Promise<ApiObject[]>;
}

/** The classes of the store of `group`/v1/priorityclasses. */
export function storedPriorityClasses(stores: StoreIndex, group: string): PriorityClassSource {
  const key = storeKey(group, 'v1', 'priorityclasses');
  return {
    get: (name) => getStoredObject(stores, key, name),
    list: (live = false) => listStoredObjects(stores, key, live),
  };
}
