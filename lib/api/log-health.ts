/**
 * The `log` health check, as kube-apiserver's: on /healthz, /livez and /readyz, listed right after
 * `ping`. kube-apiserver flushes its log once a minute from the first check on and fails the check
 * ("logging blocked") when no flush has finished for two minutes.
 *
 * Here a "flush" is the log's queues emptying: winston's logger stream, its transports, the streams
 * they write to, and stderr (when stderr is asynchronous) hold no line not yet written. Once a minute the check waits for
 * that (looking again every second); while it has not happened for two minutes, the check fails.
 * A process whose stderr blocks synchronously (a pipe nobody reads, on Linux) stops altogether, and
 * its probes time out, which says the same thing.
 */
import type winston from 'winston';

export interface LogHealthCheckOptions {
  /** Whether every line logged so far has been written out. */
  drained: () => boolean;
  /** Default 60 s, as kube-apiserver. */
  flushEveryMs?: number;
  /** While waiting for a flush, how often to look again. Default 1 s. */
  pollMs?: number;
  /** The check fails when the last flush is older. Default 120 s, as kube-apiserver. */
  blockedAfterMs?: number;
  now?: () => number;
}

export class LogHealthCheck {
  private readonly drained: () => boolean;
  private readonly flushEveryMs: number;
  private readonly pollMs: number;
  private readonly blockedAfterMs: number;
  private readonly now: () => number;
  private lastVerified = 0;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;

  constructor(opts: LogHealthCheckOptions) {
    this.drained = opts.drained;
    this.flushEveryMs = opts.flushEveryMs ?? 60_000;
    this.pollMs = opts.pollMs ?? 1_000;
    this.blockedAfterMs = opts.blockedAfterMs ?? 120_000;
    this.now = opts.now ?? Date.now;
  }

  /** The health check: starts the flushes on first use, as kube-apiserver's. */
  check(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.lastVerified = this.now();
      this.schedule(this.flushEveryMs);
    }
    if (this.now() - this.lastVerified < this.blockedAfterMs) return Promise.resolve();
    return Promise.reject(new Error('logging blocked'));
  }

  /** Ends the timer (server shutdown). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.flush(), ms);
    this.timer.unref();
  }

  private flush(): void {
    if (this.drained()) {
      this.lastVerified = this.now();
      this.schedule(this.flushEveryMs);
    } else {
      this.schedule(this.pollMs);
    }
  }
}

/**
 * Whether winston `logger` has written out every line it was given: its own queue, each
 * transport's, the stream a transport writes to (a Stream transport's, a File transport's), and
 * stderr's (where the Console transport writes) are empty.
 */
export function winstonDrained(logger: winston.Logger): () => boolean {
  const pending = (s: unknown): number => {
    const n = (s as { writableLength?: unknown } | undefined)?.writableLength;
    return typeof n === 'number' ? n : 0;
  };
  const transportEmpty = (t: winston.transport): boolean => {
    const inner = t as unknown as { _stream?: unknown; _dest?: unknown };
    return pending(t) === 0 && pending(inner._stream) === 0 && pending(inner._dest) === 0;
  };
  return () => pending(logger) === 0 && logger.transports.every(transportEmpty) && pending(process.stderr) === 0;
}
