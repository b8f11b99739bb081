/**
 * The connections to the servers behind APIServices, as kube-aggregator's proxy transport keeps
 * them (Go's http.Transport with HTTP/2 attempted): one pool entry per address and TLS
 * configuration (`ConnectionTarget.key`), whose connection offers `h2` and `http/1.1` by ALPN.
 *  - A backend that takes `h2` gets every request as a stream of one HTTP/2 connection
 *    (lib/http2's client: the peer's SETTINGS_MAX_CONCURRENT_STREAMS respected, requests over it
 *    waiting their turn); a connection that ends, fails or says GOAWAY is dropped, and the next
 *    request makes a new one; a request the peer refused unprocessed (GOAWAY past it,
 *    REFUSED_STREAM) is sent once more on a new connection when it has no body streamed.
 *  - A backend that answers `http/1.1` gets a keep-alive agent (h1-exchange.ts), as before; a
 *    connection failing on it asks ALPN again at the next request.
 *  - An entry without requests for 90 s (Go's IdleConnTimeout) is closed and forgotten, so the
 *    connections of APIServices that changed or went away do not stay open.
 *  - An HTTP/2 connection has Go's health check, as client-go configures it (`health`): after
 *    30 s without a read a PING, and without its ACK in 15 s the connection is closed and
 *    dropped, the requests on it failing with `http2: client connection lost`
 *    (lib/http2/ping-health.ts).
 */
import https from 'node:https';
import http from 'node:http';
import tls from 'node:tls';
import { H2Session } from '../http2/client-session';
import { dialErrorText } from '../kubelet/errors';
import { type AbortRequest, type BackendAnswer, type BackendRequest, type ConnectionTarget, HopError, type OnAbort } from './backend-exchange';
import { H2Exchange } from './h2-exchange';
import { sendHttp1 } from './h1-exchange';

/** Go's http.Transport IdleConnTimeout in the proxy transport. */
const IDLE_MS = 90_000;
/** Go's HTTP/2 transport's stream receive window (transportDefaultStreamFlow). */
const STREAM_WINDOW = 4 << 20;
/** Methods whose requests carry no body in practice: safe to send again. */
const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

interface Entry {
  target: ConnectionTarget;
  /** What the last connection's ALPN chose; undefined: ask at the next connection. */
  protocol?: 'h2' | 'http/1.1';
  session?: H2Session;
  dialling?: Promise<H2Session | undefined>;
  agent?: https.Agent;
  inFlight: number;
  idleTimer?: NodeJS.Timeout;
}

/** The HTTP/2 health check's timings; a `readIdleMs` of 0 turns it off. */
export interface HealthCheckTimes { readIdleMs: number; pingTimeoutMs: number }

/** client-go's defaults (HTTP2_READ_IDLE_TIMEOUT_SECONDS 30, HTTP2_PING_TIMEOUT_SECONDS 15). */
export const DEFAULT_HEALTH_CHECK: HealthCheckTimes = { readIdleMs: 30_000, pingTimeoutMs: 15_000 };

/**
 * The HTTP/2 health check of the connections to backends, read from the environment as client-go
 * reads it (k8s.io/apimachinery/pkg/util/net): HTTP2_READ_IDLE_TIMEOUT_SECONDS (default 30; 0
 * turns the check off) and HTTP2_PING_TIMEOUT_SECONDS (default 15). A value that is not an
 * integer is warned about and the default used.
 */
export function healthCheckFromEnv(env: NodeJS.ProcessEnv, warn: (message: string) => void): HealthCheckTimes {
  const seconds = (name: string, fallback: number) => {
    const s = env[name];
    if (s === undefined || s === '') return fallback;
    if (!/^[+-]?\d+$/.test(s)) {
      warn(`Illegal ${name}(${JSON.stringify(s)}): not an integer. Default value ${fallback} is used`);
      return fallback;
    }
    return Number(s);
  };
  return {
    readIdleMs: Math.max(0, seconds('HTTP2_READ_IDLE_TIMEOUT_SECONDS', DEFAULT_HEALTH_CHECK.readIdleMs / 1000)) * 1000,
    pingTimeoutMs: Math.max(0, seconds('HTTP2_PING_TIMEOUT_SECONDS', DEFAULT_HEALTH_CHECK.pingTimeoutMs / 1000)) * 1000,
  };
}

export class BackendPool {
  private readonly entries = new Map<string, Entry>();

  /**
   * `maxHeaderListSize`: the largest response header list taken from a backend (Node's HTTP/1.1
   * parser's limit, as the HTTP/1.1 side has).
   */
  constructor(private readonly health = DEFAULT_HEALTH_CHECK, private readonly maxHeaderListSize = http.maxHeaderSize) {}

