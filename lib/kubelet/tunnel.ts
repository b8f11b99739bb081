/**
 * An upgrade request passed through to its backend, as apimachinery's UpgradeAwareHandler
 * (tryUpgrade) does: the request is written to a fresh connection to the backend, and its answer
 * read before the client's connection is taken:
 *  - it could not be dialled: 500 `error dialing backend: ...`; no answer head: 500 with the
 *    reading error; an answer that is neither 101 nor an error (< 400): 500
 *    `invalid upgrade response: status code N` (all answered on the client's connection as usual);
 *  - an error (>= 400): the client's connection is taken, the backend's answer copied to it as it
 *    is (bounded: 1 MiB, 10 s), then both close, so the client sees the kubelet's refusal
 *    (kubectl then falls back from WebSocket to SPDY);
 *  - 101: the answer's bytes go to the client, then bytes are piped both ways until either side
 *    ends, when both are closed. Piping pauses the faster side (Node's stream backpressure), so
 *    what is buffered per direction stays bounded by the sockets' high-water marks.
 */
import type { Duplex } from 'node:stream';
import type { Context } from 'koa';
import { takeUpgrade, type UpgradeSocket } from '../http/upgrade';
import { plainError } from './errors';

/** Longest answer head read from a backend. */
const MAX_RESPONSE_HEAD = 64 * 1024;
/** An error answer copied to the client: at most this many bytes, for at most this long. */
const MAX_ERROR_BYTES = 1024 * 1024;
const ERROR_COPY_MS = 10_000;

export interface BackendAnswer {
  status: number;
  /** Every byte read so far: the head and whatever followed it. */
  bytes: Buffer;
}

/** Reads the backend's answer head (kube's getResponse); rejects with apimachinery's text on failure. */
export function readAnswerHead(backend: Duplex, timeoutMs: number): Promise<BackendAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error, answer?: BackendAnswer) => {
      clearTimeout(timer);
      backend.off('data', onData);
      backend.off('end', onEnd);
      backend.off('error', onError);
      backend.pause();
      if (err) reject(err); else resolve(answer!);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      const all = Buffer.concat(chunks, size);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) {
        if (size > MAX_RESPONSE_HEAD) done(plainError('malformed HTTP response: header too long'));
        return;
      }
      const m = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?\r\n/.exec(all.toString('latin1', 0, Math.min(end + 2, 1024)));
      if (!m) {
        done(plainError(`malformed HTTP response ${JSON.stringify(all.toString('latin1', 0, all.indexOf('\r\n')))}`));
        return;
      }
      done(undefined, { status: Number(m[1]), bytes: all });
    };
    const onEnd = () => done(plainError(size ? 'unexpected EOF' : 'EOF'));
    const onError = (err: Error) => done(plainError(err.message));
    const timer = setTimeout(() => done(plainError('net/http: timeout awaiting response headers')), timeoutMs);
    backend.on('data', onData);
    backend.on('end', onEnd);
    backend.on('error', onError);
  });
}

/** Copies a backend's error answer to the client, then closes both. */
export function relayRefusal(client: UpgradeSocket, backend: Duplex, answer: BackendAnswer): void {
  const { socket } = client;
  let sent = 0;
  const finish = () => {
    clearTimeout(timer);
    backend.destroy();
    socket.end();
    setTimeout(() => socket.destroy(), ERROR_COPY_MS).unref();
  };
  const timer = setTimeout(finish, ERROR_COPY_MS);
  const send = (chunk: Buffer) => {
    if (sent >= MAX_ERROR_BYTES) return finish();
    const part = chunk.subarray(0, MAX_ERROR_BYTES - sent);
    sent += part.length;
    socket.write(part);
  };
  socket.on('error', () => { backend.destroy(); socket.destroy(); });
  send(answer.bytes);
  backend.on('data', send);
  backend.once('end', finish);
  backend.once('error', finish);
  backend.resume();
}

/** The 101 and what follows it go to the client; then bytes flow both ways until either side ends. */
export function pipeBothWays(client: UpgradeSocket, backend: Duplex, answer: BackendAnswer): void {
  const { socket } = client;
  (socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    // What each side wrote is flushed before FIN; a side that does not close in time is cut.
    socket.end();
    backend.end();
    setTimeout(() => { socket.destroy(); backend.destroy(); }, 5_000).unref();
  };
  socket.write(answer.bytes);
  socket.pipe(backend, { end: false });
  backend.pipe(socket, { end: false });
  for (const s of [socket, backend]) {
    s.once('end', close);
    s.once('close', close);
    s.on('error', () => { socket.destroy(); backend.destroy(); });
  }
}

/**
 * The rest of tryUpgrade once the backend is dialled: the request head written to `conn`, its
 * answer read, then on 101 or an error answer the client's connection taken and joined to it (or
 * the refusal relayed). Before the client's connection is taken, a failure throws an Error with
 * apimachinery's text (the caller answers it); `conn` is the caller's to destroy then.
 */
export async function upgradeThrough(ctx: Context, conn: Duplex, path: string, host: string,
  headers: Record<string, string | string[] | undefined>, headTimeoutMs: number): Promise<void> {
  let head = `${ctx.method} ${path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const value of Array.isArray(v) ? v : [v]) {
      if (/[\r\n\0]/.test(value)) throw new Error(`net/http: invalid header field value for ${JSON.stringify(k)}`);
      head += `${k}: ${value}\r\n`;
    }
  }
  conn.write(Buffer.from(`${head}\r\n`, 'latin1'));
  const answer = await readAnswerHead(conn, headTimeoutMs);
  if (answer.status !== 101 && answer.status < 400) throw new Error(`invalid upgrade response: status code ${answer.status}`);
  const taken = takeUpgrade(ctx.req);
  if (!taken) throw new Error('request connection cannot be hijacked');
  ctx.respond = false;
  ctx.status = answer.status;
  if (answer.status !== 101) {
    relayRefusal(taken, conn, answer);
    return;
  }
  if (taken.head.length) conn.write(taken.head);
  pipeBothWays(taken, conn, answer);
}
