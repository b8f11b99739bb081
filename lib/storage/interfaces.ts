/**
 * The storage contract, in etcd's own words. Keys are full etcd keys (prefix included);
 * values are encoded objects. Revisions are etcd revisions as numbers.
 *
 * Compare-and-swap outcomes are data (`{ ok: false, current }`), not exceptions: the caller
 * decides whether a lost race is a Conflict, a NotFound or a retry. Infrastructure failures
 * (etcd unreachable, request too large, compacted revision) throw StorageError.
 */

export interface KeyValue {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  /**
   * A memo of scheme/storage-codec's servedJsonOf: where metadata.resourceVersion goes in `value`
   * (-1: not stored JSON in the stored layout). Unset until a response is first built from it.
   */
  jsonSpliceAt?: number;
  /**
   * Read through encryption at rest by a provider or key other than the first: a write (even of
   * the unchanged object) stores it again with the first (lib/storage/transforming-storage.ts).
   */
  stale?: boolean;
}

export interface RangeOptions {
  /** Read at this revision (0 or undefined: the newest). Throws StorageError Compacted when gone. */
  revision?: number;
  /** At most this many keys (0 or undefined: no limit). */
  limit?: number;
  /** Start here instead of at the prefix (inclusive); must lie inside the prefix. */
  startKey?: string;
  /** Only count, read no values. */
  countOnly?: boolean;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** The etcd header revision at which the range was read. */
  revision: number;
  /** More keys exist after the last returned one. */
  more: boolean;
  /** Number of keys in [startKey, end of prefix) at that revision. */
  count: number;
}

export type CasResult =
  | { ok: true; revision: number }
  | { ok: false; current?: KeyValue; revision: number };

export type WatchEventType = 'put' | 'delete';

export interface StorageEvent {
  type: WatchEventType;
  key: string;
  /** For put: the new value; for delete: the previous value. */
  value: Buffer;
  /** For put: the previous value when the key existed before (an update). */
  prevValue?: Buffer;
  /** The revision of the change (mod_revision of a put, revision of a delete). */
  revision: number;
  /** For put: whether this created the key. */
  created: boolean;
}

export interface WatchHandlers {
  onEvents(events: StorageEvent[], revision: number): void;
  /** A progress notification: everything up to `revision` has been delivered. */
  onProgress?(revision: number): void;
  /** The watch cannot continue (e.g. its start was compacted). Not called after close(). */
  onError(err: Error): void;
}

export interface WatchOptions {
  /**
   * Deliver previous values (prevValue of an update, value of a delete); default true. A
   * consumer that keeps the state itself (the watch cache) fills them from it and spares etcd
   * the lookup and half the bytes of every event.
   */
  prevValues?: boolean;
}

export interface WatchHandle {
  close(): Promise<void>;
}

/** How a key is put. */
export interface PutOptions {
  /**
   * The key is deleted by etcd this many seconds after this write (at most a minute or 5% later:
   * leases are shared by the writes of that window, as kube-apiserver shares them). Events use it.
   */
  ttlSeconds?: number;
}

export interface Storage {
  /** One key; `kv` is absent when the key does not exist at that revision. */
  get(key: string, opts?: { revision?: number }): Promise<{ kv?: KeyValue; revision: number }>;
  /** Keys under `prefix` (which must end in '/'), in key order. */
  range(prefix: string, opts?: RangeOptions): Promise<RangeResult>;
  /** Put only if the key does not exist. On failure `current` is the existing key. */
  create(key: string, value: Buffer, opts?: PutOptions): Promise<CasResult>;
  /** Put only if the key's mod_revision equals `modRevision`. On failure `current` is the key now (absent if deleted). */
  update(key: string, value: Buffer, modRevision: number, opts?: PutOptions): Promise<CasResult>;
  /** Delete only if the key's mod_revision equals `modRevision`. */
  delete(key: string, modRevision: number): Promise<CasResult>;
  /** Watch keys under `prefix` for changes after `afterRevision`. */
  watch(prefix: string, afterRevision: number, handlers: WatchHandlers, opts?: WatchOptions): Promise<WatchHandle>;
  /** The current etcd revision (a cheap read). */
  currentRevision(): Promise<number>;
  /** Compact history up to `revision`. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
  /**
   * True when stored bytes are transformed (encrypted at rest): a value may then need rewriting
   * although the object did not change (a key rotation), so unchanged updates are still written.
   */
  readonly transformsValues?: boolean;
}