  /**
   * Sends one request; resolves once the answer's head is in. Rejects with a HopError (its
   * message the text the proxy answers with). `onStart` is given the request's abort at once.
   */
  async send(target: ConnectionTarget, req: BackendRequest, onStart?: (abort: AbortRequest) => void): Promise<BackendAnswer> {
    const entry = this.entryFor(target);
    entry.inFlight++;
    if (entry.idleTimer) {
      clearTimeout(entry.idleTimer);
      entry.idleTimer = undefined;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--entry.inFlight === 0) this.idle(entry);
    };
    // The abort (the caller gone, the head's timeout) answers at once, even while dialling; the
    // exchange, once it starts, cancels itself.
    let aborted: Error | undefined;
    let abortCurrent: ((err: Error) => void) | undefined;
    let rejectAborted: (err: Error) => void = () => undefined;
    const abortedAnswer = new Promise<never>((_, reject) => { rejectAborted = reject; });
    const abort: AbortRequest = (err) => {
      if (aborted) return;
      aborted = err ?? new HopError('context canceled');
      abortCurrent?.(aborted);
      rejectAborted(aborted);
    };
    onStart?.(abort);
    const timer = req.timeoutMs
      ? setTimeout(() => abort(new HopError(req.timeoutText ?? 'net/http: timeout awaiting response headers', { timeout: true })), req.timeoutMs)
      : undefined;
    const retriable = !(req.body && !Buffer.isBuffer(req.body)) || BODILESS.has(req.method);
    const answer = this.attempt(entry, req, retriable, (a) => {
      abortCurrent = a;
      if (aborted) a(aborted);
    }, release);
    answer.catch(release);
    abortedAnswer.catch(() => undefined);
    try {
      return await Promise.race([answer, abortedAnswer]);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Closes every connection (the server stops). */
  close(): void {
    for (const entry of this.entries.values()) {
      if (entry.idleTimer) clearTimeout(entry.idleTimer);
      entry.session?.destroy();
      entry.agent?.destroy();
    }
    this.entries.clear();
  }

  private entryFor(target: ConnectionTarget): Entry {
    let entry = this.entries.get(target.key);
    if (!entry) {
      entry = { target, inFlight: 0 };
      this.entries.set(target.key, entry);
    }
    return entry;
  }

  /** No requests on the entry: in 90 s it is closed and forgotten, unless one comes first. */
  private idle(entry: Entry): void {
    entry.idleTimer = setTimeout(() => {
      if (entry.inFlight > 0 || this.entries.get(entry.target.key) !== entry) return;
      this.entries.delete(entry.target.key);
      entry.session?.close();
      entry.agent?.destroy();
    }, IDLE_MS);
    entry.idleTimer.unref();
  }

  private async attempt(entry: Entry, req: BackendRequest, retriable: boolean, onAbort: OnAbort, release: () => void): Promise<BackendAnswer> {
    const session = await this.sessionOf(entry);
    if (session === undefined) {
      return sendHttp1(this.agentOf(entry), entry.target, req, retriable, onAbort, release, () => { entry.protocol = undefined; });
    }
    try {
      return await new H2Exchange(session, entry.target.authority, req, onAbort, release).answer;
    } catch (err) {
      // Never processed by the peer (GOAWAY, REFUSED_STREAM, or a session ended before it
      // opened): once more on a new connection, when nothing of its body is lost.
      if (retriable && err instanceof HopError && err.refused) {
        if (entry.session === session) entry.session = undefined;
        return this.attempt(entry, req, false, onAbort, release);
      }
      throw err;
    }
  }

  /** The entry's HTTP/2 session, made when there is none; undefined when the backend speaks HTTP/1.1. */
  private sessionOf(entry: Entry): Promise<H2Session | undefined> {
    if (entry.protocol === 'http/1.1') return Promise.resolve(undefined);
    const s = entry.session;
    if (s && !s.closed) return Promise.resolve(s);
    entry.session = undefined;
    entry.dialling ??= this.dial(entry).finally(() => { entry.dialling = undefined; });
    return entry.dialling;
  }

  /** A TLS connection offering h2 and http/1.1; an HTTP/2 session on it when the backend takes h2. */
  private dial(entry: Entry): Promise<H2Session | undefined> {
    const { host, port, tls: options } = entry.target;
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ ...options, host, port, ALPNProtocols: ['h2', 'http/1.1'] });
      const onError = (err: NodeJS.ErrnoException) => reject(new HopError(dialErrorText(err, host, port), { cause: err }));
      socket.once('error', onError);
      socket.once('secureConnect', () => {
        socket.off('error', onError);
        if (socket.alpnProtocol !== 'h2') {
          entry.protocol = 'http/1.1';
          socket.destroy();
          resolve(undefined);
          return;
        }
        entry.protocol = 'h2';
        const session = new H2Session({
          host, port, socket, maxHeaderListSize: this.maxHeaderListSize, streamWindow: STREAM_WINDOW,
          readIdleTimeoutMs: this.health.readIdleMs, pingTimeoutMs: this.health.pingTimeoutMs,
        });
        // What ended a session is told to each of its streams' requests.
        session.on('error', () => undefined);
        const drop = () => { if (entry.session === session) entry.session = undefined; };
        session.once('goaway', drop);
        session.once('close', drop);
        entry.session = session;
        resolve(session);
      });
    });
  }

  /** The entry's keep-alive agent for a backend that speaks HTTP/1.1. */
  private agentOf(entry: Entry): https.Agent {
    entry.agent ??= new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, ...entry.target.tls, ALPNProtocols: ['http/1.1'] });
    return entry.agent;
  }
}
