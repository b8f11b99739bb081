/**
 * Fans the cache's changes out to its watchers. Publishing only queues (filtered once per
 * distinct watch prefix, arrays shared between watchers); delivery happens in one later turn of
 * the event loop, so a consumer never runs inside the etcd watch callback.
 */
import { StorageEvent } from '../interfaces';
import { CacheWatcher } from './cache-watcher';

export class WatchDispatcher {
  private readonly groups = new Map<string, Set<CacheWatcher>>();
  private readonly ready = new Set<CacheWatcher>();
  private scheduled = false;
  private count = 0;

  /** Number of open watchers. */
  get size(): number {
    return this.count;
  }

  add(w: CacheWatcher): void {
    let group = this.groups.get(w.prefix);
    if (!group) this.groups.set(w.prefix, (group = new Set()));
    if (!group.has(w)) this.count++;
    group.add(w);
  }

  remove(w: CacheWatcher): void {
    const group = this.groups.get(w.prefix);
    if (!group?.delete(w)) return;
    this.count--;
    this.ready.delete(w);
    if (!group.size) this.groups.delete(w.prefix);
  }

  /** Queues a batch of changes (revision order) to every watcher whose prefix matches. */
  publish(events: StorageEvent[]): void {
    for (const [prefix, group] of this.groups) {
      const matching = events.filter((e) => e.key.startsWith(prefix));
      if (!matching.length) continue;
      const shared = matching.length === events.length ? events : matching;
      for (const w of group) w.push(shared, true);
    }
  }

  /** Asks for `w.drain()` in a later turn; many requests share one turn. */
  readonly schedule = (w: CacheWatcher): void => {
    this.ready.add(w);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  };

  /** Ends every watcher with `err` (each gets onError unless it closes first). */
  failAll(err: Error): void {
    for (const group of [...this.groups.values()]) for (const w of [...group]) w.fail(err);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const ws = [...this.ready];
    this.ready.clear();
    for (const w of ws) w.drain();
  };
}
