/**
 * The server side of one HTTP/1.1 connection (RFC 9112), in place of node:http, whose
 * IncomingMessage, ServerResponse and their streams cost more per request than parsing a head and
 * writing an answer do (37-40 µs of ~100 per small request over TLS, measured with 64 keep-alive
 * connections; see docs/performance.md).
 *
 * What it does:
 *  - request heads, parsed and checked by request-head.ts: at least as strict as Node's llhttp on
 *    every input, and as RFC 9112 where llhttp is laxer; CONNECT is answered 405;
 *  - request bodies by Content-Length or chunked transfer coding (chunk-size lines, extensions and
 *    trailers checked by chunked-body.ts); both at once, a repeated Content-Length, or another
 *    transfer coding are refused as request smuggling is;
 *  - one request at a time: what a client pipelines waits in the connection (and the socket
 *    is paused past a bound) until the response before it is out, so responses keep their order;
 *  - responses in one socket write where they can: the head is held until the first body bytes,
 *    and a response given whole (end(body)) is one TLS record; a body written in parts (a watch's
 *    events, a flushed head and what follows it) leaves once per event-loop turn, the socket corked
 *    for the rest of the turn (its bytes count in writableLength, so back-pressure is unchanged);
 *    a body of unknown length is chunked (close-delimited for an HTTP/1.0 client); header names
 *    canonical, as Go writes them;
 *  - keep-alive: HTTP/1.1 by default, HTTP/1.0 on request; "Connection: close" from either side,
 *    or a request asking to upgrade, closes after the response; a response
 *    given before its request body was read closes the connection unless what is left of the body
 *    is small (read and dropped, as Go does);
 *  - Expect: 100-continue answered at once (Node's default), any other expectation with 417
 *    (in HTTP/1.1; HTTP/1.0 ignores Expect, as Node does);
 *  - limits (ListenerLimits): a head over maxHeaderBytes is answered 431, a malformed one 400, a
 *    head not complete within headersTimeoutMs 408, a chunk-size line with over 16 KiB of
 *    extensions 413 (Node's limit); then the connection closes in order (listener-options.ts
 *    answerAndClose) and nothing after the refused bytes is read as a request; a connection idle
 *    between requests for idleTimeoutMs is closed.
 * A client that goes away (end or reset of the socket) aborts the request in flight: its
 * request emits 'aborted' and 'close', and its response 'close', which ends a watch.
 * Upgrades: a request asking for one (without a body) is offered (lib/http/upgrade.ts); a handler
 * that tunnels it takes the raw socket, and the connection lets go of it (handOver). Any other
 * upgrade request is answered as usual and the connection closes after it.
 */
import type { TLSSocket } from 'node:tls';
import { ServerRequest, ServerResponse, type Exchange, type OutgoingValue, type StreamOwner } from '../http/messages';
import { answerAndClose } from '../http/closing';
import { asksUpgrade, offerUpgrade, type UpgradeSocket } from '../http/upgrade';
import type { ListenerLimits } from '../http/limits';
import { checkTrailerLine, MAX_CHUNK_LINE, parseChunkSize } from './chunked-body';
import { ProtocolError, REFUSAL_ANSWERS } from './protocol-error';
import { ReadBuffer } from './read-buffer';
import { CHUNKED, parseRequestHead } from './request-head';
import { responseHead } from './response-head';

export type RequestListener = (req: ServerRequest, res: ServerResponse) => void;
/** Told of each request the connection refuses (the differential suite names the rule; a server may count them). */
export type RefusalListener = (err: ProtocolError) => void;

const CONTINUE = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
const CRLF = Buffer.from('\r\n', 'latin1');
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');
/** Request body left unread when the response goes out, up to which it is read and dropped to keep the connection (Go's maxPostHandlerReadBytes). */
const MAX_DISCARD = 256 * 1024;
/** Bytes a pipelining client may have waiting in the connection before its socket is paused. */
const MAX_WAITING = 64 * 1024;


/** The request body's framing, and where its reading is. */
const enum Body { None, Length, ChunkSize, ChunkData, ChunkEnd, Trailers, Done }

