/**
 * The namespace controller: when a namespace is Terminating, delete everything in it (objects
 * with finalizers stay until those go), then remove its token from `spec.finalizers`, after
 * which the store removes the namespace. Driven by a watch on namespaces; a namespace whose
 * content is still finalizing is looked at again after a short delay.
 */
import { GenericStore } from '../registry/store';
import { deleteCollection } from '../registry/delete';
import { list } from '../registry/list';
import { ApiObject } from '../scheme/types';
import { decodeFromStorage } from '../storage/storage-codec';
import { StorageEvent, WatchHandle } from '../storage/interfaces';
import { logger } from '../logger';

const RETRY_MS = 1000;

export class NamespaceController {
  private watch?: WatchHandle;
  private stopped = false;
  private readonly queue = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = false;

  constructor(
    private readonly namespaces: GenericStore,
    /** Every namespaced resource's store: what a namespace deletion empties. */
    private readonly contents: () => GenericStore[],
    private readonly finalizer: string,
  ) {}

  /** Looks at every namespace, then follows changes: from the watch cache when it runs, else from etcd. */
  async start(): Promise<void> {
    const handlers = {
      onEvents: (events: StorageEvent[]) => {
        for (const ev of events) if (ev.type === 'put') this.consider(decodeFromStorage(ev.value, ev.revision));
      },
      onError: (err: Error) => {
        if (this.stopped) return;
        logger.warn('namespace controller watch ended; restarting', { error: err.message });
        setTimeout(() => { void this.start().catch((e) => logger.error('namespace controller restart failed', { error: String(e) })); }, RETRY_MS);
      },
    };
    const cache = this.namespaces.deps.cache;
    if (cache?.ready) {
      const w = cache.watchWithInitialState(this.namespaces.collectionPrefix(), handlers);
      this.watch = w.handle;
      for (const kv of w.initial) this.consider(decodeFromStorage(kv.value, kv.modRevision));
      return;
    }
    const snapshot = await list(this.namespaces, undefined, { hasSelector: false });
    for (const ns of snapshot.items) this.consider(ns);
    this.watch = await this.namespaces.storage.watch(this.namespaces.collectionPrefix(), Number(snapshot.resourceVersion), handlers);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    await this.watch?.close();
  }

  private consider(ns: ApiObject): void {
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers) ?? [];
    if (!ns.metadata?.deletionTimestamp || !finalizers.includes(this.finalizer)) return;
    this.queue.add(ns.metadata.name as string);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.size && !this.stopped) {
        const [name] = this.queue;
        this.queue.delete(name);
        const done = await this.cleanup(name).catch((err) => {
          logger.warn('namespace cleanup failed; will retry', { namespace: name, error: err instanceof Error ? err.message : String(err) });
          return false;
        });
        if (!done) this.retryLater(name);
      }
    } finally {
      this.running = false;
    }
  }

  private retryLater(name: string): void {
    if (this.stopped || this.timers.has(name)) return;
    this.timers.set(name, setTimeout(() => {
      this.timers.delete(name);
      this.queue.add(name);
      void this.drain();
    }, RETRY_MS));
  }

  /** True when the namespace is finalized (or gone); false when content remains. */
  private async cleanup(name: string): Promise<boolean> {
    let remaining = 0;
    for (const store of this.contents()) {
      const ctx = { namespace: name };
      // Background, as Kubernetes' namespace deleter: a pending foreground or orphan deletion does not hold the namespace.
      await deleteCollection(store, ctx, { hasSelector: false }, { propagationPolicy: 'Background' }, { dryRun: false });
      remaining += (await store.storage.range(store.collectionPrefix(name), { countOnly: true })).count;
    }
    if (remaining > 0) return false;
    try {
      await this.namespaces.guaranteedUpdate({}, name, (ns) => {
        const spec = (ns.spec ?? {}) as { finalizers?: string[] };
        if (!spec.finalizers?.includes(this.finalizer)) return undefined;
        return { ...ns, spec: { ...spec, finalizers: spec.finalizers.filter((f) => f !== this.finalizer) } };
      });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    logger.info('namespace finalized', { namespace: name });
    return true;
  }
}
