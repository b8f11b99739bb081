/**
 * The RuntimeClass admission plugin by name (listed by ../registry.ts), over the server's
 * RuntimeClasses: the watch cache first, a consistent read from etcd when the cache misses the
 * name (a class just created), as Kubernetes' plugin falls back from its informer to the client.
 */
import type { PluginFactories } from '../plugin-factory';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { RuntimeClassSource, runtimeClassPlugin } from './runtime-class';

const notFound = (err: unknown): boolean => (err as { code?: number }).code === 404;

/** The classes of the store of `group`/v1/runtimeclasses (none when not served). */
export function storedRuntimeClasses(stores: StoreIndex, group: string): RuntimeClassSource {
  const key = storeKey(group, 'v1', 'runtimeclasses');
  return {
    async get(name) {
      const store = stores.get(key);
      if (!store || !name) return undefined;
      try {
        return await store.get(undefined, name, '0');
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      return store.get(undefined, name).catch((err: unknown) => {
        if (notFound(err)) return undefined;
        throw err;
      });
    },
  };
}

export const runtimeClassPlugins: PluginFactories = {
  RuntimeClass: (d) => runtimeClassPlugin(storedRuntimeClasses(d.stores, d.naming.group('node'))),
};
