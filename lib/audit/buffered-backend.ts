/**
 * The batching wrapper of an audit backend (kube-apiserver's `batch` mode, plugin/pkg/audit/
 * buffered): events wait in a bounded buffer and reach the delegate in batches of at most
 * maxBatchSize, sent when a batch is full or maxBatchWait after its first event, at most
 * throttleQPS batches a second (throttleBurst at once). processEvents never waits: when the
 * buffer is full the events are dropped, counted in apiserver_audit_error_total and logged.
 */
import type { AuditBackend, AuditEvent } from './types';

/** A delegate that sends asynchronously (the webhook): batches then overlap, as kube's AsyncDelegate. */
export interface AsyncAuditBackend extends AuditBackend {
  /** Sends one batch; settles when done (never rejects: failures are counted by the delegate). */
  sendBatch(events: AuditEvent[]): Promise<void>;
}

export interface BatchConfig {
  /** Events held before new ones are dropped. */
  bufferSize: number;
  maxBatchSize: number;
  /** Milliseconds a batch that is not full waits; unused when maxBatchSize is 1. */
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  /** Batches per second, and how many may go at once after a quiet spell. */
  throttleQPS: number;
  throttleBurst: number;
}

export interface BufferedBackendOptions extends BatchConfig {
  /** apiserver_audit_error_total: `errors(plugin, events)`. */
  metrics: { errors(plugin: string, count: number): void };
  log: { warn(msg: string, meta?: Record<string, unknown>): void };
  /** How long shutdown() may take to hand over what is buffered (default 10 s). */
  shutdownTimeoutMs?: number;
  /** Least interval between two "buffer full" log lines (default 10 s). */
  dropLogIntervalMs?: number;
}

/** A token bucket, as client-go's flowcontrol: `take` resolves when a token is available. */
class TokenBucket {
  private tokens: number;
  private last = Date.now();
  constructor(private readonly qps: number, private readonly burst: number) {
    this.tokens = burst;
  }

  /** Milliseconds until a token is free, taking it (reservations may run the bucket negative). */
  reserve(): number {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Wraps `delegate`; its name (`log`, `webhook`) labels the errors counted here. */
export class BufferedBackend implements AuditBackend {
  readonly name: string;
  private readonly queue: AuditEvent[] = [];
  private readonly throttle?: TokenBucket;
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private pumping?: Promise<void>;
  /** The timer fired (or shutdown began): send what is buffered even if no batch is full. */
  private due = false;
  private stopped = false;
  private lastDropLog = 0;
  private droppedSinceLog = 0;

  constructor(private readonly delegate: AuditBackend | AsyncAuditBackend, private readonly opts: BufferedBackendOptions) {
    this.name = delegate.name;
    if (opts.throttleEnable) this.throttle = new TokenBucket(opts.throttleQPS, opts.throttleBurst);
  }

  /** Events buffered and not yet handed to the delegate. */
  get buffered(): number {
    return this.queue.length;
  }

  processEvents(events: AuditEvent[]): void {
    if (this.stopped) {
      this.dropped(events.length, 'audit backend shut down');
      return;
    }
    const room = Math.max(0, this.opts.bufferSize - this.queue.length);
    for (let i = 0; i < events.length && i < room; i++) this.queue.push(events[i]);
    if (events.length > room) this.dropped(events.length - room, 'audit buffer queue blocked');
    this.schedule();
  }

  /** Hands every buffered event over (bounded by shutdownTimeoutMs), then stops the delegate. */
  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.due = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + (this.opts.shutdownTimeoutMs ?? 10_000);
    while ((this.queue.length || this.pumping) && Date.now() < deadline) {
      await Promise.race([this.pumping ?? this.pump(), sleep(deadline - Date.now())]);
    }
    if (this.inFlight.size && Date.now() < deadline) {
      await Promise.race([Promise.allSettled([...this.inFlight]), sleep(deadline - Date.now())]);
    }
    if (this.queue.length) this.dropped(this.queue.splice(0).length, 'audit backend shut down before the buffer was sent');
    await this.delegate.shutdown();
  }

  /** Starts sending now (a full batch) or arms the wait timer for a partial one. */
  private schedule(): void {
    if (this.pumping || !this.queue.length) return;
    if (this.queue.length >= this.opts.maxBatchSize || this.opts.maxBatchSize <= 1 || this.due) {
      // A macrotask away: the request that recorded the event never runs the delegate.
      this.pumping = new Promise<void>((r) => setImmediate(r)).then(() => this.pump());
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.due = true;
      this.schedule();
    }, this.opts.maxBatchWaitMs).unref();
  }

  /** Sends batches while one is full (or due); one pump at a time. */
  private async pump(): Promise<void> {
    try {
      while (this.queue.length && (this.queue.length >= this.opts.maxBatchSize || this.opts.maxBatchSize <= 1 || this.due)) {
        const wait = this.throttle?.reserve() ?? 0;
        if (wait > 0) await sleep(wait);
        this.send(this.queue.splice(0, this.opts.maxBatchSize));
      }
    } finally {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.due = this.stopped;
      this.pumping = undefined;
    }
    this.schedule();
  }

  private send(batch: AuditEvent[]): void {
    if (!batch.length) return;
    const d = this.delegate as Partial<AsyncAuditBackend>;
    if (typeof d.sendBatch === 'function') {
      const p: Promise<void> = d.sendBatch(batch).catch((err: Error) => this.failed(batch.length, err));
      this.inFlight.add(p);
      void p.finally(() => this.inFlight.delete(p));
      return;
    }
    try {
      this.delegate.processEvents(batch);
    } catch (err) {
      this.failed(batch.length, err as Error);
    }
  }

  private failed(count: number, err: Error): void {
    this.opts.metrics.errors(this.name, count);
    this.opts.log.warn(`Error in audit plugin '${this.name}' affecting ${count} audit events: ${err.message}`);
  }

  /** Counts every dropped event; logs at most once per interval, with the count since the last line. */
  private dropped(count: number, reason: string): void {
    if (count <= 0) return;
    this.opts.metrics.errors(this.name, count);
    this.droppedSinceLog += count;
    const now = Date.now();
    if (now - this.lastDropLog < (this.opts.dropLogIntervalMs ?? 10_000) && !this.stopped) return;
    this.opts.log.warn(`Error in audit plugin '${this.name}' affecting ${this.droppedSinceLog} audit events: ${reason}`,
      { plugin: this.name, events: this.droppedSinceLog, bufferSize: this.opts.bufferSize });
    this.lastDropLog = now;
    this.droppedSinceLog = 0;
  }
}
