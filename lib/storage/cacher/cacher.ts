/**
 * The watch cache of one resource (see README.md in this folder): one etcd watch feeds an
 * in-memory copy of every key under the resource prefix and a bounded ring of recent changes
 * shared by all watchers. Reads with resourceVersion "0" or NotOlderThan are answered from
 * memory; consistent reads are answered from memory once a freshness check has confirmed that
 * the copy equals etcd's current state, and from etcd by the caller when it cannot.
 *
 * Everything handed out (KeyValue entries, event arrays) is shared with the cache: read-only.
 */
import { KeyValue, RangeResult, Storage, StorageEvent, WatchHandle } from '../interfaces';
import { StorageError } from '../errors';
import { CacheStore } from './cache-store';
import { CacheWatcher, CacheWatchHandle, CacheWatchHandlers, chunkByRevision, DEFAULT_WATCHER_QUEUE_BYTES } from './cache-watcher';
import { EventRing } from './event-ring';
import { CacheIndex } from './field-index';
import { FreshnessChecker, FreshnessProbe, FreshnessSubject } from './freshness';
import { CacheLogger, Reflector, ReflectorSink } from './reflector';
import { WatchDispatcher } from './watch-dispatcher';

export interface CacherOptions {
  /** Recent changes kept for watches that resume from a resourceVersion; default 10,000. */
  eventCapacity?: number;
  /** Live events a watcher may have waiting before it is ended as too slow; default 1,000. */
  watcherQueueLimit?: number;
  /** Bytes of values those waiting events may hold before the watcher is ended; default 8 MiB. */
  watcherQueueBytes?: number;
  /** How long a freshness check may wait for the watch to catch up; default 1,000 ms. */
  freshnessTimeoutMs?: number;
  /** Confirms freshness when writes went to other resources (e.g. Etcd3Probe). Without one, a
   * consistent read is served only once the watch itself reaches etcd's current revision. */
  probe?: FreshnessProbe;
  log?: CacheLogger;
  /** An index on one field (Kubernetes' indexed trigger: a pod's spec.nodeName), for lists and watches that select one value of it. */
  index?: CacheIndex;
}

/** A list's range, and with `indexValue` only the keys whose indexed field has that value. */
export interface CacheListOptions {
  startKey?: string;
  limit?: number;
  indexValue?: string;
}

interface RevisionWaiter {
  revision: number;
  resolve(): void;
  timer: NodeJS.Timeout;
}

export class Cacher {
  private readonly store: CacheStore;
  private readonly ring: EventRing;
  private readonly dispatcher = new WatchDispatcher();
  private readonly reflector: Reflector;
  private readonly freshness: FreshnessChecker;
  private readonly queueLimit: number;
  private readonly queueBytes: number;
  private isReady = false;
  /** Revision of the last applied change or fill. */
  private applied = 0;
  /** A freshness check found the state at `applied` equal to etcd's at `etcd`. */
  private confirmed?: { applied: number; etcd: number };
  private waiters: RevisionWaiter[] = [];
  private readonly indexField?: string;

  /** @param prefix the resource prefix, ending in '/', e.g. '/registry/configmaps/' */
  constructor(storage: Storage, readonly prefix: string, opts: CacherOptions = {}) {
    if (!prefix.endsWith('/')) throw new Error(`cacher prefix must end in '/': ${prefix}`);
    this.store = new CacheStore(opts.index);
    this.indexField = opts.index?.field;
    this.ring = new EventRing(opts.eventCapacity ?? 10_000, 0);
    this.queueLimit = opts.watcherQueueLimit ?? 1_000;
    this.queueBytes = opts.watcherQueueBytes ?? DEFAULT_WATCHER_QUEUE_BYTES;
    this.reflector = new Reflector(storage, prefix, this.sink, { log: opts.log });
    this.freshness = new FreshnessChecker(prefix, this.subject, () => storage.currentRevision(),
      opts.probe, opts.freshnessTimeoutMs ?? 1_000);
  }

  /** Lists the prefix at a revision R, then watches it from R. Rejects when etcd cannot be read. */
  async start(): Promise<void> {
    try {
      await this.reflector.start();
      this.isReady = true;
    } catch (err) {
      await this.reflector.stop();
      throw err;
    }
  }

  /** Stops the etcd watch and ends every watcher with StorageError Unavailable. */
  async stop(): Promise<void> {
    this.isReady = false;
    await this.reflector.stop();
    this.dispatcher.failAll(new StorageError('Unavailable', `the watch cache of ${this.prefix} stopped`));
    this.wake(true);
  }

  /** start() has succeeded and stop() has not been called. */
  get ready(): boolean {
    return this.isReady;
  }

  /**
   * The newest etcd revision the cached state is known to equal. Normally the revision of the
   * last applied change; after a freshness check, possibly a later one (other resources were
   * written). It can step back when the watch then delivers a change that was created and
   * deleted within that span; reads report the revision their state is at.
   */
  get revision(): number {
    const c = this.confirmed;
    return c && c.applied === this.applied ? Math.max(c.etcd, this.applied) : this.applied;
  }

