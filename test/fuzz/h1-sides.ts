/**
 * The two HTTP/1.1 sides the differential suite (h1-differential.test.ts) feeds the same bytes:
 * Node's http.createServer() with its default parser options (llhttp, strict), and the server's
 * own H1Connection, each behind a plain loopback TCP listener. Both record, per connection, the
 * requests their application saw ({method, url, headers, body}) and answer each 200 with a
 * Content-Length once its body is read.
 *
 * Node's side swaps only its ServerResponse class, to see the answers Node gives itself (400 for
 * a missing Host, 417): Node goes on parsing and serving what was pipelined after those, so the
 * requests after Node's own refusal are set apart (RFC 9112 9.6: nothing after a close).
 */
import http from 'node:http';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { H1Connection } from '../../lib/http1/connection';
import type { ProtocolError } from '../../lib/http1/protocol-error';
import type { ServerRequest, ServerResponse } from '../../lib/http/messages';
import { listenerLimits } from '../../lib/server/listener-options';

/** A request as the application saw it. */
export interface Seen {
  method: string;
  url: string;
  version: string;
  headers: Record<string, unknown>;
  /** The body bytes read (latin1). */
  body: string;
  /** The body's end was seen. */
  complete: boolean;
}

/** What one connection did with a byte stream, once quiet. */
export interface Outcome {
  /** Requests handed to the application, in order (Node's: those before its own refusal). */
  seen: Seen[];
  /** Requests Node handed to the application after refusing one itself. */
  seenAfterRefusal: number;
  /** The server closed the connection. */
  closed: boolean;
  /** Status codes of the responses the client read, in order. */
  statuses: number[];
  /** The own side's refusal (ProtocolError code), if any. */
  refusal?: string;
  /** A fault of the own side's own (never expected). */
  internalError?: string;
}

/** What a server side keeps of one connection (by the client's port). */
interface Record1 {
  seen: Array<Seen & { index: number }>;
  /** Requests parsed (Node: every ServerResponse made). */
  parsed: number;
  /** Index of the first request Node answered itself with a status other than 200. */
  refusedAt?: number;
  refusal?: string;
  internalError?: string;
  touched: number;
}

export interface Side {
  readonly name: 'node' | 'own';
  readonly port: number;
  /** What the server recorded for the connection from `clientPort`. */
  record(clientPort: number): Record1;
  /** Drops that record (a later connection may reuse the port). */
  forget(clientPort: number): void;
  close(): Promise<void>;
}

function recorder(): { get(port: number): Record1; drop(port: number): void } {
  const records = new Map<number, Record1>();
  return {
    get(port) {
      let r = records.get(port);
      if (!r) records.set(port, r = { seen: [], parsed: 0, touched: Date.now() });
      return r;
    },
    drop(port) { records.delete(port); },
  };
}

