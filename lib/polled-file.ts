/**
 * A configuration file read again every interval (kube-apiserver's automatic reloads of the
 * authentication and authorization configuration): a changed text is handed to `apply`, which
 * throws when it is not a valid configuration (the one in effect stays); an unreadable or invalid
 * text is reported once, not at every poll, and tried again only when it changes.
 */
import { readFileSync } from 'node:fs';

export interface PolledFileOptions {
  file: string;
  intervalMs: number;
  /** Puts a changed text in effect; throws (the message says why) when it is not valid. */
  apply(data: string): void;
  /** The file could not be read (`cause`: the error code or message). */
  unreadable(cause: string): void;
  /** `apply` refused a changed text. */
  invalid(err: Error): void;
}

export class PolledFile {
  private timer?: NodeJS.Timeout;
  /** The text in effect. */
  private applied: string;
  /** The last text tried, or why the file could not be read, so that each failure is reported once. */
  private lastTried: string;

  /** `initial`: the text in effect now (read and applied by the caller at start). */
  constructor(private readonly opts: PolledFileOptions, initial: string) {
    this.applied = initial;
    this.lastTried = initial;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), Math.max(10, this.opts.intervalMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the file once: true when a changed, valid text was put in effect. */
  check(): boolean {
    let data: string;
    try {
      data = readFileSync(this.opts.file, 'utf8');
    } catch (err) {
      // Tried again at every poll (the file may be in the middle of being replaced); reported once per cause.
      const cause = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      if (this.lastTried === `unreadable:${cause}`) return false;
      this.lastTried = `unreadable:${cause}`;
      this.opts.unreadable(cause);
      return false;
    }
    if (data === this.applied || data === this.lastTried) return false;
    this.lastTried = data;
    try {
      this.opts.apply(data);
    } catch (err) {
      this.opts.invalid(err as Error);
      return false;
    }
    this.applied = data;
    return true;
  }
}
