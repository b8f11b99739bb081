/**
 * Follows one resource for a controller (a small informer): the current state, then every
 * change, from the watch cache when it runs and straight from etcd otherwise. A watch that ends
 * is restarted from a fresh state, and objects that vanished in between are reported as removed,
 * so a consumer never misses a removal. Handlers run synchronously and must not throw.
 */
import { GenericStore } from './store';
import { ApiObject } from '../scheme/types';
import { decodeFromStorage, decodeStoredIdentity, decodeStoredMetadata } from '../storage/storage-codec';
import { KeyValue, StorageEvent, WatchHandle, WatchHandlers } from '../storage/interfaces';
import { logger } from '../logger';

export interface FeedHandlers {
  /** Created or changed; also every object of the initial state (may repeat one already seen). */
  upsert(obj: ApiObject): void;
  /** Removed: the last stored state, or only name, namespace and uid for a removal found on restart. */
  remove(obj: ApiObject): void;
}

interface Known {
  uid: string;
  name?: string;
  namespace?: string;
  /** The last value handed over mentions none of the fields in opts.readsOnly (see quiet()). */
  quiet: boolean;
}

const RESTART_MS = 1000;

export class ResourceFeed {
  private readonly known = new Map<string, Known>();
  private watch?: WatchHandle;
  private viaCache = false;
  private stopped = false;
  private restartTimer?: NodeJS.Timeout;

  /** `"field"` as bytes, for each of opts.readsOnly. */
  private readonly mentions: Buffer[];

  /**
   * @param opts.metadataOnly the handlers read nothing but `metadata`: objects are handed over as
   *   `{ metadata }`, parsed from the metadata bytes alone (far less work and garbage per change).
   * @param opts.readsOnly the handlers read nothing of an object but its identity (uid, name,
   *   namespace) and these metadata fields: a change of an object that has none of them before
   *   and after (its stored JSON never mentions them) is not handed over, nor even parsed. Most
   *   changes are of that kind for the garbage collector, which reads owner references,
   *   finalizers and deletion.
   */
  constructor(readonly store: GenericStore, private readonly handlers: FeedHandlers, private readonly label: string,
    private readonly opts: { metadataOnly?: boolean; readsOnly?: readonly string[] } = {}) {
    this.mentions = (opts.readsOnly ?? []).map((f) => Buffer.from(JSON.stringify(f)));
  }

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

  /** The uids of the objects handed over and not removed since (what a consumer may hold). */
  knownUids(): string[] {
    return [...this.known.values()].map((k) => k.uid);
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
    return cache.waitForDelivery(revision, timeoutMs);
  }

  private apply(events: StorageEvent[]): void {
    for (const ev of events) {
      if (ev.type === 'put') {
        const prev = this.known.get(ev.key);
        const quiet = this.quiet(ev.value);
        // An update of an object that mentioned none of the fields read and still does: the
        // handlers would see the same thing again.
        if (quiet && prev?.quiet && !ev.created) continue;
        const obj = this.decode(ev.value, ev.revision, quiet);
        if (!obj) continue;
        const uid = obj.metadata?.uid as string;
        if (prev && prev.uid !== uid) this.emitRemove(prev);
        this.known.set(ev.key, { uid, name: obj.metadata?.name, namespace: obj.metadata?.namespace, quiet });
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

  /**
   * Stored JSON that mentions none of the fields the handlers read (opts.readsOnly). A mention
   * anywhere (a data key of that name, say) only means the changes are handed over; protobuf
   * values are never quiet, nor is anything without readsOnly.
   */
  private quiet(value: Buffer): boolean {
    if (!this.mentions.length || value[0] !== 0x7b) return false; // '{': stored JSON
    for (const m of this.mentions) if (value.includes(m)) return false;
    return true;
  }

  /** A fresh state: what is no longer there (or is there with another uid) was removed. */
  private replace(kvs: KeyValue[]): void {
    const objects = new Map<string, { obj: ApiObject; quiet: boolean }>();
    for (const kv of kvs) {
      const quiet = this.quiet(kv.value);
      const obj = this.decode(kv.value, kv.modRevision, quiet);
      if (obj) objects.set(kv.key, { obj, quiet });
    }
    for (const [key, prev] of [...this.known]) {
      if (objects.get(key)?.obj.metadata?.uid === prev.uid) continue;
      this.known.delete(key);
      this.emitRemove(prev);
    }
    for (const [key, { obj, quiet }] of objects) {
      this.known.set(key, { uid: obj.metadata?.uid as string, name: obj.metadata?.name, namespace: obj.metadata?.namespace, quiet });
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

  /**
   * `quiet`: the value mentions none of opts.readsOnly, so its identity is all the handlers can
   * read of it (metadataOnly feeds get only that, read without parsing the metadata).
   */
  private decode(value: Buffer, revision: number, quiet = false): ApiObject | undefined {
    try {
      if (this.opts.metadataOnly) {
        const metadata = (quiet ? decodeStoredIdentity(value, revision) : undefined) ?? decodeStoredMetadata(value, revision);
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
