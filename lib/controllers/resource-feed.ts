/**
 * Follows one resource for a controller (a small informer): the current state, then every
 * change, from the watch cache when it runs and straight from etcd otherwise. A watch that ends
 * is restarted from a fresh state, and objects that vanished in between are reported as removed,
 * so a consumer never misses a removal. Handlers run synchronously and must not throw.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { decodeFromStorage, decodeStoredMetadata } from '../scheme/storage-codec';
import { KeyValue, StorageEvent, WatchHandle, WatchHandlers } from '../storage/interfaces';
import { logger } from '../server/logger';

export interface FeedHandlers {
  /** Created or changed; also every object of the initial state (may repeat one already seen). */
  upsert(obj: ApiObject): void;
  /** Removed: the last stored state, or only name, namespace and uid for a removal found on restart. */
  remove(obj: ApiObject): void;
}

interface Known { uid: string; name?: string; namespace?: string }

const RESTART_MS = 1000;
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

export class ResourceFeed {
  private readonly known = new Map<string, Known>();
  private watch?: WatchHandle;
  private viaCache = false;
  private stopped = false;
  private restartTimer?: NodeJS.Timeout;
  /** Counts handed-over batches, so sync() can tell when deliveries have stopped. */
  private deliveries = 0;

  /**
   * @param opts.metadataOnly the handlers read nothing but `metadata`: objects are handed over as
   *   `{ metadata }`, parsed from the metadata bytes alone (far less work and garbage per change).
   */
  constructor(readonly store: GenericStore, private readonly handlers: FeedHandlers, private readonly label: string,
    private readonly opts: { metadataOnly?: boolean } = {}) {}

  /** Delivers the current state through the handlers, then follows changes. */
  async start(): Promise<void> {
    const prefix = this.store.collectionPrefix();
    const watchHandlers: WatchHandlers = {
      onEvents: (events) => this.apply(events),
      onError: (err) => this.restartLater(err),
    };
    const cache = this.store.deps.cache;
    if (cache?.ready) {
      const w = cache.watchWithInitialState(prefix, watchHandlers);
      this.watch = w.handle;
      this.viaCache = true;
      this.replace(w.initial);
      return;
    }
    const snapshot = await this.store.storage.range(prefix);
    this.viaCache = false;
    this.replace(snapshot.kvs);
    this.watch = await this.store.storage.watch(prefix, snapshot.revision, watchHandlers);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.watch?.close();
  }

  /**
   * Resolves true once every change up to etcd revision `revision` has been handed to the
   * handlers; false when that could not be confirmed within `timeoutMs`. Without the watch cache
   * there is no way to confirm it and this resolves true at once (best effort).
   */
  async sync(revision: number, timeoutMs: number): Promise<boolean> {
    const cache = this.store.deps.cache;
    if (!this.viaCache || !cache) return true;
    if (!(await cache.waitForRevision(revision, timeoutMs))) return false;
    // The cache has published those changes; its dispatcher hands them over in later turns.
    for (let turns = 0; turns < 100; turns++) {
      const before = this.deliveries;
      await nextTurn();
      if (this.deliveries === before) break;
    }
    return true;
  }

  private apply(events: StorageEvent[]): void {
    this.deliveries++;
    for (const ev of events) {
      if (ev.type === 'put') {
        const obj = this.decode(ev.value, ev.revision);
        if (!obj) continue;
        const uid = obj.metadata?.uid as string;
        const prev = this.known.get(ev.key);
        if (prev && prev.uid !== uid) this.emitRemove(prev);
        this.known.set(ev.key, { uid, name: obj.metadata?.name, namespace: obj.metadata?.namespace });
        this.emit('upsert', obj);
      } else {
        const prev = this.known.get(ev.key);
        this.known.delete(ev.key);
        const obj = ev.value.length ? this.decode(ev.value, ev.revision) : undefined;
        if (obj) this.emit('remove', obj);
        else if (prev) this.emitRemove(prev);
      }
    }
  }

  /** A fresh state: what is no longer there (or is there with another uid) was removed. */
  private replace(kvs: KeyValue[]): void {
    this.deliveries++;
    const objects = new Map<string, ApiObject>();
    for (const kv of kvs) {
      const obj = this.decode(kv.value, kv.modRevision);
      if (obj) objects.set(kv.key, obj);
    }
    for (const [key, prev] of [...this.known]) {
      if (objects.get(key)?.metadata?.uid === prev.uid) continue;
      this.known.delete(key);
      this.emitRemove(prev);
    }
    for (const [key, obj] of objects) {
      this.known.set(key, { uid: obj.metadata?.uid as string, name: obj.metadata?.name, namespace: obj.metadata?.namespace });
      this.emit('upsert', obj);
    }
  }

  private emitRemove(prev: Known): void {
    this.emit('remove', { metadata: { uid: prev.uid, name: prev.name, namespace: prev.namespace } });
  }

  private emit(kind: 'upsert' | 'remove', obj: ApiObject): void {
    try {
      this.handlers[kind](obj);
    } catch (err) {
      logger.error(`${this.label}: handler failed`, { resource: this.store.def.resource, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private decode(value: Buffer, revision: number): ApiObject | undefined {
    try {
      if (this.opts.metadataOnly) {
        const metadata = decodeStoredMetadata(value, revision);
        if (metadata) return { metadata };
      }
      return decodeFromStorage(value, revision);
    } catch (err) {
      logger.warn(`${this.label}: a stored object could not be decoded`, { resource: this.store.def.resource, error: String(err) });
      return undefined;
    }
  }

  private restartLater(err: Error): void {
    if (this.stopped || this.restartTimer) return;
    logger.warn(`${this.label}: watch ended; restarting`, { resource: this.store.def.resource, error: err.message });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped) return;
      void this.watch?.close();
      this.start().catch((e) => this.restartLater(e instanceof Error ? e : new Error(String(e))));
    }, RESTART_MS);
  }
}