class H1Exchange implements Exchange {
  closed = false;
  readonly req: ServerRequest;
  readonly res: ServerResponse;
  body: Body;
  /** Bytes left of a Content-Length body or of the current chunk. */
  left: number;
  /** Bytes of trailer fields read (bounded by maxHeaderBytes). */
  trailerBytes = 0;
  /** The connection stays open after this exchange. */
  keepAlive: boolean;
  /** The response carries no body (HEAD, 1xx, 204, 304). */
  bodyless = false;
  /** The response body is chunked; else its length is known, or it ends with the connection. */
  chunked = false;
  /** Body bytes the response's Content-Length still promises (-1: not stated). */
  lengthLeft = -1;
  /** The response head, waiting to go out with the first body bytes. */
  pendingHead?: Buffer;
  /** The last response bytes were handed to the socket. */
  responseEnded = false;

  constructor(readonly owner: H1Connection, method: string, url: string, minor: number,
    headers: Record<string, string | string[] | undefined>, rawHeaders: string[], body: Body, length: number, keepAlive: boolean) {
    this.req = new ServerRequest(this, method, url, 1, minor, headers, rawHeaders);
    this.res = new ServerResponse(this);
    this.body = body;
    this.left = length;
    this.keepAlive = keepAlive;
  }

  get queuedBytes(): number {
    return this.owner.socket.writableLength;
  }
}

export class H1Connection implements StreamOwner {
  /** Bytes read and not yet parsed. */
  private readonly input = new ReadBuffer();
  /** The exchange whose request or response is in progress. */
  private current?: H1Exchange;
  private closed = false;
  private paused = false;
  private headTimer?: NodeJS.Timeout;
  /**
   * Armed at most once per idle period and not cleared when a request comes: when it fires, it
   * ends the connection if idle long enough, or arms itself for the rest (see idleCheck), so a
   * kept connection costs no timer call per request.
   */
  private idleTimer?: NodeJS.Timeout;
  /** When the connection last became idle (Date.now()); 0 while a request is read or served. */
  private idleSince = 0;
  /** The socket is corked until the end of this turn: a streamed body's parts go out as one write. */
  private gathering = false;

  /** `onError`: a fault of this server's own (not of the client's bytes); the connection is cut and the server goes on. */
  constructor(readonly socket: TLSSocket, private readonly limits: ListenerLimits, private readonly onRequest: RequestListener,
    private readonly onError: (err: Error) => void = () => undefined, private readonly onRefusal?: RefusalListener) {
    socket.on('data', this.dataListener);
    // The client ended its side: what is in flight is abandoned (the socket ends with it, allowHalfOpen being off).
    socket.on('end', this.closeListener);
    socket.on('close', this.closeListener);
    socket.on('error', this.closeListener);
    socket.on('drain', this.drainListener);
  }

  private readonly dataListener = (chunk: Buffer): void => this.onData(chunk);
  private readonly closeListener = (): void => this.onClose();
  private readonly drainListener = (): void => this.current?.res.drained();
  private readonly endOfTurn = (): void => this.ungather();

