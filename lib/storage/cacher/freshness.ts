/**
 * Decides whether the cache equals etcd's current state, so that a consistent read (no
 * resourceVersion) may be served from memory. Checks are shared: a caller joins a check that has
 * not started yet, else waits for the next one, so a check always starts after its callers
 * called (their reads are linearizable) and at most one runs at a time however many callers wait.
 *
 * One check:
 *  1. Read etcd's current revision C (the cheapest linearizable read). If the cache is known to
 *     be at C or later, it is fresh.
 *  2. Otherwise ask the probe, at etcd's revision R >= C, which keys changed after the cache's
 *     last applied revision A and how many keys exist. None changed and the count equals the
 *     cache's size: every key at R existed unchanged at A and no key is missing, so the state at
 *     A equals the state at R (writes since A went to other resources). Else the watch has yet
 *     to deliver something: wait for it and ask again, until the timeout.
 */

export interface ProbeResult {
  /** Keys under the prefix whose mod_revision is above the asked revision. */
  changedKeys: number;
  /** The highest mod_revision among those keys; 0 when none. */
  maxModRevision: number;
  /** Every key under the prefix (before the mod_revision filter). */
  count: number;
  /** The etcd revision the answer was read at. */
  revision: number;
}

export interface FreshnessProbe {
  /** One linearizable read of `prefix` (ending in '/') reporting the changes after `sinceRevision`. */
  probe(prefix: string, sinceRevision: number): Promise<ProbeResult>;
}

/** What a check needs to know about, and tell, the cache. */
export interface FreshnessSubject {
  /** The cache is filled and watching; a check on a cache that is not answers undefined. */
  readonly ready: boolean;
  /** Revision of the last change applied from the watch (or of the last fill). */
  readonly appliedRevision: number;
  /** The etcd revision the cached state is known to equal; at least appliedRevision. */
  readonly revision: number;
  /** Number of cached keys. */
  readonly size: number;
  /** Records that the state, unchanged since `appliedRevision`, equals etcd's at `etcdRevision`. */
  confirm(appliedRevision: number, etcdRevision: number): void;
  /** Resolves once the cache has applied `revision` (or was re-filled), or at `deadline` (ms epoch). */
  waitForApplied(revision: number, deadline: number): Promise<void>;
}

export class FreshnessChecker {
  private running?: Promise<number | undefined>;
  private queued?: Promise<number | undefined>;

  /**
   * @param currentRevision etcd's current revision (a linearizable read)
   * @param probe without one, step 2 only waits for the watch to reach C
   * @param timeoutMs how long one check may wait for the watch to catch up
   */
  constructor(
    private readonly prefix: string,
    private readonly subject: FreshnessSubject,
    private readonly currentRevision: () => Promise<number>,
    private readonly probe: FreshnessProbe | undefined,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The etcd revision the cache is consistent with, at least etcd's revision when this was
   * called; undefined when the cache could not confirm it in time (the caller reads etcd).
   * When it resolves, the cache's `revision` is at least the result. Never rejects.
   */
  check(): Promise<number | undefined> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const next = this.running.then(() => {
      this.queued = undefined;
      return this.start();
    });
    this.queued = next;
    return next;
  }

  private start(): Promise<number | undefined> {
    const run = this.run().catch(() => undefined).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async run(): Promise<number | undefined> {
    const s = this.subject;
    if (!s.ready) return undefined;
    const deadline = Date.now() + this.timeoutMs;
    const target = await this.currentRevision();
    for (;;) {
      if (!s.ready) return undefined;
      if (s.revision >= target) return s.revision;
      if (Date.now() >= deadline) return undefined;
      const since = s.appliedRevision;
      if (!this.probe) {
        await s.waitForApplied(target, deadline);
        continue;
      }
      const size = s.size;
      const p = await this.probe.probe(this.prefix, since);
      if (s.appliedRevision !== since) continue; // the watch moved meanwhile: look again
      if (p.changedKeys === 0 && p.count === size) {
        s.confirm(since, p.revision);
        continue;
      }
      // Changed keys arrive up to maxModRevision; a missing count alone means pending deletes.
      await s.waitForApplied(Math.max(p.maxModRevision, since + 1), deadline);
    }
  }
}
