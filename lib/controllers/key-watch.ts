/**
 * A controller's watch on the keys under one prefix of a resource (from the watch cache when it
 * runs, else etcd): `onKey` receives each key that changed, its value unparsed, so a
 * controller that cares about a few objects among many pays next to nothing for the rest. A
 * watch that ends is started again a second later, then `onRestart` runs to look at what may
 * have changed while none ran.
 */
import { GenericStore } from '../registry/store';
import { StorageEvent, WatchHandle } from '../storage/interfaces';
import { logger } from '../logger';

const RESTART_MS = 1000;

export class KeyWatch {
  private watch?: WatchHandle;
  private restartTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly store: GenericStore, private readonly prefix: string,
    private readonly onKey: (key: string) => void, private readonly onRestart: () => void, private readonly label: string) {}

  async start(): Promise<void> {
    const handlers = {
      onEvents: (events: StorageEvent[]) => { for (const e of events) this.onKey(e.key); },
      onError: (err: Error) => this.restartLater(err),
    };
    const cache = this.store.deps.cache;
    if (cache?.ready) {
      this.watch = cache.watch(this.prefix, cache.revision, handlers);
      return;
    }
    const storage = this.store.storage;
    this.watch = await storage.watch(this.prefix, await storage.currentRevision(), handlers, { prevValues: false });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.watch?.close();
  }

  private restartLater(err: Error): void {
    if (this.stopped || this.restartTimer) return;
    logger.warn(`${this.label}: watch ended; restarting`, { error: err.message });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped) return;
      void this.watch?.close();
      this.start().then(() => this.onRestart(), (e) => this.restartLater(e instanceof Error ? e : new Error(String(e))));
    }, RESTART_MS);
  }
}