  // ---- reading ----

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.input.append(chunk);
    this.run();
  }

  /** Parses what has arrived; between requests, the idle timeout runs. */
  private run(): void {
    try {
      this.parse();
    } catch (err) {
      if (err instanceof ProtocolError) this.fail(err);
      else this.internalError(err);
      return;
    }
    if (!this.closed && !this.current && !this.headTimer && this.idleSince === 0) {
      this.idleSince = Date.now();
      this.idleTimer ??= setTimeout(this.idleCheck, this.limits.idleTimeoutMs).unref();
    }
  }

  private readonly idleCheck = (): void => {
    this.idleTimer = undefined;
    // Busy (a request came since): the next idle period arms the timer again.
    if (this.closed || this.idleSince === 0) return;
    const left = this.idleSince + this.limits.idleTimeoutMs - Date.now();
    if (left <= 0) this.end();
    else this.idleTimer = setTimeout(this.idleCheck, left).unref();
  };

  private parse(): void {
    while (!this.closed && this.input.bytes.length) {
      const ex = this.current;
      if (!ex) {
        if (!this.parseHead()) return;
        continue;
      }
      if (ex.body === Body.Done || ex.body === Body.None) {
        // Pipelined: the next request waits for this response.
        if (this.input.bytes.length > MAX_WAITING + this.limits.maxHeaderBytes && !this.paused) {
          this.paused = true;
          this.socket.pause();
        }
        return;
      }
      if (!this.parseBody(ex)) return;
    }
  }

  /** Parses a request head if a whole one is there; false when more bytes are needed. */
  private parseHead(): boolean {
    let buf = this.input.bytes;
    // Empty lines before a request line are ignored (RFC 9112 2.2), ended by CRLF or a bare LF.
    // Stricter than llhttp, which skips a bare CR there too: RFC 9112 2.2 makes a bare CR invalid.
    let start = 0;
    for (;;) {
      if (buf[start] === 10) start++;
      else if (buf[start] === 13 && start + 1 < buf.length) {
        if (buf[start + 1] !== 10) throw new ProtocolError(400, 'bare-cr');
        start += 2;
      } else break;
    }
    if (start) {
      this.input.consume(start);
      buf = this.input.bytes;
      if (!buf.length) return false;
    }
    this.idleSince = 0;
    const end = this.input.find('\r\n\r\n');
    if (end < 0) {
      if (buf.length > this.limits.maxHeaderBytes) throw new ProtocolError(431, 'head-too-large');
      this.headTimer ??= setTimeout(() => this.fail(new ProtocolError(408, 'head-timeout')), this.limits.headersTimeoutMs).unref();
      return false;
    }
    if (end > this.limits.maxHeaderBytes) throw new ProtocolError(431, 'head-too-large');
    if (this.headTimer) {
      clearTimeout(this.headTimer);
      this.headTimer = undefined;
    }
    const head = buf.toString('latin1', 0, end);
    this.input.consume(end + 4);
    this.startExchange(head);
    return true;
  }

  private startExchange(text: string): void {
    const head = parseRequestHead(text);
    const length = head.bodyLength;
    const body = length === CHUNKED ? Body.ChunkSize : length > 0 ? Body.Length : Body.None;
    if (head.expectContinue && body !== Body.None) this.socket.write(CONTINUE);
    const ex = new H1Exchange(this, head.method, head.url, head.minor, head.headers, head.rawHeaders, body, length, head.keepAlive);
    this.current = ex;
    if (body === Body.None) {
      ex.body = Body.Done;
      ex.req.pushEnd();
      if (asksUpgrade(head.headers)) offerUpgrade(ex.req, () => this.handOver(ex));
    }
    try {
      this.onRequest(ex.req, ex.res);
    } catch (err) {
      // The handler failed before it could answer: the connection is cut (node:http lets such an error crash the process).
      this.internalError(err);
    }
  }

  /** Hands on what the buffer holds of the current request's body; false when more bytes are needed. */
  private parseBody(ex: H1Exchange): boolean {
    const buf = this.input.bytes;
    switch (ex.body) {
      case Body.Length:
      case Body.ChunkData: {
        const n = Math.min(ex.left, buf.length);
        const data = buf.subarray(0, n);
        this.input.consume(n);
        ex.left -= n;
        if (!ex.closed) ex.req.pushData(data);
        if (ex.left === 0) {
          if (ex.body === Body.Length) this.bodyDone(ex);
          else ex.body = Body.ChunkEnd;
        }
        return true;
      }
      case Body.ChunkEnd: {
        if (buf.length < 2) return false;
        if (buf[0] !== 13 || buf[1] !== 10) throw new ProtocolError(400, 'chunk-data-end');
        this.input.consume(2);
        ex.body = Body.ChunkSize;
        return true;
      }
      case Body.ChunkSize: {
        const eol = this.input.find('\r\n');
        if (eol < 0) {
          if (buf.length > MAX_CHUNK_LINE) throw new ProtocolError(413, 'chunk-line-too-long');
          return false;
        }
        if (eol > MAX_CHUNK_LINE) throw new ProtocolError(413, 'chunk-line-too-long');
        const line = buf.toString('latin1', 0, eol);
        this.input.consume(eol + 2);
        ex.left = parseChunkSize(line);
        ex.body = ex.left === 0 ? Body.Trailers : Body.ChunkData;
        return true;
      }
      case Body.Trailers: {
        const eol = this.input.find('\r\n');
        if (eol < 0) {
          if (ex.trailerBytes + buf.length > this.limits.maxHeaderBytes) throw new ProtocolError(431, 'trailers-too-large');
          return false;
        }
        ex.trailerBytes += eol + 2;
        if (ex.trailerBytes > this.limits.maxHeaderBytes) throw new ProtocolError(431, 'trailers-too-large');
        // Each trailer field is checked as a header field would be, then dropped.
        if (eol > 0) checkTrailerLine(buf.toString('latin1', 0, eol));
        this.input.consume(eol + 2);
        if (eol === 0) this.bodyDone(ex);
        return true;
      }
      default:
        return false;
    }
  }

  private bodyDone(ex: H1Exchange): void {
    ex.body = Body.Done;
    if (!ex.closed) ex.req.pushEnd();
    // The response went out before the body was read: the next request follows the dropped body.
    else this.release(ex);
  }

  // ---- StreamOwner ----

  consumed(): void {
    // Backpressure on a request body is the socket's own (TCP's window); nothing to open.
  }

  sendHeaders(stream: Exchange, status: number, headers: Record<string, OutgoingValue | undefined>, end: boolean): void {
    const ex = stream as H1Exchange;
    if (ex.closed || this.closed) return;
    ex.bodyless = ex.req.method === 'HEAD' || status < 200 || status === 204 || status === 304;
    // A body the handler left unread is read and dropped while small; otherwise the connection goes after this response.
    if (ex.body !== Body.Done && (ex.body !== Body.Length || ex.left > MAX_DISCARD)) ex.keepAlive = false;
    const head = responseHead(status, ex.res.statusMessage, headers, { bodyless: ex.bodyless, keepAlive: ex.keepAlive, minor: ex.req.httpVersionMinor, end });
    ex.keepAlive = head.keepAlive;
    ex.chunked = head.chunked;
    ex.lengthLeft = head.lengthLeft;
    const bytes = head.bytes;
    if (end) {
      this.write(ex, bytes, true);
      return;
    }
    // Held for the first body bytes: one write, one TLS record (flushHeaders writes it alone).
    ex.pendingHead = bytes;
  }

  sendData(stream: Exchange, chunk: Buffer | undefined, end: boolean, cb?: () => void): void {
    const ex = stream as H1Exchange;
    if (ex.closed || this.closed || ex.responseEnded) {
      if (cb) process.nextTick(cb);
      return;
    }
    if (chunk && ex.bodyless) chunk = undefined;
    if (chunk && ex.lengthLeft >= 0) {
      // Bytes past the stated length are not sent: the client would take them for the next response.
      if (chunk.length > ex.lengthLeft) chunk = chunk.subarray(0, ex.lengthLeft);
      ex.lengthLeft -= chunk.length;
    }
    this.write(ex, chunk, end, cb);
  }

  reset(stream: Exchange): void {
    const ex = stream as H1Exchange;
    if (ex.closed) return;
    this.destroy();
  }

  // ---- writing ----

  /** Writes the pending head, body bytes in the response's framing, and the end of the response. */
  private write(ex: H1Exchange, chunk: Buffer | undefined, end: boolean, cb?: () => void): void {
    const parts: Buffer[] = [];
    if (ex.pendingHead) {
      parts.push(ex.pendingHead);
      ex.pendingHead = undefined;
    }
    if (chunk && chunk.length) {
      if (ex.chunked) parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, CRLF);
      else parts.push(chunk);
    }
    if (end) {
      if (ex.chunked) parts.push(LAST_CHUNK);
      ex.responseEnded = true;
      // A body shorter than its Content-Length leaves the client waiting for the rest: the connection has to go.
      if (ex.lengthLeft > 0) ex.keepAlive = false;
    }
    const sock = this.socket;
    if (sock.writableEnded || sock.destroyed) {
      if (cb) process.nextTick(cb);
      if (end) process.nextTick(() => this.destroy());
      return;
    }
    const done = end ? () => { cb?.(); this.finished(ex); } : cb;
    if (!end && parts.length && !this.gathering) {
      this.gathering = true;
      sock.cork();
      setImmediate(this.endOfTurn);
    }
    if (parts.length === 0) {
      if (done) process.nextTick(done);
    } else if (parts.length === 1) {
      sock.write(parts[0], done);
    } else {
      let total = 0;
      for (const p of parts) total += p.length;
      if (total <= 64 * 1024) {
        sock.write(Buffer.concat(parts, total), done);
      } else {
        // A big body is not copied: the parts go as one writev.
        sock.cork();
        for (let i = 0; i < parts.length - 1; i++) sock.write(parts[i]);
        sock.write(parts[parts.length - 1], done);
        sock.uncork();
      }
    }
    // The response is whole: what the turn gathered goes now, with its end.
    if (end) this.ungather();
  }

  /** Writes what the socket gathered this turn (one writev, which Node's TLS side encrypts as one piece). */
  private ungather(): void {
    if (!this.gathering) return;
    this.gathering = false;
    this.socket.uncork();
  }

  /** The response's last bytes are on the socket. */
  private finished(ex: H1Exchange): void {
    if (ex.closed) return;
    ex.res.finishFromStream();
    this.closeExchange(ex, false);
    if (!ex.keepAlive) {
      this.end();
      return;
    }
    // A small body the handler did not read may still be arriving: it is dropped (bodyDone), then the next request is read.
    if (ex.body !== Body.Done) return;
    this.release(ex);
    this.run();
  }

  /** The exchange is over: the connection takes the next request. */
  private release(ex: H1Exchange): void {
    if (this.current !== ex) return;
    this.current = undefined;
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private closeExchange(ex: H1Exchange, aborted: boolean): void {
    if (ex.closed) return;
    ex.closed = true;
    ex.req.closeFromStream(aborted);
    ex.res.closeFromStream();
  }

  // ---- upgrades ----

  /**
   * Lets go of the socket for a tunnel: nothing more is read or written here, the bytes read past
   * the request head go with it, and the exchange closes (its response was never begun).
   */
  private handOver(ex: H1Exchange): UpgradeSocket | undefined {
    if (this.closed || this.current !== ex || ex.closed || ex.res.headersSent || ex.pendingHead || ex.responseEnded) return undefined;
    const sock = this.socket;
    sock.off('data', this.dataListener);
    sock.off('end', this.closeListener);
    sock.off('close', this.closeListener);
    sock.off('error', this.closeListener);
    sock.off('drain', this.drainListener);
    const head = Buffer.from(this.input.bytes);
    this.closed = true;
    this.clearTimers();
    this.input.clear();
    this.current = undefined;
    // Held until the tunnel reads it: bytes arriving before then wait in the socket.
    sock.pause();
    this.closeExchange(ex, false);
    return { socket: sock, head };
  }

  // ---- ending ----

  /** A bug met while serving this connection: reported, and the connection cut; never a crash of the server. */
  private internalError(err: unknown): void {
    this.destroy();
    this.onError(err instanceof Error ? err : new Error(String(err)));
  }

  /** A request the connection cannot take: answered, then closed in order; nothing after it is read. */
  private fail(err: ProtocolError): void {
    if (this.closed) return;
    this.onRefusal?.(err);
    const ex = this.current;
    if (ex && (ex.res.headersSent || ex.responseEnded)) {
      this.destroy();
      return;
    }
    this.closed = true;
    this.clearTimers();
    this.input.clear();
    if (ex) this.closeExchange(ex, true);
    answerAndClose(this.socket, REFUSAL_ANSWERS[err.status]);
  }

  /** Closes in order: FIN after what is written, the socket cut if the peer does not close in time. */
  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    this.input.clear();
    if (this.current) this.closeExchange(this.current, true);
    answerAndClose(this.socket);
  }

  destroy(): void {
    this.socket.destroy();
    this.onClose();
  }

  private onClose(): void {
    const ex = this.current;
    this.closed = true;
    this.clearTimers();
    this.input.clear();
    if (ex && !ex.closed) this.closeExchange(ex, !ex.responseEnded);
    this.current = undefined;
  }

  private clearTimers(): void {
    if (this.headTimer) clearTimeout(this.headTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.headTimer = this.idleTimer = undefined;
  }
}
