/**
 * The cache's keys in etcd's order, kept in chunks of at most MAX_CHUNK keys: adding or removing
 * a key moves at most one chunk (a plain sorted array moved everything after it, which with
 * 100,000 keys costs more than the rest of a create), while a list is still a binary search plus
 * a walk in order.
 */
import { compareKeys, comparesNatively, lowerBound, prefixEndIndex } from './key-order';

const MAX_CHUNK = 512;

export class SortedKeys {
  /** Non-empty chunks; every key of a chunk sorts before every key of the next. */
  private chunks: string[][] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }

  /** Replaces the content with `sorted` (ascending by compareKeys, no duplicates). */
  reset(sorted: readonly string[]): void {
    const half = MAX_CHUNK >> 1;
    this.chunks = [];
    for (let i = 0; i < sorted.length; i += half) this.chunks.push(sorted.slice(i, i + half));
    this.size = sorted.length;
  }

  /** Adds `key`, which must not be present. */
  insert(key: string): void {
    if (!this.chunks.length) {
      this.chunks.push([key]);
      this.size = 1;
      return;
    }
    const ci = this.chunkFor(key);
    const chunk = this.chunks[ci];
    chunk.splice(lowerBound(chunk, key), 0, key);
    this.size++;
    if (chunk.length > MAX_CHUNK) this.chunks.splice(ci, 1, chunk.slice(0, chunk.length >> 1), chunk.slice(chunk.length >> 1));
  }

  /** Removes `key`; false when it was not present. */
  remove(key: string): boolean {
    if (!this.chunks.length) return false;
    const ci = this.chunkFor(key);
    const chunk = this.chunks[ci];
    const i = lowerBound(chunk, key);
    if (i >= chunk.length || chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.size--;
    if (!chunk.length) this.chunks.splice(ci, 1);
    return true;
  }

  /**
   * The keys from `from` (inclusive; not before `prefix`) up to the last one starting with
   * `prefix`: at most `limit` of them (0: all), and how many there are in all.
   */
  range(from: string, prefix: string, limit: number): { keys: string[]; count: number } {
    const keys: string[] = [];
    let count = 0;
    if (!this.chunks.length) return { keys, count };
    const first = this.chunkFor(from);
    for (let ci = first; ci < this.chunks.length; ci++) {
      const chunk = this.chunks[ci];
      const start = ci === first ? lowerBound(chunk, from) : 0;
      const end = prefixEndIndex(chunk, prefix, start);
      const want = limit > 0 ? Math.min(end, start + Math.max(0, limit - keys.length)) : end;
      for (let i = start; i < want; i++) keys.push(chunk[i]);
      count += end - start;
      if (end < chunk.length) break;
    }
    return { keys, count };
  }

  /** The first chunk whose last key is not before `key` (the last chunk when there is none). */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    const native = comparesNatively(key);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid];
      const last = chunk[chunk.length - 1];
      if (native ? last < key : compareKeys(last, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
