/**
 * The `log` audit backend (--audit-log-path): one JSON Event per line (or kube-apiserver's
 * `legacy` line) to a size-rotated file or to stdout. processEvents only queues: the file is
 * written by one asynchronous drain, so a request never waits on the disk; a failed write is
 * counted (apiserver_audit_error_total{plugin="log"}) and logged, never thrown.
 */
import { AuditBackend, AuditEvent } from './types';
import { RotationOptions } from './rotating-file';
import { AppendFile, appendFileFor } from './shared-file';

export const LOG_FORMATS = ['legacy', 'json'] as const;
export type LogFormat = typeof LOG_FORMATS[number];

export interface LogBackendOptions extends RotationOptions {
  /** A file, or `-` for stdout. */
  path: string;
  format: LogFormat;
  /** Counts events lost to a failed write. */
  onError: (events: number, err: Error) => void;
  /** A worker process of --workers: the primary writes the file for all of them (shared-file.ts). */
  worker?: boolean;
}

/** Events formatted and queued now, written in order by one drain. */
export class LogBackend implements AuditBackend {
  readonly name = 'log';
  private queue: { line: string; count: number }[] = [];
  private draining?: Promise<void>;
  private readonly file?: AppendFile;

  constructor(private readonly opts: LogBackendOptions) {
    if (opts.path !== '-') this.file = appendFileFor(opts.path, opts, opts.worker ?? false);
  }

  /** Opens the file now, so an unwritable path stops the start. */
  async open(): Promise<void> {
    await this.file?.open();
  }

  processEvents(events: AuditEvent[]): void {
    if (!events.length) return;
    const line = events.map((e) => formatEvent(e, this.opts.format)).join('');
    if (!this.file) {
      process.stdout.write(line);
      return;
    }
    this.queue.push({ line, count: events.length });
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    // A macrotask first: the events of one burst of requests go out in one write.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      const text = batch.map((b) => b.line).join('');
      try {
        await this.file!.write(text);
      } catch (err) {
        this.opts.onError(batch.reduce((n, b) => n + b.count, 0), err as Error);
      }
    }
    this.draining = undefined;
  }

  async shutdown(): Promise<void> {
    while (this.draining) await this.draining;
    await this.file?.close();
  }
}

/** One line: the Event as JSON, or kube-apiserver's legacy text. */
export function formatEvent(e: AuditEvent, format: LogFormat): string {
  if (format === 'json') return `${JSON.stringify(e)}\n`;
  const q = (s: string) => JSON.stringify(s);
  const list = (l: string[]) => l.map(q).join(',');
  const user = e.user.username || '<none>';
  const groups = e.user.username && e.user.groups?.length ? list(e.user.groups) : '<none>';
  const as = e.impersonatedUser ? e.impersonatedUser.username : '<self>';
  const asGroups = e.impersonatedUser?.groups ? list(e.impersonatedUser.groups) : '<lookup>';
  return `${rfc3339Nano(e.requestReceivedTimestamp)} AUDIT: id=${q(e.auditID)} stage=${q(e.stage)} ip=${q(e.sourceIPs?.[0] ?? '<unknown>')} method=${q(e.verb)} user=${q(user)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(e.userAgent ?? '')} namespace=${q(e.objectRef?.namespace || '<none>')} uri=${q(e.requestURI)} response="${e.responseStatus ? e.responseStatus.code : '<deferred>'}"\n`;
}

/** Go's time.RFC3339Nano, which the legacy line uses: trailing zeros of the fraction dropped, a whole second has none. */
function rfc3339Nano(microTime: string): string {
  return microTime.replace(/\.(\d*?)0*Z$/, (_, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}
