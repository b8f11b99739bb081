/**
 * Answers about tokens kept for a while, keyed by the token's SHA-256 digest: the token itself is
 * never a cache key, so answers outlive no connection holding their token (only a live
 * connection's last token is kept, beside its digest, by the bearer authenticator).
 * Bounded: past `maxEntries`, the oldest go.
 */
import { createHash } from 'node:crypto';

/**
 * The digest of the token being authenticated right now, handed over by the bearer-token
 * authenticator (which remembers it per connection: a client sends the same token on every
 * request, and hashing ~1 KiB costs ~2 us, most of a cached authentication).
 */
let current: TokenDigest | undefined;

export interface TokenDigest { readonly token: string; readonly digest: string }

interface Entry<T> { value: T; expiresAt: number }

export class TokenCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly maxEntries = 8192) {}

  static keyOf(token: string): string {
    if (current && current.token === token) return current.digest;
    return createHash('sha256').update(token).digest('base64');
  }

  /** The token with its digest (computed once; keep it to hand to useDigest). */
  static digest(token: string): TokenDigest {
    return { token, digest: createHash('sha256').update(token).digest('base64') };
  }

  /** keyOf(d.token) answers d.digest until the next call (see `current`); undefined forgets it. */
  static useDigest(d: TokenDigest | undefined): void {
    current = d;
  }

  get(key: string, now = Date.now()): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (now >= e.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: T, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + ttlMs });
    if (this.entries.size > this.maxEntries) {
      // Maps iterate in insertion order: the first keys are the oldest.
      for (const k of this.entries.keys()) {
        this.entries.delete(k);
        if (this.entries.size <= this.maxEntries) break;
      }
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