  /** Watches may resume from this revision or later; older ones get StorageError Compacted. */
  get oldestWatchRevision(): number {
    return this.ring.startRevision;
  }

  /**
   * Whether the cached keys under `prefix` are, now, exactly as they were at `revision`: the cache
   * knows the state up to a revision at least that one, its ring holds every change after it, and
   * none of those is under `prefix`. Lets a read at an older revision (a list's next page) be
   * served from memory. False whenever that cannot be told.
   */
  unchangedSince(prefix: string, revision: number): boolean {
    return this.isReady && revision <= this.revision && revision >= this.ring.startRevision
      && !this.ring.changedSince(revision, prefix);
  }

  /** Number of cached keys. */
  get size(): number {
    return this.store.size;
  }

  /** Number of open watchers. */
  get watcherCount(): number {
    return this.dispatcher.size;
  }

  /** The field whose one value lists and watches may select through the index, if there is one. */
  get indexedField(): string | undefined {
    return this.indexField;
  }

  /**
   * Confirms that the cache equals etcd's current state: resolves to an etcd revision at least
   * etcd's revision at the time of the call, which `revision` equals or exceeds when the promise
   * settles (read the cache synchronously after the await), or to undefined when the cache could
   * not catch up within freshnessTimeoutMs or etcd failed (the caller reads etcd). Concurrent
   * callers share one check that started after they called. Never rejects.
   */
  consistentRevision(): Promise<number | undefined> {
    return this.freshness.check();
  }

  /** A consistent get from memory, or undefined when freshness could not be confirmed. */
  async getConsistent(key: string): Promise<{ kv?: KeyValue; revision: number } | undefined> {
    const rev = await this.consistentRevision();
    return rev !== undefined && this.isReady && this.revision >= rev ? this.get(key) : undefined;
  }

  /** A consistent list from memory, or undefined when freshness could not be confirmed. */
  async listConsistent(prefix: string, opts?: CacheListOptions): Promise<RangeResult | undefined> {
    const rev = await this.consistentRevision();
    return rev !== undefined && this.isReady && this.revision >= rev ? this.list(prefix, opts) : undefined;
  }

