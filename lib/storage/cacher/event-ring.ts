/**
 * The most recent changes of one resource, bounded, in revision order, shared by every watcher:
 * a watch that resumes from a revision the ring still covers is replayed from memory.
 */
import { StorageEvent } from '../interfaces';

export class EventRing {
  /** Grows to `capacity` as events come: most resources never fill a ring, and 10,000 empty slots took 80 KB each. */
  private readonly buf: (StorageEvent | undefined)[] = [];
  private head = 0;
  private length = 0;
  /** Every event with a revision above this one is retained. */
  private start: number;

  constructor(readonly capacity: number, startRevision: number) {
    if (!(capacity >= 1)) throw new RangeError('event ring capacity must be at least 1');
    this.start = startRevision;
  }

  /**
   * The oldest revision a watch may resume from: events after it are all retained. Below it,
   * changes may have been dropped (or happened before the cache was filled).
   */
  get startRevision(): number {
    return this.start;
  }

  get size(): number {
    return this.length;
  }

  /** Drops every event and makes `revision` the new start (after a re-list). */
  reset(revision: number): void {
    this.buf.length = 0;
    this.head = 0;
    this.length = 0;
    this.start = revision;
  }

  /** Appends events (revisions not below those already held), evicting the oldest when full. */
  push(events: readonly StorageEvent[]): void {
    const cap = this.capacity;
    for (const ev of events) {
      if (this.length === cap) {
        const evicted = this.buf[this.head] as StorageEvent;
        // Other events of the evicted revision may remain, but replays start above `start`.
        this.start = Math.max(this.start, evicted.revision);
        this.head = (this.head + 1) % cap;
        this.length--;
      }
      this.buf[(this.head + this.length) % cap] = ev;
      this.length++;
    }
  }

  /** Retained events with a revision above `afterRevision`, oldest first. */
  since(afterRevision: number): StorageEvent[] {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= afterRevision) lo = mid + 1;
      else hi = mid;
    }
    const out: StorageEvent[] = new Array(this.length - lo);
    for (let i = lo; i < this.length; i++) out[i - lo] = this.at(i);
    return out;
  }

  /** Whether a retained event with a revision above `afterRevision` has a key starting with `prefix`. */
  changedSince(afterRevision: number, prefix: string): boolean {
    for (let i = this.length - 1; i >= 0; i--) {
      const ev = this.at(i);
      if (ev.revision <= afterRevision) return false;
      if (ev.key.startsWith(prefix)) return true;
    }
    return false;
  }

  private at(i: number): StorageEvent {
    return this.buf[(this.head + i) % this.capacity] as StorageEvent;
  }
}
