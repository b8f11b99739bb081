/**
 * A load generator in a worker thread, so that a benchmark's client side can use more than the
 * one core of the bench process's event loop: the worker opens its own connection(s) (HTTP/2 or
 * HTTP/1.1 keep-alive, with the connection's certificate or a bearer token) and runs closed loops
 * of GETs (or of creates) on request. LoadWorkers (below) drives several and pools their samples.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { ServerConnection, ApiClient } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { LoopResult, summarize, timedLoop } from './latency';

interface WorkerSetup {
  conn: ServerConnection;
  transport: 'HTTP/2' | 'HTTP/1.1';
  bearerToken?: string;
  /** Paths to GET in turn. */
  paths: string[];
  /** Instead of GETs: POST this body (JSON, with metadata.generateName) to paths[0]. */
  createBody?: object;
}

interface LoopRequest { durationMs: number; minIterations: number; maxIterations: number; concurrency: number }
interface LoopAnswer { samples: Float64Array; elapsedMs: number; error?: string }

if (!isMainThread && parentPort) {
  const setup = workerData as WorkerSetup;
  const auth = setup.bearerToken === undefined ? {} : { bearerToken: setup.bearerToken };
  const conn = { ...setup.conn, ca: Buffer.from(setup.conn.ca), cert: Buffer.from(setup.conn.cert), key: Buffer.from(setup.conn.key) };
  const client = setup.transport === 'HTTP/2' ? new Http2ApiClient(conn, 1, auth) : new ApiClient(conn, 64, auth);
  const port = parentPort;
  port.on('message', (msg: LoopRequest | 'close') => {
    if (msg === 'close') {
      client.close();
      port.close();
      return;
    }
    const body = setup.createBody;
    timedLoop(async (i) => {
      const res = body
        ? await client.request('POST', setup.paths[0], body)
        : await client.request('GET', setup.paths[i % setup.paths.length]);
      const want = body ? 201 : 200;
      if (res.status !== want) throw new Error(`${body ? 'POST' : 'GET'}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
    }, msg).then(
      (r) => port.postMessage({ samples: r.samples, elapsedMs: r.elapsedMs } satisfies LoopAnswer),
      (err) => port.postMessage({ samples: new Float64Array(0), elapsedMs: 0, error: String(err) } satisfies LoopAnswer),
    );
  });
}

/** `count` workers sharing one closed loop's concurrency. */
export class LoadWorkers {
  private readonly workers: Worker[];

  constructor(count: number, setup: WorkerSetup) {
    this.workers = Array.from({ length: count }, () => new Worker(__filename, { workerData: setup }));
  }

  /** One loop across the workers (concurrency split between them); a worker's failure fails it. */
  async loop(opts: LoopRequest): Promise<LoopResult> {
    const per = { ...opts, concurrency: Math.ceil(opts.concurrency / this.workers.length), minIterations: Math.ceil(opts.minIterations / this.workers.length) };
    const answers = await Promise.all(this.workers.map((w) => new Promise<LoopAnswer>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.postMessage(per);
    })));
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(failed.error);
    const total = answers.reduce((n, a) => n + a.samples.length, 0);
    const samples = new Float64Array(total);
    let at = 0;
    for (const a of answers) { samples.set(a.samples, at); at += a.samples.length; }
    const elapsedMs = Math.max(...answers.map((a) => a.elapsedMs));
    return { ...summarize(samples), opsPerSec: total / (elapsedMs / 1000), elapsedMs, samples };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
      w.postMessage('close');
      setTimeout(() => { void w.terminate(); }, 2000).unref();
    })));
  }
}