  /**
   * Resolves true once `revision` >= `rev` (NotOlderThan reads, watches from a "too large"
   * resourceVersion), false after `timeoutMs` or when the cache stops. Uses freshness checks
   * too, since the watch alone never reaches a revision written to another resource.
   */
  async waitForRevision(rev: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.isReady) return false;
      if (this.revision >= rev) return true;
      if (Date.now() >= deadline) return false;
      const confirmed = await raceDeadline(this.consistentRevision(), deadline);
      if (this.isReady && this.revision >= rev) return true;
      // Not confirmed, or `rev` is ahead of etcd itself: wait for the watch a little, then ask again.
      if (confirmed === undefined || confirmed < rev) await this.waitForApplied(rev, Math.min(deadline, Date.now() + 100));
    }
  }

  /**
   * Resolves true once every change up to `rev` has been handed to this cache's watchers
   * (synchronous consumers have then seen it), false after `timeoutMs` or when the cache stops.
   */
  async waitForDelivery(rev: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    if (!(await this.waitForRevision(rev, timeoutMs))) return false;
    const delivered = await raceDeadline(this.dispatcher.whenDelivered().then(() => true), deadline);
    return delivered === true && this.isReady;
  }

  /**
   * Resolves true once the watch itself has applied `revision`, false after `timeoutMs` or when
   * the cache stops. For a revision known to be a change under this cache's prefix (an object's
   * resourceVersion); sends nothing to etcd.
   */
  async waitForWatch(revision: number, timeoutMs: number): Promise<boolean> {
    if (!this.isReady) return false;
    if (this.applied < revision) await this.waitForApplied(revision, Date.now() + timeoutMs);
    return this.isReady && this.applied >= revision;
  }

  /** One key from memory, with the revision the state is at. */
  get(key: string): { kv?: KeyValue; revision: number } {
    this.assertReady();
    return { kv: this.store.get(key), revision: this.revision };
  }

  /**
   * Keys under `prefix` (the resource prefix or a sub-prefix such as a namespace's, ending in
   * '/') in key order from memory; same shape and meaning as Storage.range, but with `indexValue`
   * (and an index) only the keys whose indexed field has that value.
   */
  list(prefix: string, opts?: CacheListOptions): RangeResult {
    this.assertReady();
    this.assertPrefix(prefix);
    return { ...this.store.list(prefix, opts), revision: this.revision };
  }

  /**
   * Watches `prefix` from memory: replays retained changes after `afterRevision`, then live ones.
   * Throws StorageError Compacted (compactRevision = oldestWatchRevision) when `afterRevision`
   * is older than the ring covers: the caller answers 410 Gone. A revision ahead of the cache is
   * accepted; changes up to it are skipped. handlers.onEvents may return a promise (back-pressure).
   * `indexValue` (with an index): live changes only of objects that had or have that value of the
   * indexed field; the consumer still filters by its selector (the replay is not narrowed).
   */
  watch(prefix: string, afterRevision: number, handlers: CacheWatchHandlers, indexValue?: string): CacheWatchHandle {
    this.assertReady();
    this.assertPrefix(prefix);
    if (afterRevision < this.ring.startRevision) {
      throw new StorageError('Compacted',
        `too old resource version: ${afterRevision} (${this.ring.startRevision})`, this.ring.startRevision);
    }
    const w = this.newWatcher(prefix, afterRevision, handlers, indexValue);
    const replay = this.ring.since(afterRevision).filter((e) => e.key.startsWith(prefix));
    for (const chunk of chunkByRevision(replay)) w.push(chunk, false);
    this.dispatcher.add(w);
    return this.handleOf(w);
  }

  /**
   * For watches that start with the current state (resourceVersion unset or "0"): the keys under
   * `prefix` and the revision they are at, with a watcher registered in the same instant, so the
   * initial state plus the delivered changes never miss or repeat one. `indexValue` narrows both
   * the initial keys and the changes, as in list() and watch().
   */
  watchWithInitialState(prefix: string, handlers: CacheWatchHandlers, indexValue?: string): { initial: KeyValue[]; revision: number; handle: CacheWatchHandle } {
    this.assertReady();
    this.assertPrefix(prefix);
    const revision = this.revision;
    const initial = this.store.list(prefix, { indexValue }).kvs;
    const w = this.newWatcher(prefix, revision, handlers, indexValue);
    this.dispatcher.add(w);
    return { initial, revision, handle: this.handleOf(w) };
  }

  private newWatcher(prefix: string, afterRevision: number, handlers: CacheWatchHandlers, indexValue?: string): CacheWatcher {
    return new CacheWatcher(prefix, afterRevision, handlers, this.queueLimit,
      this.dispatcher.schedule, (w) => this.dispatcher.remove(w), this.queueBytes,
      this.indexField === undefined ? undefined : indexValue);
  }

  private handleOf(w: CacheWatcher): CacheWatchHandle {
    return { close: () => w.close(), progress: () => this.dispatcher.progressOf(w, this.revision) };
  }

  private assertReady(): void {
    if (!this.isReady) throw new StorageError('Unavailable', `the watch cache of ${this.prefix} is not ready`);
  }

  private assertPrefix(prefix: string): void {
    if (!prefix.startsWith(this.prefix) || !prefix.endsWith('/')) {
      throw new StorageError('Internal', `prefix ${prefix} is not a '/'-terminated prefix within ${this.prefix}`);
    }
  }

  /** Resolves once `applied` >= `revision`, at `deadline`, or when the cache stops. */
  private waitForApplied(revision: number, deadline: number): Promise<void> {
    if (this.applied >= revision || !this.isReady) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        }, Math.max(0, deadline - Date.now())),
      };
      this.waiters.push(waiter);
    });
  }

  private wake(all = false): void {
    if (!this.waiters.length) return;
    const keep: RevisionWaiter[] = [];
    for (const w of this.waiters) {
      if (all || w.revision <= this.applied) {
        clearTimeout(w.timer);
        w.resolve();
      } else {
        keep.push(w);
      }
    }
    this.waiters = keep;
  }

  private readonly sink: ReflectorSink = this.createSink();
  private readonly subject: FreshnessSubject = this.createSubject();

  private createSink(): ReflectorSink {
    const self = this;
    return {
      get appliedRevision() {
        return self.applied;
      },
      replace(kvs: KeyValue[], revision: number, gap: boolean) {
        if (gap) {
          self.dispatcher.failAll(new StorageError('Compacted',
            `the watch cache of ${self.prefix} was re-listed at revision ${revision}; earlier changes are unavailable`, revision));
        }
        self.store.replace(kvs);
        self.ring.reset(revision);
        self.applied = revision;
        self.confirmed = undefined;
        self.wake(true);
      },
      apply(events: StorageEvent[]) {
        const changes = self.store.apply(events);
        self.ring.push(events);
        self.applied = events[events.length - 1].revision;
        self.dispatcher.publish(events, changes);
        self.wake();
      },
    };
  }

  private createSubject(): FreshnessSubject {
    const self = this;
    return {
      get ready() {
        return self.isReady;
      },
      get appliedRevision() {
        return self.applied;
      },
      get revision() {
        return self.revision;
      },
      get size() {
        return self.store.size;
      },
      confirm(applied: number, etcd: number) {
        if (applied === self.applied && etcd > self.revision) self.confirmed = { applied, etcd };
      },
      waitForApplied: (revision: number, deadline: number) => self.waitForApplied(revision, deadline),
    };
  }
}

/** The value of `p`, or undefined when `deadline` (ms epoch) passes first or `p` rejects. */
function raceDeadline<T>(p: Promise<T>, deadline: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
    const settle = (v: T | undefined) => {
      clearTimeout(timer);
      resolve(v);
    };
    p.then(settle, () => settle(undefined));
  });
}
