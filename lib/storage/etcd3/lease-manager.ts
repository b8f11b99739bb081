/**
 * Leases for keys that expire (events, `--event-ttl`), as kube-apiserver's lease manager hands
 * them out: one lease is shared by the writes of a short window instead of one lease per write.
 * A write asking for `ttl` seconds gets the current lease when it still lives at least `ttl`
 * seconds and at most `ttl + reuse` seconds from now; otherwise a new lease of `ttl + reuse`
 * seconds is granted. `reuse` is 5% of the TTL, at most 60 s. So a key lives between `ttl` and
 * `ttl + reuse` seconds after its last write, and etcd holds about one lease per `reuse` seconds
 * of writes.
 */
import type { EtcdKv } from './kv';

const REUSE_FRACTION = 0.05;
const MAX_REUSE_SECONDS = 60;

export class LeaseManager {
  private current: { id: bigint; expiresAt: number; ttl: number } | undefined;
  /** A grant in flight, shared by the writes that ask meanwhile. */
  private granting: { ttl: number; promise: Promise<bigint> } | undefined;

  constructor(private readonly kv: Pick<EtcdKv, 'leaseGrant'>, private readonly now: () => number = Date.now) {}

  /** A lease under which a key lives at least `ttlSeconds`. */
  lease(ttlSeconds: number): Promise<bigint> {
    const reuse = Math.min(Math.floor(ttlSeconds * REUSE_FRACTION), MAX_REUSE_SECONDS);
    const now = this.now();
    const c = this.current;
    if (c && c.ttl === ttlSeconds && now + ttlSeconds * 1000 < c.expiresAt && now + (ttlSeconds + reuse) * 1000 >= c.expiresAt) {
      return Promise.resolve(c.id);
    }
    if (this.granting && this.granting.ttl === ttlSeconds) return this.granting.promise;
    const promise = this.kv.leaseGrant(ttlSeconds + reuse).then((res) => {
      // Counted from before the request: the lease may end a little earlier than etcd says, never later.
      this.current = { id: res.id, expiresAt: now + res.ttl * 1000, ttl: ttlSeconds };
      return res.id;
    }).finally(() => {
      if (this.granting?.promise === promise) this.granting = undefined;
    });
    this.granting = { ttl: ttlSeconds, promise };
    return promise;
  }
}
