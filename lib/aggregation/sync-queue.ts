/**
 * A small work queue for the aggregation layer's fetchers, in the manner of client-go's
 * rate-limited workqueue: a name added while queued is queued once; a name added while its sync
 * runs is synced again afterwards; a sync that fails is retried after a delay that doubles (from
 * `retryMinMs` to `retryMaxMs`) until one succeeds. Syncs run `workers` at a time (kube: 2).
 * Also the refresh timer: every name marked dirty every `intervalMs` (kube: 1 minute).
 */

export interface SyncQueueOptions {
  /** Resolves true when done, false (or rejects) to be retried later. */
  sync: (name: string) => Promise<boolean>;
  workers?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  onError?: (name: string, err: unknown) => void;
}

/**
 * How often the extension servers' discovery and OpenAPI documents are fetched again without a
 * change of their APIService (kube-aggregator: every minute). Tests shorten it before a server
 * starts; it is not a flag.
 */
export const refreshTimings = { intervalMs: 60_000 };

export class SyncQueue {
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: SyncQueueOptions) {}

  add(name: string): void {
    if (this.stopped) return;
    const t = this.retryTimers.get(name);
    if (t) { clearTimeout(t); this.retryTimers.delete(name); }
    if (this.running.has(name)) { this.again.add(name); return; }
    this.queued.add(name);
    this.pump();
  }

  /** Resolves when nothing is queued or running (retries waiting on their timers do not count). */
  idle(): Promise<void> {
    if (!this.queued.size && !this.active) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.retryTimers.values()) clearTimeout(t);
    this.retryTimers.clear();
    this.queued.clear();
  }

  private pump(): void {
    while (!this.stopped && this.active < (this.opts.workers ?? 2) && this.queued.size) {
      const name = this.queued.values().next().value as string;
      this.queued.delete(name);
      this.running.add(name);
      this.active++;
      void this.run(name);
    }
    if (!this.queued.size && !this.active) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async run(name: string): Promise<void> {
    let ok = false;
    try {
      ok = await this.opts.sync(name);
    } catch (err) {
      this.opts.onError?.(name, err);
    }
    this.running.delete(name);
    this.active--;
    if (this.again.delete(name)) {
      this.queued.add(name);
    } else if (ok) {
      this.failures.delete(name);
    } else if (!this.stopped) {
      const n = (this.failures.get(name) ?? 0) + 1;
      this.failures.set(name, n);
      const delay = Math.min((this.opts.retryMinMs ?? 500) * 2 ** (n - 1), this.opts.retryMaxMs ?? 30_000);
      const timer = setTimeout(() => { this.retryTimers.delete(name); this.add(name); }, delay);
      timer.unref();
      this.retryTimers.set(name, timer);
    }
    this.pump();
  }
}

/** Calls `tick` every `refreshTimings.intervalMs` until the returned function is called. */
export function every(tick: () => void): () => void {
  const timer = setInterval(tick, refreshTimings.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
