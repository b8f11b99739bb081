/**
 * A controller's work queue (client-go's rate-limited workqueue, in small): a key added while it
 * waits is queued once; a key being processed is never handed out twice at a time, and if added
 * meanwhile it runs once more afterwards. A key whose processing throws comes back after an
 * exponentially growing delay, as does one whose processing resolves `false` (a quiet "not yet":
 * nothing is reported); success resets its delay. A key added while it waits for a retry runs at
 * once (its delay keeps growing if it fails again).
 */
export interface WorkQueueOptions {
  /** Keys processed at the same time; default 4. */
  workers?: number;
  /** First retry delay; default 50 ms. */
  baseDelayMs?: number;
  /** Retry delay cap; default 30 s. */
  maxDelayMs?: number;
  /** Told about every failure (the key is retried regardless). */
  onError?(key: string, err: unknown): void;
}

export class WorkQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly workers: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly settledWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly handle: (key: string) => Promise<void | boolean>, private readonly opts: WorkQueueOptions = {}) {
    this.workers = opts.workers ?? 4;
    this.baseDelayMs = opts.baseDelayMs ?? 50;
    this.maxDelayMs = opts.maxDelayMs ?? 30_000;
  }

  /** Queues `key` (no-op when it already waits). */
  add(key: string): void {
    if (this.stopped) return;
    const timer = this.timers.get(key);
    if (timer) {
      clearTimeout(timer);
      this.timers.delete(key);
    }
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.waiting.push(key);
    this.pump();
  }

  /** Nothing waiting, running or scheduled for retry. */
  get idle(): boolean {
    return !this.waiting.length && !this.processing.size && !this.timers.size;
  }

  /** Resolves once nothing waits or is being processed (keys waiting for a retry do not count). */
  settled(): Promise<void> {
    if (!this.waiting.length && !this.processing.size) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Takes no more work; resolves when the keys being processed are done (or after `graceMs`). */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    this.timers.clear();
    this.waiting.length = 0;
    this.queued.clear();
    for (const w of this.settledWaiters.splice(0)) w();
    const running = Promise.allSettled([...this.inFlight]);
    await Promise.race([running, new Promise((r) => setTimeout(r, graceMs).unref())]);
  }

  private pump(): void {
    while (!this.stopped && this.processing.size < this.workers && this.waiting.length) {
      const key = this.waiting.shift() as string;
      this.queued.delete(key);
      this.processing.add(key);
      const p = this.run(key);
      this.inFlight.add(p);
      void p.finally(() => this.inFlight.delete(p));
    }
    if (!this.waiting.length && !this.processing.size) for (const w of this.settledWaiters.splice(0)) w();
  }

  private async run(key: string): Promise<void> {
    try {
      if (await this.handle(key) === false) this.retryLater(key);
      else this.failures.delete(key);
    } catch (err) {
      this.opts.onError?.(key, err);
      this.retryLater(key);
    } finally {
      this.processing.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }

  private retryLater(key: string): void {
    if (this.stopped || this.timers.has(key)) return;
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (n - 1));
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delay));
  }
}
