/**
 * An open-loop load generator in a worker thread (load-4x.bench.ts): it offers POSTs at a fixed
 * rate whatever the answers, as independent clients would, over a few HTTP/2 sessions, and
 * counts the answers by status. A cap on outstanding requests keeps the generator's own memory
 * bounded (requests not sent because of it are counted as `skipped`).
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { ServerConnection } from './api-client';
import { Http2ApiClient } from './http2-api-client';

export interface OpenLoopSetup {
  conn: ServerConnection;
  path: string;
  body: object;
  ratePerSec: number;
  durationMs: number;
  sessions: number;
  maxOutstanding: number;
  /** Outstanding answers are awaited this long after the offering ends. */
  drainMs: number;
}

export interface OpenLoopResult {
  sent: number;
  skipped: number;
  byStatus: Record<string, number>;
  /** Requests that failed without an HTTP answer (stream or connection errors). */
  errors: number;
  /** Those errors by code (or message), for the log. */
  errorKinds: Record<string, number>;
  /** Answered after the drain wait ended (not counted in byStatus). */
  unanswered: number;
  offerMs: number;
}

if (!isMainThread && parentPort && (workerData as { openLoop?: OpenLoopSetup })?.openLoop) {
  const setup = (workerData as { openLoop: OpenLoopSetup }).openLoop;
  const conn = { ...setup.conn, ca: Buffer.from(setup.conn.ca), cert: Buffer.from(setup.conn.cert), key: Buffer.from(setup.conn.key) };
  const client = new Http2ApiClient(conn, setup.sessions);
  const port = parentPort;
  const result: OpenLoopResult = { sent: 0, skipped: 0, byStatus: {}, errors: 0, errorKinds: {}, unanswered: 0, offerMs: 0 };
  let outstanding = 0;
  const started = performance.now();
  const send = () => {
    outstanding++;
    result.sent++;
    client.request('POST', setup.path, setup.body).then((res) => {
      result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
    }, (err: NodeJS.ErrnoException) => {
      result.errors++;
      const kind = err.code ?? err.message.slice(0, 60);
      result.errorKinds[kind] = (result.errorKinds[kind] ?? 0) + 1;
    }).finally(() => { outstanding--; });
  };
  const tick = () => {
    const elapsed = performance.now() - started;
    if (elapsed >= setup.durationMs) {
      result.offerMs = elapsed;
      port.postMessage({ offered: true });
      const drainUntil = performance.now() + setup.drainMs;
      const drain = () => {
        if (outstanding > 0 && performance.now() < drainUntil) { setTimeout(drain, 20); return; }
        result.unanswered = outstanding;
        client.close();
        port.postMessage({ result });
      };
      drain();
      return;
    }
    const due = Math.floor((elapsed / 1000) * setup.ratePerSec) - result.sent - result.skipped;
    for (let i = 0; i < due; i++) {
      if (outstanding >= setup.maxOutstanding) result.skipped++;
      else send();
    }
    setTimeout(tick, 2);
  };
  tick();
}

/** Runs one open loop in a worker; `offered` resolves when the offering ends, `done` with the counts. */
export function startOpenLoop(setup: OpenLoopSetup): { offered: Promise<void>; done: Promise<OpenLoopResult> } {
  const w = new Worker(__filename, { workerData: { openLoop: setup } });
  let onOffered!: () => void;
  const offered = new Promise<void>((r) => { onOffered = r; });
  const done = new Promise<OpenLoopResult>((resolve, reject) => {
    w.on('message', (m: { offered?: boolean; result?: OpenLoopResult }) => {
      if (m.offered) onOffered();
      if (m.result) {
        resolve(m.result);
        void w.terminate();
      }
    });
    w.once('error', reject);
  });
  return { offered, done };
}