/** The application of both sides: records the request and answers 200 with a length once the body is read. */
function serveAndRecord(rec: Record1, index: number,
  req: { method?: string; url?: string; httpVersion: string; headers: object; on(e: string, f: (d?: Buffer) => void): unknown }, answer: () => void): void {
  const seen: Seen & { index: number } = {
    index, method: req.method ?? '', url: req.url ?? '', version: req.httpVersion, headers: JSON.parse(JSON.stringify(req.headers)), body: '', complete: false,
  };
  rec.seen.push(seen);
  rec.touched = Date.now();
  req.on('data', (d?: Buffer) => { seen.body += d!.toString('latin1'); rec.touched = Date.now(); });
  req.on('end', () => { seen.complete = true; rec.touched = Date.now(); answer(); });
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

export async function startNodeSide(): Promise<Side> {
  const records = recorder();
  class Observed extends http.ServerResponse {
    constructor(req: http.IncomingMessage) {
      super(req);
      const rec = records.get(req.socket.remotePort!);
      const index = rec.parsed++;
      (req as unknown as { index: number }).index = index;
      const writeHead = this.writeHead;
      this.writeHead = ((status: number, ...rest: unknown[]) => {
        if (status !== 200 && rec.refusedAt === undefined) rec.refusedAt = index;
        rec.touched = Date.now();
        return (writeHead as (...a: unknown[]) => http.ServerResponse).call(this, status, ...rest);
      }) as typeof this.writeHead;
    }
  }
  const server = http.createServer({ ServerResponse: Observed as typeof http.ServerResponse }, (req, res) => {
    serveAndRecord(records.get(req.socket.remotePort!), (req as unknown as { index: number }).index, req, () => {
      res.writeHead(200, { 'content-length': '2' });
      res.end('ok');
    });
  });
  const port = await listen(server);
  return {
    name: 'node', port,
    record: (p) => records.get(p),
    forget: (p) => records.drop(p),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** `maxHeaderBytes`: Node's default maxHeaderSize (16 KiB), so both refuse an overlong head. */
export async function startOwnSide(): Promise<Side> {
  const records = recorder();
  const limits = listenerLimits({ http2MaxStreamsPerConnection: 0 }, { maxHeaderBytes: 16 * 1024, headersTimeoutMs: 60_000, idleTimeoutMs: 60_000 });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const rec = records.get(socket.remotePort!);
    new H1Connection(socket as unknown as TLSSocket, limits, (req: ServerRequest, res: ServerResponse) => {
      serveAndRecord(rec, rec.parsed++, req, () => {
        res.writeHead(200, { 'content-length': '2' });
        res.end('ok');
      });
    }, (err) => { rec.internalError = err.stack ?? err.message; }, (err: ProtocolError) => { rec.refusal = err.code; rec.touched = Date.now(); });
  });
  const port = await listen(server);
  return {
    name: 'own', port,
    record: (p) => records.get(p),
    forget: (p) => records.drop(p),
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One client connection to a side: writes the stream in pieces, waits until quiet, can send more. */
export class Probe {
  private received = '';
  private closed = false;
  private lastEvent = Date.now();
  /** The client's port, by which the server side keeps its record (the socket forgets it once closed). */
  private readonly port: number;
  private constructor(private readonly side: Side, private readonly sock: net.Socket) {
    this.port = sock.localPort!;
    sock.on('data', (d: Buffer) => { this.received += d.toString('latin1'); this.lastEvent = Date.now(); });
    sock.on('close', () => { this.closed = true; this.lastEvent = Date.now(); });
    sock.on('error', () => undefined);
  }

  static connect(side: Side): Promise<Probe> {
    return new Promise((resolve, reject) => {
      const sock = net.connect(side.port, '127.0.0.1', () => resolve(new Probe(side, sock)));
      sock.setNoDelay(true);
      sock.once('error', reject);
    });
  }

  /** Writes each piece in its own turn of the event loop (separate TCP writes). */
  async write(pieces: Buffer[]): Promise<void> {
    for (const p of pieces) {
      if (this.closed) return;
      this.sock.write(p);
      await new Promise((r) => setImmediate(r));
    }
    this.lastEvent = Date.now();
  }

  /** Resolves once the connection closed, or nothing happened on either end for `quietMs`. */
  async settle(quietMs: number): Promise<void> {
    const rec = this.side.record(this.port);
    for (;;) {
      if (this.closed) return;
      const idle = Date.now() - Math.max(this.lastEvent, rec.touched);
      if (idle >= quietMs) return;
      await sleep(quietMs - idle);
    }
  }

  outcome(): Outcome {
    const rec = this.side.record(this.port);
    const before = rec.refusedAt === undefined ? rec.seen : rec.seen.filter((s) => s.index < rec.refusedAt!);
    return {
      seen: before.map(({ index: _i, ...s }) => s),
      seenAfterRefusal: rec.seen.length - before.length,
      closed: this.closed,
      statuses: [...this.received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])),
      refusal: rec.refusal,
      internalError: rec.internalError,
    };
  }

  destroy(): void {
    this.sock.destroy();
    this.side.forget(this.port);
  }
}
