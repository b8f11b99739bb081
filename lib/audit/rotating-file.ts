/**
 * An append-only file rotated by size, as kube-apiserver's audit log (lumberjack): when a write
 * would pass maxSize the file is renamed to `<name>-<UTC timestamp>.<ext>` and a new one begun;
 * backups beyond maxBackups or older than maxAge days are removed, and optionally gzipped.
 * Written small here (one class) rather than adding a dependency for ~100 lines.
 */
import { promises as fsp, createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import path from 'node:path';

export interface RotationOptions {
  /** Megabytes; 0: never rotated. */
  maxSizeMb: number;
  /** 0: no limit. */
  maxBackups: number;
  /** Days; 0: no limit. */
  maxAgeDays: number;
  compress: boolean;
}

const MB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

/** lumberjack's backup stamp: 2006-01-02T15-04-05.000 in UTC. */
function stamp(d: Date): string {
  return d.toISOString().replace(/:/g, '-').replace(/Z$/, '');
}

/** The time a backup's name carries, NaN when it is not one of ours. */
function backupTime(rest: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3})/.exec(rest);
  return m ? Date.parse(`${m[1]}:${m[2]}:${m[3]}Z`) : NaN;
}

/** Appends whole writes; one write at a time (callers queue). */
export class RotatingFile {
  private handle?: fsp.FileHandle;
  private size = 0;

  constructor(readonly file: string, private readonly opts: RotationOptions) {}

  /** Creates the directory and file (mode 0600, as kube-apiserver) and learns its size. */
  async open(): Promise<void> {
    await fsp.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    this.handle = await fsp.open(this.file, 'a', 0o600);
    this.size = (await this.handle.stat()).size;
  }

  async write(data: string): Promise<void> {
    if (!this.handle) await this.open();
    const bytes = Buffer.byteLength(data);
    const max = this.opts.maxSizeMb * MB;
    if (max > 0 && bytes > max) throw new Error(`write length ${bytes} exceeds maximum file size ${max}`);
    if (max > 0 && this.size + bytes > max) await this.rotate();
    await this.handle!.write(data);
    this.size += bytes;
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    await h?.close();
  }

  private async rotate(): Promise<void> {
    await this.close();
    const ext = path.extname(this.file);
    const base = path.basename(this.file, ext);
    const backup = path.join(path.dirname(this.file), `${base}-${stamp(new Date())}${ext}`);
    await fsp.rename(this.file, backup);
    await this.open();
    await this.mill(base, ext);
  }

  /** Removes backups beyond the limits (newest kept), then compresses the rest. */
  private async mill(base: string, ext: string): Promise<void> {
    const dir = path.dirname(this.file);
    const prefix = `${base}-`;
    const backups = (await fsp.readdir(dir))
      .filter((f) => f.startsWith(prefix) && (f.endsWith(ext) || f.endsWith(`${ext}.gz`)))
      .map((f) => ({ f, at: backupTime(f.slice(prefix.length)) }))
      .filter((b) => !Number.isNaN(b.at))
      .sort((a, b) => b.at - a.at);
    const cutoff = Date.now() - this.opts.maxAgeDays * DAY_MS;
    const keep = backups.filter((b, i) => (this.opts.maxBackups <= 0 || i < this.opts.maxBackups) && (this.opts.maxAgeDays <= 0 || b.at >= cutoff));
    const kept = new Set(keep.map((b) => b.f));
    await Promise.all(backups.filter((b) => !kept.has(b.f)).map((b) => fsp.rm(path.join(dir, b.f), { force: true })));
    if (!this.opts.compress) return;
    for (const b of keep) {
      if (b.f.endsWith('.gz')) continue;
      const src = path.join(dir, b.f);
      await pipeline(createReadStream(src), createGzip(), createWriteStream(`${src}.gz`, { mode: 0o600 }));
      await fsp.rm(src, { force: true });
    }
  }
}
