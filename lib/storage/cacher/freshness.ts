/**
 * Decides whether the cache equals etcd's current state, so that a consistent read (no
 * resourceVersion) may be served from memory. Checks are shared: a caller joins a revision read
 * that has not started yet, else waits for the next one, so a check always starts after its
 * callers called (their reads are linearizable) and at most one revision read and one catching-up
 * loop run at a time however many callers wait.
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

/** A caller of check(): settled once the cache reaches `target`, or at `deadline` with undefined. */
interface Waiter {
  target: number;
  deadline: number;
  resolve(revision: number | undefined): void;
}

export class FreshnessChecker {
  /** The revision read in flight: it may have been answered before a later caller called. */
  private reading?: Promise<void>;
  /** The callers that will share the revision read after the one in flight. */
  private queued?: Promise<number | undefined>;
  /** Callers with their target, waiting for the cache to reach it. */
  private waiters: Waiter[] = [];
  private catchingUp = false;

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
   *
   * Step 1's reads are the only thing callers queue for (one in flight, the callers meanwhile
   * sharing the next); step 2 is one loop for every caller, working toward the newest target, so
   * a caller never waits for an earlier caller's catching up before its own begins.
   */
  check(): Promise<number | undefined> {
    if (this.queued) return this.queued;
    if (!this.reading) return this.start();
    const next = this.reading.then(() => {
      this.queued = undefined;
      return this.start();
    });
    this.queued = next;
    return next;
  }

  private start(): Promise<number | undefined> {
    if (!this.subject.ready) return Promise.resolve(undefined);
    const deadline = Date.now() + this.timeoutMs;
    const read = this.currentRevision();
    const reading = read.then(() => undefined, () => undefined);
    this.reading = reading;
    void reading.then(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    return read.then((target) => new Promise<number | undefined>((resolve) => {
      this.waiters.push({ target, deadline, resolve });
      void this.catchUp();
    }), () => undefined);
  }

  /** Settles the waiters the cache has reached, or whose time is up; true while any remain. */
  private settle(): boolean {
    const s = this.subject;
    const now = Date.now();
    this.waiters = this.waiters.filter((w) => {
      if (s.ready && s.revision < w.target && now < w.deadline) return true;
      w.resolve(s.ready && s.revision >= w.target ? s.revision : undefined);
      return false;
    });
    return this.waiters.length > 0;
  }

  private async catchUp(): Promise<void> {
    if (this.catchingUp) return;
    this.catchingUp = true;
    const s = this.subject;
    try {
      while (this.settle()) {
        const target = Math.max(...this.waiters.map((w) => w.target));
        const deadline = Math.min(...this.waiters.map((w) => w.deadline));
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
        // Changes after the newest target are not waited for (no chasing of later writes).
        await s.waitForApplied(Math.min(Math.max(p.maxModRevision, since + 1), target), deadline);
      }
    } catch {
      // etcd failed: every waiter reads etcd itself.
      for (const w of this.waiters.splice(0)) w.resolve(undefined);
    } finally {
      this.catchingUp = false;
    }
  }
}
