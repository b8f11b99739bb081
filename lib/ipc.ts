/**
 * Messages between the primary and the workers of --workers (workers.ts) over the cluster IPC
 * channel: tagged one-way messages, and calls from a worker that the primary answers (the audit
 * log file, shared-file.ts; the merged /metrics, cluster-metrics.ts).
 */
import type { Worker } from 'node:cluster';

/** `m` is a message of kind `type` (every message here carries its kind in `type`). */
export function isMessage<T extends { type: string }>(m: unknown, type: T['type']): m is T {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;
}

interface CallRequest { type: 'orch-call'; kind: string; id: number; payload: unknown }
interface CallReply { type: 'orch-call-reply'; id: number; result?: unknown; error?: string }

const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout }>();
let nextId = 0;
let listening = false;

/**
 * In a worker: asks the primary's `kind` handler (answerWorker) and resolves with its result;
 * rejects with its error, when the primary cannot be reached, or after `timeoutMs` (0: no limit).
 */
export function callPrimary<R>(kind: string, payload: unknown, timeoutMs = 0): Promise<R> {
  if (!process.send) return Promise.reject(new Error(`${kind}: no primary process`));
  if (!listening) {
    listening = true;
    process.on('message', (m: unknown) => {
      if (!isMessage<CallReply>(m, 'orch-call-reply')) return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (p.timer) clearTimeout(p.timer);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
  }
  const id = ++nextId;
  return new Promise<R>((resolve, reject) => {
    const timer = timeoutMs > 0 ? setTimeout(() => {
      pending.delete(id);
      reject(new Error(`${kind}: the primary did not answer in ${timeoutMs} ms`));
    }, timeoutMs) : undefined;
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
    process.send!({ type: 'orch-call', kind, id, payload } satisfies CallRequest, undefined, undefined, (err: Error | null) => {
      if (!err || !pending.delete(id)) return;
      if (timer) clearTimeout(timer);
      reject(new Error(`${kind}: the primary process cannot be reached: ${err.message}`));
    });
  });
}

/** In the primary: answers `worker`'s calls of `kind` with `handler`'s result or error. */
export function answerWorker<P, R>(worker: Worker, kind: string, handler: (payload: P) => Promise<R>): void {
  worker.on('message', (m: unknown) => {
    if (!isMessage<CallRequest>(m, 'orch-call') || m.kind !== kind) return;
    const reply = (r: CallReply) => { if (worker.isConnected()) worker.send(r, undefined, () => undefined); };
    handler(m.payload as P).then(
      (result) => reply({ type: 'orch-call-reply', id: m.id, result }),
      (err: Error) => reply({ type: 'orch-call-reply', id: m.id, error: err.message }),
    );
  });
}
