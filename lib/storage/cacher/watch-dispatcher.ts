/**
 * Fans the cache's changes out to its watchers. Publishing only collects; delivery happens in a
 * later turn of the event loop (so a consumer never runs inside the etcd watch callback), at most
 * once per `minIntervalMs`: the changes published in between go out together, as one array
 * shared by every watcher of a prefix (filtered once per distinct prefix), which a consumer can
 * encode once for all (api/shared-events.ts). Each delivery to a stream has a fixed cost, so with
 * a thousand watchers fewer, larger deliveries are what keeps latency low under load.
 *
 * Watchers of one value of the cache's indexed field (a kubelet's `spec.nodeName=X`) are kept
 * apart, by value: a change goes to the watchers of its object's value before and after it (a pod
 * moved off node X still reaches X's watchers, which see it leave), and the others are not
 * visited, so a change costs the same with ten or a thousand nodes watching.
 */
import { StorageEvent } from '../interfaces';
import { CacheWatcher } from './cache-watcher';
import { IndexChange } from './field-index';

/**
 * Default spacing of deliveries. The first change after a quiet spell still goes out in the next
 * turn; under a steady stream this trades up to 10 ms for half the writes of 5 ms. Measured with
 * 1,000 watchers and 200 writes/s (`make bench ARGS=--only=watch-fanout`): delivery p99 49-71 ms
 * at 10 ms against 55-97 ms at 5 ms, where the server was saturated writing to the streams.
 */
export const DEFAULT_MIN_FLUSH_INTERVAL_MS = 10;

/** The watchers of one prefix. */
interface Group {
  /** Watchers that take every change under the prefix. */
  all: Set<CacheWatcher>;
  /** Watchers of one value of the indexed field, by value. */
  byValue: Map<string, Set<CacheWatcher>>;
  size: number;
}

/** Changes published together, with their index values when the cache has an index. */
interface Batch {
  events: StorageEvent[];
  changes?: IndexChange[];
}

export class WatchDispatcher {
  private readonly groups = new Map<string, Group>();
  private ready = new Set<CacheWatcher>();
  /** Changes published since the last delivery, in revision order. */
  private pending: Batch[] = [];
  private scheduled = false;
  private flushing = false;
  private lastFlush = -Infinity;
  private count = 0;
  /** The revision of the last change handed to the watchers' queues. */
  private delivered = 0;
  /** whenDelivered() callers waiting for the current deliveries to go out. */
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly minIntervalMs = DEFAULT_MIN_FLUSH_INTERVAL_MS) {}

  /** Number of open watchers. */
  get size(): number {
    return this.count;
  }

  add(w: CacheWatcher): void {
    let group = this.groups.get(w.prefix);
    if (!group) this.groups.set(w.prefix, (group = { all: new Set(), byValue: new Map(), size: 0 }));
    const set = w.indexValue === undefined ? group.all : getOrAdd(group.byValue, w.indexValue);
    if (set.has(w)) return;
    set.add(w);
    group.size++;
    this.count++;
  }

  remove(w: CacheWatcher): void {
    const group = this.groups.get(w.prefix);
    const set = w.indexValue === undefined ? group?.all : group?.byValue.get(w.indexValue);
    if (!group || !set?.delete(w)) return;
    if (!set.size && w.indexValue !== undefined) group.byValue.delete(w.indexValue);
    group.size--;
    this.count--;
    this.ready.delete(w);
    if (!group.size) this.groups.delete(w.prefix);
  }

  /**
   * Queues a batch of changes (revision order) for every watcher whose prefix matches, and of an
   * indexed watcher, whose value one of the change's `changes` (same positions) names. A watcher
   * added before the delivery also receives it; CacheWatcher drops what it already has.
   */
  publish(events: StorageEvent[], changes?: IndexChange[]): void {
    if (!this.count || !events.length) return;
    this.pending.push({ events, changes });
    this.request();
  }

  /**
   * For a watcher that has taken everything queued for it: the revision through which every
   * change has been handed out, the ones it was not sent included (what its bookmarks may say, as
   * if it had been sent them and had filtered them all): `current`, the cache's revision, when no
   * change waits for delivery, else the last one delivered. Otherwise 0: its own events tell.
   * Kubernetes' cache likewise bookmarks an idle watcher at the cache's revision, so that a
   * client resuming from it does not start behind the writes to other resources.
   */
  progressOf(w: CacheWatcher, current: number): number {
    if (!w.idle) return 0;
    return this.pending.length ? this.delivered : current;
  }

  /** Asks for `w.drain()` in a later turn; many requests share one turn. */
  readonly schedule = (w: CacheWatcher): void => {
    this.ready.add(w);
    if (!this.flushing) this.request();
  };

  /**
   * Resolves once everything published so far has been handed to the watchers (a consumer
   * still settling an earlier delivery gets the rest when it is done, so this holds only for
   * synchronous consumers).
   */
  whenDelivered(): Promise<void> {
    if (!this.scheduled && !this.flushing && !this.pending.length && !this.ready.size) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Ends every watcher with `err` (each gets onError unless it closes first). */
  failAll(err: Error): void {
    const ws = [...this.groups.values()].flatMap((g) => [...g.all, ...[...g.byValue.values()].flatMap((set) => [...set])]);
    for (const w of ws) w.fail(err);
  }

  private request(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastFlush + this.minIntervalMs - performance.now();
    if (wait >= 1) setTimeout(this.flush, wait);
    else setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.flushing = true;
    this.lastFlush = performance.now();
    try {
      const batches = this.pending;
      this.pending = [];
      if (batches.length) {
        const events = batches.length === 1 ? batches[0].events : batches.flatMap((b) => b.events);
        const changes = batches.every((b) => b.changes) ? batches.flatMap((b) => b.changes!) : undefined;
        this.delivered = events[events.length - 1].revision;
        for (const [prefix, group] of this.groups) {
          const matching = events.filter((e) => e.key.startsWith(prefix));
          if (!matching.length) continue;
          const shared = matching.length === events.length ? events : matching;
          for (const w of group.all) w.push(shared, true);
          if (group.byValue.size) deliverByValue(group.byValue, prefix, events, changes);
        }
      }
      // Swapped, not copied: watchers that ask again while draining wait for the next turn.
      const ws = this.ready;
      this.ready = new Set();
      for (const w of ws) w.drain();
    } finally {
      this.flushing = false;
    }
    if (this.ready.size || this.pending.length) this.request();
    else if (this.idleWaiters.length) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };
}

function getOrAdd<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

/**
 * Hands each watcher of `byValue` the changes under `prefix` whose object had or has its value,
 * one shared array per value. Without index values (a batch published without them), every
 * change goes to every one of them, as to an unindexed watcher.
 */
function deliverByValue(byValue: Map<string, Set<CacheWatcher>>, prefix: string, events: StorageEvent[], changes?: IndexChange[]): void {
  const perValue = new Map<string, StorageEvent[]>();
  const add = (value: string | undefined, ev: StorageEvent) => {
    if (value !== undefined && byValue.has(value)) getOrAddList(perValue, value).push(ev);
  };
  for (let i = 0; i < events.length; i++) {
    const ev = events[i];
    if (!ev.key.startsWith(prefix)) continue;
    if (!changes) {
      for (const value of byValue.keys()) getOrAddList(perValue, value).push(ev);
      continue;
    }
    const { before, after } = changes[i];
    add(before, ev);
    if (after !== before) add(after, ev);
  }
  for (const [value, evs] of perValue) for (const w of byValue.get(value)!) w.push(evs, true);
}

function getOrAddList<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}
