/**
 * The RuntimeClass admission plugin by name (listed by ../registry.ts), over the server's
 * RuntimeClasses: the watch cache first, a consistent read from etcd when the cache misses the
 * name (a class just created), as Kubernetes' plugin falls back from its informer to the client.
 */
import type { PluginFactories } from '../plugin-factory';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { RuntimeClassSource, runtimeClassPlugin } from './runtime-class';
import { getStoredObject } from '../resources/stored-objects';

/** The classes of the store of `group`/v1/runtimeclasses (none when not served). */
export function storedRuntimeClasses(stores: StoreIndex, group: string): RuntimeClassSource {
  const key = storeKey(group, 'v1', 'runtimeclasses');
  return { get: (name) => getStoredObject(stores, key, name) };
}

export const runtimeClassPlugins: PluginFactories = {
  RuntimeClass: (d) => runtimeClassPlugin(storedRuntimeClasses(d.stores, d.naming.group('node'))),
};
