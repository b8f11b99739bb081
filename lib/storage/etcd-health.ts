/**
 * The `etcd` health check (and `etcd-readiness` on /readyz), with kube-apiserver's limits:
 * at most one probe of etcd per half of the check's timeout (--etcd-healthcheck-timeout,
 * --etcd-readycheck-timeout, 2 s each by default); a check in between answers with the outcome
 * of the newest probe sent. Load balancers and kubelets probing often cost etcd nothing more.
 *
 * Two refinements over that rule, both from what the etcd client saw (EtcdKv.quorumHealth):
 * - A failure the client saw (a lost connection, a missed deadline, "no leader") voids a stored
 *   "ok": the next check probes at once, so an outage shows on the next check, not up to a
 *   second later.
 * - When a probe is due and the client had a Txn answered within the last half-timeout, with no
 *   failure since, that answer is the probe: a Txn is answered only once a quorum has agreed
 *   (a read-only Txn is a linearizable read), which is what the probe's read proves. A busy
 *   server then answers health checks without waiting in etcd's queue behind its own writes.
 */
import type { QuorumHealth } from './etcd3/kv';

export interface EtcdHealthCheckOptions {
  /** A probe fails when etcd has not answered within this; probes run at most every timeoutMs / 2. */
  timeoutMs: number;
  /** A linearizable read of etcd. */
  probe: () => Promise<unknown>;
  /** What the etcd client saw (times on the Date.now() clock); undefined when it does not say. */
  evidence?: () => QuorumHealth | undefined;
  now?: () => number;
}

interface Outcome { error?: Error; at: number }

const settled = (o: Outcome): Promise<void> => (o.error ? Promise.reject(o.error) : Promise.resolve());

export class EtcdHealthCheck {
  private readonly intervalMs: number;
  private readonly now: () => number;
  /** Before this, no new probe (the rate limit: one per interval, a burst of one). */
  private nextProbeAt = -Infinity;
  /** The newest probe's outcome, `at` the time it was sent. */
  private last: Outcome | undefined;
  /** The probe in flight, if any: a check with no outcome to give (none yet, or voided) waits for it. */
  private pending: { at: number; done: Promise<void> } | undefined;

  constructor(private readonly opts: EtcdHealthCheckOptions) {
    if (!(opts.timeoutMs > 0)) throw new Error('the etcd health check timeout must be positive');
    this.intervalMs = opts.timeoutMs / 2;
    this.now = opts.now ?? Date.now;
  }

  /** Resolves when etcd is healthy; rejects with the reason when not (for the log, never a response). */
  check(): Promise<void> {
    const now = this.now();
    const seen = this.opts.evidence?.();
    const last = this.last;
    const voided = last !== undefined && last.error === undefined && seen !== undefined && seen.failedAt >= last.at;
    if (now < this.nextProbeAt) {
      if (last !== undefined && !voided) return settled(last);
      // No outcome to give (none yet, or voided): the probe in flight, when it was sent after the failure.
      const pending = this.pending;
      if (pending !== undefined && (last === undefined || pending.at > seen!.failedAt)) return pending.done;
    }
    this.nextProbeAt = now + this.intervalMs;
    if (seen !== undefined && seen.answeredAt > seen.failedAt && now - seen.answeredAt <= this.intervalMs) {
      // The answer counts as a probe sent when it came; a newer probe's failure still stands.
      this.store({ at: seen.answeredAt });
      return settled(this.last!);
    }
    const probing = this.probe(now);
    const entry = { at: now, done: probing };
    this.pending = entry;
    const clear = () => { if (this.pending === entry) this.pending = undefined; };
    void probing.then(clear, clear);
    return probing;
  }

  private async probe(sentAt: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`etcd did not answer within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
    });
    try {
      await Promise.race([this.opts.probe(), deadline]);
    } catch (err) {
      const error = new Error(`error getting data from etcd: ${(err as Error)?.message ?? String(err)}`);
      this.store({ error, at: sentAt });
      throw error;
    } finally {
      clearTimeout(timer);
    }
    this.store({ at: sentAt });
  }

  /** Keeps an outcome unless a newer probe's is already stored (probes may finish out of order). */
  private store(o: Outcome): void {
    if (this.last === undefined || this.last.at <= o.at) this.last = o;
  }
}
