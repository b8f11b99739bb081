/**
 * Keeps a cache in step with etcd through ONE watch over the resource prefix: list at revision R,
 * watch from R, and when that watch ends (stream error, etcd restart, leader change) watch again
 * from the last applied revision, so no change is missed. Only when that revision has been
 * compacted away is the prefix listed again, which the sink reports as a gap.
 */
import { KeyValue, Storage, StorageEvent, WatchHandle } from '../interfaces';
import { isStorageError } from '../errors';
import { onNextReconnect } from '../reconnects';

export interface CacheLogger {
  warn(msg: string): void;
  info?(msg: string): void;
}

/** Where the reflector delivers what it reads. */
export interface ReflectorSink {
  /** Revision of the last change applied; a resumed watch starts after it. */
  readonly appliedRevision: number;
  /**
   * The whole state of the prefix at `revision`. `gap` is true when it replaces an earlier state
   * whose watch could not be resumed: changes in between are unknown.
   */
  replace(kvs: KeyValue[], revision: number, gap: boolean): void;
  /** Changes after appliedRevision, in revision order, in whole revisions. */
  apply(events: StorageEvent[]): void;
}

export interface ReflectorOptions {
  log?: CacheLogger;
  /**
   * First retry delay after a failed re-watch; doubles up to maxBackoffMs (500 ms: a watch is
   * back within about half a second of etcd answering again). A storage client's reconnection
   * (../reconnects.ts) ends the wait at once and starts the doubling over.
   */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** Waits `ms`, or less when a storage client reconnects meanwhile; resolves whether it was woken. */
const backoff = (ms: number) => new Promise<boolean>((resolve) => {
  const off = onNextReconnect(() => {
    clearTimeout(timer);
    resolve(true);
  });
  const timer = setTimeout(() => {
    off();
    resolve(false);
  }, ms);
});
const isCompacted = (err: unknown) => isStorageError(err) && err.code === 'Compacted';

export class Reflector {
  /** Bumped by every (re)start and by stop; callbacks of older watches are ignored. */
  private generation = 0;
  private handle?: WatchHandle;
  private stopped = false;
  /** Watches that ended since the last event; drives the back-off of resumes. */
  private failures = 0;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    private readonly sink: ReflectorSink,
    private readonly opts: ReflectorOptions = {},
  ) {
    this.initialBackoffMs = opts.initialBackoffMs ?? 100;
    this.maxBackoffMs = opts.maxBackoffMs ?? 500;
  }

  /** Lists the prefix into the sink and starts the watch; rejects when either fails. */
  async start(): Promise<void> {
    this.stopped = false;
    const generation = ++this.generation;
    const r = await this.storage.range(this.prefix);
    if (generation !== this.generation) return;
    this.sink.replace(r.kvs, r.revision, false);
    await this.watchFrom(r.revision, generation);
  }

  /** Ends the watch; nothing reaches the sink afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  private async watchFrom(revision: number, generation: number): Promise<void> {
    const handle = await this.storage.watch(this.prefix, revision, {
      onEvents: (events) => {
        if (generation !== this.generation) return;
        this.failures = 0;
        const applied = this.sink.appliedRevision;
        // A resumed watch never repeats a change, but a duplicate must not be applied twice.
        const fresh = events[0]?.revision > applied ? events : events.filter((e) => e.revision > applied);
        if (fresh.length) this.sink.apply(fresh);
      },
      onError: (err) => {
        if (generation === this.generation) void this.resume(err);
      },
    }, { prevValues: false }); // the cache store fills them from the state it holds
    if (generation !== this.generation) {
      await handle.close().catch(() => undefined);
      return;
    }
    this.handle = handle;
  }

  /** Replaces an ended watch: resume after the applied revision, or re-list when it is compacted. */
  private async resume(cause: Error): Promise<void> {
    const generation = ++this.generation;
    // The storage has ended that watch (onError); closing it again may never settle.
    this.handle = undefined;
    this.opts.log?.warn(`watch cache ${this.prefix}: etcd watch ended (${cause.message}); resuming after revision ${this.sink.appliedRevision}`);
    let relist = isCompacted(cause);
    for (;;) {
      if (this.stopped || generation !== this.generation) return;
      if (this.failures > 0 && await backoff(Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** (this.failures - 1)))) {
        this.failures = 0;
      }
      this.failures++;
      if (this.stopped || generation !== this.generation) return;
      try {
        if (relist) {
          const r = await this.storage.range(this.prefix);
          if (this.stopped || generation !== this.generation) return;
          this.opts.log?.warn(`watch cache ${this.prefix}: revision ${this.sink.appliedRevision} was compacted; re-listed at ${r.revision}`);
          this.sink.replace(r.kvs, r.revision, true);
          relist = false;
        } else {
          await this.assertNotCompacted(this.sink.appliedRevision);
        }
        await this.watchFrom(this.sink.appliedRevision, generation);
        return;
      } catch (err) {
        if (isCompacted(err)) relist = true;
        else this.opts.log?.warn(`watch cache ${this.prefix}: resuming the etcd watch failed: ${(err as Error).message}`);
      }
    }
  }

  /**
   * Throws StorageError Compacted when a watch from `revision` could not be served. The watch
   * itself reports a compacted start too; a read before resuming avoids a watch that would fail.
   */
  private async assertNotCompacted(revision: number): Promise<void> {
    try {
      await this.storage.range(this.prefix, { revision: revision + 1, countOnly: true });
    } catch (err) {
      if (isStorageError(err) && err.code === 'FutureRevision') return;
      throw err;
    }
  }
}
