/**
 * The rate limiters of EventRateLimit: client-go's token bucket (golang.org/x/time/rate: it starts
 * full with `burst` tokens and refills at `qps` a second up to `burst`; TryAccept takes one token
 * or refuses) and the least-recently-used cache of buckets, one per key, that Kubernetes keeps
 * for the Namespace, User and SourceAndObject limits (the Server limit has one bucket).
 */

export type Clock = () => number;

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(private readonly qps: number, private readonly burst: number, private readonly clock: Clock) {
    this.tokens = burst;
    this.last = clock();
  }

  /** Takes a token if there is one. */
  tryAccept(): boolean {
    const now = this.clock();
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
    }
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}

/** At most `size` buckets by key; the least recently used goes when a new key needs room. */
export class BucketCache {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly size: number, private readonly make: () => TokenBucket) {}

  get(key: string): TokenBucket {
    let bucket = this.buckets.get(key);
    if (bucket) {
      // Map keeps insertion order: re-inserting marks the key most recently used.
      this.buckets.delete(key);
    } else {
      bucket = this.make();
      if (this.buckets.size >= this.size) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    this.buckets.set(key, bucket);
    return bucket;
  }

  get length(): number {
    return this.buckets.size;
  }
}
