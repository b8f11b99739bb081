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

/** What LogBackend writes to: a RotatingFile, or the primary's through this module. */
export interface AppendFile {
  open(): Promise<void>;
  write(data: string): Promise<void>;
  close(): Promise<void>;
}

interface FileRequest {
  type: 'orch-audit-file';
  id: number;
  op: 'open' | 'write';
  file: string;
  opts: RotationOptions;
  data?: string;
}

interface FileReply {
  type: 'orch-audit-file-reply';
  id: number;
  error?: string;
}

const isRequest = (m: unknown): m is FileRequest => typeof m === 'object' && m !== null && (m as FileRequest).type === 'orch-audit-file';
const isReply = (m: unknown): m is FileReply => typeof m === 'object' && m !== null && (m as FileReply).type === 'orch-audit-file-reply';

/** In a worker (process.send exists and `worker` is true) the primary's file, else a RotatingFile of our own. */
export function appendFileFor(file: string, opts: RotationOptions, worker: boolean): AppendFile {
  return worker && process.send ? new PrimaryWrittenFile(file, opts) : new RotatingFile(file, opts);
}

let nextId = 0;
const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
let listening = false;

/** Sends the primary each open and write, and waits for its answer. */
class PrimaryWrittenFile implements AppendFile {
  constructor(private readonly file: string, private readonly opts: RotationOptions) {}

  open(): Promise<void> {
    return this.ask('open');
  }

  write(data: string): Promise<void> {
    return this.ask('write', data);
  }

  async close(): Promise<void> {
    // The primary closes the file when it stops: other workers still write to it.
  }

  private ask(op: FileRequest['op'], data?: string): Promise<void> {
    if (!listening) {
      listening = true;
      process.on('message', (m: unknown) => {
        if (!isReply(m)) return;
        const p = pending.get(m.id);
        if (!p) return;
        pending.delete(m.id);
        if (m.error) p.reject(new Error(m.error));
        else p.resolve();
      });
    }
    const id = ++nextId;
    const req: FileRequest = { type: 'orch-audit-file', id, op, file: this.file, opts: this.opts, data };
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      process.send!(req, undefined, undefined, (err: Error | null) => {
        if (!err) return;
        pending.delete(id);
        reject(new Error(`audit log: the primary process cannot be reached: ${err.message}`));
      });
    });
  }
}

/**
 * The primary's side: one RotatingFile per path for all workers, writes in arrival order (one at
 * a time per file, as RotatingFile wants). close() closes them once the workers are gone.
 */
export class AuditFileServer {
  private readonly files = new Map<string, { file: RotatingFile; chain: Promise<void> }>();

  attach(worker: Worker): void {
    worker.on('message', (m: unknown) => {
      if (!isRequest(m)) return;
      let entry = this.files.get(m.file);
      if (!entry) this.files.set(m.file, entry = { file: new RotatingFile(m.file, m.opts), chain: Promise.resolve() });
      const f = entry.file;
      const work = entry.chain.then(() => (m.op === 'open' ? f.open() : f.write(m.data ?? '')));
      entry.chain = work.catch(() => undefined);
      work.then(
        () => this.reply(worker, { type: 'orch-audit-file-reply', id: m.id }),
        (err: Error) => this.reply(worker, { type: 'orch-audit-file-reply', id: m.id, error: err.message }),
      );
    });
  }

  private reply(worker: Worker, r: FileReply): void {
    if (worker.isConnected()) worker.send(r, undefined, () => undefined);
  }

  async close(): Promise<void> {
    for (const { file, chain } of this.files.values()) {
      await chain;
      await file.close();
    }
    this.files.clear();
  }
}
