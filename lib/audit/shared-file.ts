/**
 * The audit log file of a server made of several worker processes (--workers, lib/server/workers.ts):
 * one writer for the file, the primary, so that rotation by size (--audit-log-maxsize) renames
 * the file once and no worker goes on appending to a renamed one. A worker's LogBackend writes
 * through a PrimaryWrittenFile, which sends each batch of lines to the primary over the cluster
 * IPC channel; the primary holds one RotatingFile per path and answers each open and write,
 * so a failed write still reaches the worker's error count. Without workers the backend
 * writes its RotatingFile itself.
 */
import type { Worker } from 'node:cluster';
import { RotatingFile, RotationOptions } from './rotating-file';
import { answerWorker, callPrimary } from '../ipc';

/** What LogBackend writes to: a RotatingFile, or the primary's through this module. */
export interface AppendFile {
  open(): Promise<void>;
  write(data: string): Promise<void>;
  close(): Promise<void>;
}

interface FileCall {
  op: 'open' | 'write';
  file: string;
  opts: RotationOptions;
  data?: string;
}

const AUDIT_FILE = 'audit-file';

/** In a worker (process.send exists and `worker` is true) the primary's file, else a RotatingFile of our own. */
export function appendFileFor(file: string, opts: RotationOptions, worker: boolean): AppendFile {
  return worker && process.send ? new PrimaryWrittenFile(file, opts) : new RotatingFile(file, opts);
}

/** Sends the primary each open and write, and waits for its answer. */
class PrimaryWrittenFile implements AppendFile {
  constructor(private readonly file: string, private readonly opts: RotationOptions) {}

  open(): Promise<void> {
    return callPrimary<void>(AUDIT_FILE, { op: 'open', file: this.file, opts: this.opts } satisfies FileCall);
  }

  write(data: string): Promise<void> {
    return callPrimary<void>(AUDIT_FILE, { op: 'write', file: this.file, opts: this.opts, data } satisfies FileCall);
  }

  async close(): Promise<void> {
    // The primary closes the file when it stops: other workers still write to it.
  }
}

/**
 * The primary's side: one RotatingFile per path for all workers, writes in arrival order (one at
 * a time per file, as RotatingFile wants). close() closes them once the workers are gone.
 */
export class AuditFileServer {
  private readonly files = new Map<string, { file: RotatingFile; chain: Promise<void> }>();

  attach(worker: Worker): void {
    answerWorker<FileCall, void>(worker, AUDIT_FILE, (call) => {
      let entry = this.files.get(call.file);
      if (!entry) this.files.set(call.file, entry = { file: new RotatingFile(call.file, call.opts), chain: Promise.resolve() });
      const f = entry.file;
      const work = entry.chain.then(() => (call.op === 'open' ? f.open() : f.write(call.data ?? '')));
      entry.chain = work.catch(() => undefined);
      return work;
    });
  }

  async close(): Promise<void> {
    for (const { file, chain } of this.files.values()) {
      await chain;
      await file.close();
    }
    this.files.clear();
  }
}
