/**
 * One client's watch on the cache: a bounded queue between the cache's single etcd watch and the
 * client. A client that falls behind, with more than the queue limit waiting (in events, or in
 * bytes of the values held), is ended with an error (it resumes from its last resourceVersion);
 * it never slows the cache or other watchers down, and its queue never holds more than the limits.
 */
import { StorageEvent, WatchHandle, WatchHandlers } from '../interfaces';
import { StorageError } from '../errors';

/**
 * WatchHandlers whose onEvents may return a promise: the next batch is not handed over until it
 * settles (e.g. until the HTTP response has drained), and events queue meanwhile. A rejected
 * promise or a thrown error ends the watch with onError.
 */
export interface CacheWatchHandlers extends WatchHandlers {
  onEvents(events: StorageEvent[], revision: number): void | Promise<void>;
}

/** A watch on the cache. */
export interface CacheWatchHandle extends WatchHandle {
  /**
   * The revision through which every change the watch would be sent has been handed to it,
   * beyond its own events: the cache's revision when it has taken everything (a watch of one
   * namespace, or of one indexed value, is not sent the others' changes, and the cache's revision
   * may have passed writes to other resources), yet its bookmarks may say it has seen them
   * (0: nothing beyond what it received).
   */
  progress(): number;
}

/** Batches handed to onEvents are cut at revision boundaries near this size. */
const MAX_DELIVERY = 1000;

/** Default byte bound of a watcher's live backlog: 1,000 events of 1 MiB must not hold 1 GiB. */
export const DEFAULT_WATCHER_QUEUE_BYTES = 8 << 20;

/** The bytes a queued event keeps alive (its values; the ring may have dropped them already). */
const eventBytes = (e: StorageEvent): number => e.value.length + (e.prevValue?.length ?? 0);

interface Queued {
  events: StorageEvent[];
  /** Live events count against the queue limit; a replay is bounded by the ring instead. */
  live: boolean;
  /** Bytes of the events' values (counted for live batches only). */
  bytes: number;
}

export class CacheWatcher implements WatchHandle {
  private queue: Queued[] = [];
  private liveQueued = 0;
  private liveBytes = 0;
  /** The consumer has not yet settled the promise of the last delivery. */
  private busy = false;
  /** Nothing more will be delivered. */
  private done = false;
  private closedByClient = false;
  /** The revision of the last event queued (initially the start). */
  private queuedThrough: number;

  /**
   * @param prefix keys this watcher receives
   * @param afterRevision only events with a higher revision are delivered
   * @param queueLimit live events that may wait for a consumer that is behind before it is ended
   * @param schedule asks for drain() to be called soon (never synchronously)
   * @param detach removes the watcher from whatever publishes to it
   * @param queueBytesLimit bytes of values those live events may hold before it is ended
   * @param indexValue the value of the cache's indexed field this watcher selects: it is sent only
   *   the changes of objects that had or have it (undefined: every change under the prefix)
   */
  constructor(
    readonly prefix: string,
    afterRevision: number,
    private readonly handlers: CacheWatchHandlers,
    private readonly queueLimit: number,
    private readonly schedule: (w: CacheWatcher) => void,
    private readonly detach: (w: CacheWatcher) => void,
    private readonly queueBytesLimit: number = DEFAULT_WATCHER_QUEUE_BYTES,
    readonly indexValue?: string,
  ) {
    this.queuedThrough = afterRevision;
  }

  get closed(): boolean {
    return this.done;
  }

  /** Everything queued has been handed to the consumer, which has settled it. */
  get idle(): boolean {
    return !this.queue.length && !this.busy;
  }

  /**
   * Queues events (already filtered by prefix, in revision order) for delivery. Events at or
   * below what it already queued are dropped: a replay from the ring and a later live delivery
   * of the same changes overlap when the watch starts between a change and its delivery.
   */
  push(events: StorageEvent[], live: boolean): void {
    const after = this.queuedThrough;
    if (this.done || !events.length || events[events.length - 1].revision <= after) return;
    const evs = events[0].revision > after ? events : events.filter((e) => e.revision > after);
    this.queuedThrough = evs[evs.length - 1].revision;
    // Behind: the consumer still holds an earlier delivery or has events waiting. One delivery to a
    // consumer that has taken everything is handed over whole, however large (a bulk write of
    // thousands of keys lands in one delivery); only a backlog beyond the limit ends the watch.
    const behind = this.busy || this.liveQueued > 0;
    let bytes = 0;
    if (live) for (const e of evs) bytes += eventBytes(e);
    this.queue.push({ events: evs, live, bytes });
    if (live) {
      this.liveQueued += evs.length;
      this.liveBytes += bytes;
      if (behind && (this.liveQueued > this.queueLimit || this.liveBytes > this.queueBytesLimit)) {
        this.fail(new StorageError('Internal', 'watcher could not keep up'));
        return;
      }
    }
    if (!this.busy) this.schedule(this);
  }

  /** Hands queued events to the consumer, unless it is still busy with the previous batch. */
  drain(): void {
    if (this.done || this.busy || !this.queue.length) return;
    const events = this.takeBatch();
    let result: void | Promise<void>;
    try {
      result = this.handlers.onEvents(events, events[events.length - 1].revision);
    } catch (err) {
      this.fail(asError(err));
      return;
    }
    if (result && typeof (result as Promise<void>).then === 'function') {
      this.busy = true;
      (result as Promise<void>).then(() => {
        this.busy = false;
        if (!this.done && this.queue.length) this.schedule(this);
      }, (err: unknown) => this.fail(asError(err)));
    } else if (this.queue.length) {
      this.schedule(this);
    }
  }

  /** Ends the watch from the cache's side: onError is called soon, unless the client closes first. */
  fail(err: Error): void {
    if (this.done) return;
    this.finish();
    setImmediate(() => {
      if (!this.closedByClient) this.handlers.onError(err);
    });
  }

  /** Ends the watch from the client's side; no handler is called afterwards. */
  async close(): Promise<void> {
    this.closedByClient = true;
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.queue = [];
    this.liveQueued = 0;
    this.liveBytes = 0;
    this.detach(this);
  }

  /** Whole queued batches, at least one, up to about MAX_DELIVERY events. */
  private takeBatch(): StorageEvent[] {
    if (this.queue.length === 1) {
      // The common case under steady load: one batch waiting.
      const only = this.queue[0];
      this.queue.length = 0;
      if (only.live) {
        this.liveQueued -= only.events.length;
        this.liveBytes -= only.bytes;
      }
      return only.events;
    }
    let taken = 0;
    let n = 0;
    while (n < this.queue.length && (n === 0 || taken + this.queue[n].events.length <= MAX_DELIVERY)) {
      taken += this.queue[n].events.length;
      n++;
    }
    const batches = this.queue.splice(0, n);
    for (const b of batches) {
      if (!b.live) continue;
      this.liveQueued -= b.events.length;
      this.liveBytes -= b.bytes;
    }
    return n === 1 ? batches[0].events : batches.flatMap((b) => b.events);
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** Splits events into runs of about `size` events without splitting a revision. */
export function chunkByRevision(events: StorageEvent[], size = MAX_DELIVERY): StorageEvent[][] {
  if (events.length <= size) return events.length ? [events] : [];
  const out: StorageEvent[][] = [];
  let start = 0;
  for (let i = 1; i <= events.length; i++) {
    const boundary = i === events.length || events[i].revision !== events[i - 1].revision;
    if (boundary && (i - start >= size || i === events.length)) {
      out.push(events.slice(start, i));
      start = i;
    }
  }
  return out;
}
