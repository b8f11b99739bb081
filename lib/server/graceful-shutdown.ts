/**
 * The last part of a graceful stop (after /readyz has failed for --shutdown-delay-duration): the
 * listener stops accepting; HTTP/2 sessions get GOAWAY and keep their streams in flight; every
 * open watch ends cleanly (END_STREAM, or the last chunk on HTTP/1.1), given
 * --shutdown-watch-termination-grace-period to reach its client; other requests in flight finish,
 * up to the drain timeout; then whatever is left is cut.
 */
import type http2 from 'node:http2';
import type { Server, Socket } from 'node:net';
import type { ServerResponse as OwnServerResponse } from '../http/messages';
import { endWatches } from '../api/handlers/watch';
import { logger } from '../logger';

type Res = http2.Http2ServerResponse | import('node:http').ServerResponse | OwnServerResponse;

/** The requests a server has in flight, and on which HTTP/1.1 connection each runs. */
export class RequestTracker {
  /** Each request in flight, with its HTTP/1.1 connection (none for HTTP/2). */
  private readonly inflight = new Map<Res, Socket | undefined>();
  private readonly busy = new Map<Socket, number>();
  private idleWaiters: Array<() => void> = [];
  private stopping = false;
  /** One listener for every response's 'close' (emitted with the response as `this`), not a closure per request. */
  private readonly onResponseClose: (this: Res) => void;

  /** `server` emits 'request' for both HTTP versions (node:http2's server, or lib/server/own-listener.ts), or HTTP/1.1's (insecure-listener.ts). */
  constructor(server: Server) {
    server.prependListener('request', (req: { httpVersionMajor: number; socket: unknown }, res: Res) => this.track(req, res));
    const tracker = this;
    this.onResponseClose = function onResponseClose(this: Res) { tracker.closed(this); };
  }

  private track(req: { httpVersionMajor: number; socket: unknown }, res: Res): void {
    const sock = req.httpVersionMajor === 1 ? (req.socket as Socket) : undefined;
    // Stopping: an HTTP/1.1 client is told not to send another request on this connection.
    if (this.stopping && sock && !res.headersSent) res.setHeader('Connection', 'close');
    this.inflight.set(res, sock);
    if (sock) this.busy.set(sock, (this.busy.get(sock) ?? 0) + 1);
    // A response closes once: `on` without the wrapper `once` would make.
    (res as import('node:events').EventEmitter).on('close', this.onResponseClose);
  }

  private closed(res: Res): void {
    if (!this.inflight.has(res)) return;
    const sock = this.inflight.get(res);
    this.inflight.delete(res);
    if (sock) {
      const n = (this.busy.get(sock) ?? 1) - 1;
      if (n > 0) this.busy.set(sock, n);
      else {
        this.busy.delete(sock);
        // The connection's last response is out: nothing more is served on it.
        if (this.stopping) sock.end();
      }
    }
    if (!this.inflight.size) for (const w of this.idleWaiters.splice(0)) w();
  }

  get count(): number {
    return this.inflight.size;
  }

  /** From now on, HTTP/1.1 connections close after their response; idle ones close now. */
  stop(sockets: Iterable<Socket>): void {
    this.stopping = true;
    for (const sock of sockets) {
      if ((sock as import('node:tls').TLSSocket).alpnProtocol !== 'h2' && !this.busy.has(sock)) sock.end();
    }
  }

  /** Resolves true once nothing is in flight, false after `ms`. */
  idle(ms: number): Promise<boolean> {
    if (!this.inflight.size) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => { clearTimeout(timer); resolve(true); };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.idleWaiters.push(waiter);
    });
  }
}

export interface DrainTargets {
  server: Server;
  /** HTTP/2 sessions: close() sends GOAWAY, destroy() cuts. */
  sessions: Set<{ close(): void; destroy(): void }>;
  sockets: Set<Socket>;
  /** The Koa application whose watches are ended (lib/api/handlers/watch.ts endWatches). */
  app: object;
  tracker: RequestTracker;
}

/**
 * Stops accepting and drains. `watchGraceMs` bounds how long ended watches may take to reach
 * their clients (0: the drain timeout); `drainTimeoutMs` bounds the whole drain.
 */
export async function drainServer(t: DrainTargets, watchGraceMs: number, drainTimeoutMs: number): Promise<void> {
  const started = Date.now();
  const closed = new Promise<void>((r) => t.server.close(() => r()));
  for (const s of t.sessions) s.close();
  t.tracker.stop(t.sockets);
  const inflightAtStart = t.tracker.count;
  const [watches, idle] = await Promise.all([
    endWatches(t.app, Math.min(watchGraceMs > 0 ? watchGraceMs : drainTimeoutMs, drainTimeoutMs)),
    t.tracker.idle(drainTimeoutMs),
  ]);
  const left = Math.max(0, drainTimeoutMs - (Date.now() - started));
  // unref: a drain that finishes early must not keep the process alive for the timeout.
  const allClosed = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), left).unref())]);
  const cut = t.sessions.size + t.sockets.size;
  for (const s of t.sessions) s.destroy();
  for (const sock of t.sockets) sock.destroy();
  logger.info('drained', {
    ms: Date.now() - started, requestsInFlight: inflightAtStart, watchesEnded: watches.ended, watchesCut: watches.cut,
    requestsUnfinished: idle ? 0 : t.tracker.count, connectionsCut: allClosed ? 0 : cut,
  });
}
