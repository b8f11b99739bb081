/**
 * The request and response of one HTTP/2 stream on the server's own HTTP/2 side, shaped as the
 * parts of Node's IncomingMessage and ServerResponse that Koa and this server use:
 *  - the request: method, url, headers (with the pseudo-headers, as node:http2 gives them),
 *    rawHeaders, httpVersion 2.0, socket (the TLS socket), and the body as 'data' and 'end'
 *    events once a 'data' listener or resume() asks for it; 'close' when the stream closes;
 *  - the response: statusCode, the header methods, writeHead/flushHeaders, write with a
 *    callback and backpressure ('drain', writableLength), end, destroy, and 'finish' then
 *    'close' in Node's order.
 * They are plain event emitters, not streams: a Readable and a Writable per request cost more
 * than the rest of this layer.
 */
import { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';
import type { OutgoingValue } from './header-block';

/** What a stream's messages ask of their session. */
export interface StreamOwner {
  readonly socket: TLSSocket;
  /** The request's consumer took `bytes` of its body: the stream's receive window may be opened. */
  consumed(stream: H2Stream, bytes: number): void;
  /** Response HEADERS, with END_STREAM when `end`. */
  sendHeaders(stream: H2Stream, status: number, headers: Record<string, OutgoingValue | undefined>, end: boolean): void;
  /** Queues body bytes (and END_STREAM after them when `end`); `cb` once they are on the socket. */
  sendData(stream: H2Stream, chunk: Buffer | undefined, end: boolean, cb?: () => void): void;
  /** RST_STREAM with `code`, and the stream closed. */
  reset(stream: H2Stream, code: number): void;
}

/** Node's test for header values (http's checkInvalidHeaderChar). */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const VALID_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Connection-specific fields, which HTTP/2 forbids (RFC 9113 8.2.2): dropped, as node:http2's compatibility layer drops them. */
export const CONNECTION_FIELDS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
/** Response bytes queued in a stream beyond which write() answers false. */
const HIGH_WATER_MARK = 64 * 1024;

export class H2Stream {
  /** Our receive window for this stream's body. */
  recvWindow: number;
  /** Body bytes taken by the consumer since the last WINDOW_UPDATE for this stream. */
  recvUnacked = 0;
  /** The peer's window for our DATA on this stream. */
  sendWindow: number;
  /** Body chunks not yet framed (waiting for a window or the socket). */
  readonly queue: Array<{ buf: Buffer; cb?: () => void }> = [];
  queuedBytes = 0;
  /** END_STREAM goes after the queue. */
  endQueued = false;
  /** The peer sent END_STREAM (or reset the stream). */
  remoteEnded = false;
  /** We sent END_STREAM (or reset the stream). */
  localEnded = false;
  closed = false;
  readonly req: H2ServerRequest;
  readonly res: H2ServerResponse;

  constructor(readonly id: number, readonly owner: StreamOwner, headers: Record<string, string | undefined>, rawHeaders: string[],
    recvWindow: number, sendWindow: number) {
    this.recvWindow = recvWindow;
    this.sendWindow = sendWindow;
    this.req = new H2ServerRequest(this, headers, rawHeaders);
    this.res = new H2ServerResponse(this);
  }
}

export class H2ServerRequest extends EventEmitter {
  readonly httpVersion = '2.0';
  readonly httpVersionMajor = 2;
  readonly httpVersionMinor = 0;
  readonly method: string;
  url: string;
  readonly socket: TLSSocket;
  /** The body has been handed out to its end ('end' emitted). */
  readableEnded = false;
  complete = false;
  aborted = false;
  destroyed = false;
  /** Body chunks received before anyone asked for them. */
  private pending: Buffer[] = [];
  private flowing = false;
  private ended = false;
  private flushScheduled = false;

  constructor(private readonly stream: H2Stream, readonly headers: Record<string, string | undefined>, readonly rawHeaders: string[]) {
    super();
    this.method = headers[':method'] ?? '';
    this.url = headers[':path'] ?? '';
    this.socket = stream.owner.socket;
  }

  get authority(): string | undefined {
    return this.headers[':authority'];
  }

  get scheme(): string | undefined {
    return this.headers[':scheme'];
  }

  /** A 'data' listener starts the flow of the body, as on a Readable. */
  on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === 'data' && !this.flowing) this.resume();
    return this;
  }

  addListener(event: string | symbol, listener: (...args: any[]) => void): this {
    return this.on(event, listener);
  }

  resume(): this {
    this.flowing = true;
    this.scheduleFlush();
    return this;
  }

  pause(): this {
    this.flowing = false;
    return this;
  }

  destroy(): this {
    if (!this.stream.closed) this.stream.owner.reset(this.stream, 0x8 /* CANCEL */);
    return this;
  }

  /** From the session: a body chunk. */
  pushData(chunk: Buffer): void {
    if (this.flowing && this.pending.length === 0) this.deliver(chunk);
    else this.pending.push(chunk);
  }

  /** From the session: END_STREAM. */
  pushEnd(): void {
    this.ended = true;
    this.complete = true;
    if (this.flowing) this.scheduleFlush();
  }

  /** From the session: the stream closed (reset, session gone, or both sides ended). */
  closeFromStream(aborted: boolean): void {
    this.destroyed = true;
    if (aborted && !this.complete) {
      this.aborted = true;
      this.emit('aborted');
    }
    this.pending = [];
    this.emit('close');
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    process.nextTick(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    while (this.flowing && this.pending.length) this.deliver(this.pending.shift()!);
    if (this.flowing && this.ended && !this.readableEnded && this.pending.length === 0) {
      this.readableEnded = true;
      this.emit('end');
    }
  }

  private deliver(chunk: Buffer): void {
    if (this.stream.closed && this.destroyed) return;
    this.emit('data', chunk);
    this.stream.owner.consumed(this.stream, chunk.length);
  }
}

export class H2ServerResponse extends EventEmitter {
  statusCode = 200;
  /** Ignored over HTTP/2 (no reason phrase), kept for Koa. */
  statusMessage = '';
  headersSent = false;
  /** end() was called. */
  writableEnded = false;
  /** END_STREAM went to the socket. */
  writableFinished = false;
  destroyed = false;
  private headers: Record<string, OutgoingValue | undefined> = Object.create(null);
  private needDrain = false;

  constructor(private readonly stream: H2Stream) {
    super();
  }

  get socket(): TLSSocket | null {
    return this.destroyed ? null : this.stream.owner.socket;
  }

  /** As node:http2: the stream's request and response share one stream. */
  get finished(): boolean {
    return this.writableEnded;
  }

  get writable(): boolean {
    return !this.writableEnded && !this.destroyed;
  }

  get writableLength(): number {
    return this.stream.queuedBytes;
  }

  setHeader(name: string, value: OutgoingValue): this {
    if (this.headersSent) throw Object.assign(new Error('Cannot set headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    if (!VALID_NAME.test(name)) throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
    const values = typeof value === 'object' ? value : [String(value)];
    for (const v of values) {
      if (INVALID_VALUE.test(v)) throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
    }
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): OutgoingValue | undefined {
    return this.headers[name.toLowerCase()];
  }

  getHeaders(): Record<string, OutgoingValue> {
    const out: Record<string, OutgoingValue> = Object.create(null);
    for (const k in this.headers) if (this.headers[k] !== undefined) out[k] = this.headers[k]!;
    return out;
  }

  getHeaderNames(): string[] {
    return Object.keys(this.headers).filter((k) => this.headers[k] !== undefined);
  }

  hasHeader(name: string): boolean {
    return this.headers[name.toLowerCase()] !== undefined;
  }

  removeHeader(name: string): void {
    if (this.headersSent) throw Object.assign(new Error('Cannot remove headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    // Assigned, not deleted: the object stays a fast one.
    const key = name.toLowerCase();
    if (this.headers[key] !== undefined) this.headers[key] = undefined;
  }

  writeHead(status: number, reasonOrHeaders?: string | Record<string, OutgoingValue>, maybeHeaders?: Record<string, OutgoingValue>): this {
    const headers = typeof reasonOrHeaders === 'object' ? reasonOrHeaders : maybeHeaders;
    this.statusCode = status;
    if (headers) for (const k of Object.keys(headers)) this.setHeader(k, headers[k]);
    return this;
  }

  flushHeaders(): void {
    if (!this.headersSent && !this.destroyed) this.sendHead(false);
  }

  write(chunk: Buffer | string, encodingOrCb?: BufferEncoding | (() => void), cb?: () => void): boolean {
    const callback = typeof encodingOrCb === 'function' ? encodingOrCb : cb;
    if (this.writableEnded || this.destroyed) {
      if (callback) process.nextTick(callback);
      return false;
    }
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, typeof encodingOrCb === 'string' ? encodingOrCb : 'utf8') : chunk;
    if (!this.headersSent) this.sendHead(false);
    if (buf.length) this.stream.owner.sendData(this.stream, buf, false, callback);
    else if (callback) process.nextTick(callback);
    if (this.stream.queuedBytes > HIGH_WATER_MARK) {
      this.needDrain = true;
      return false;
    }
    return true;
  }

  end(chunk?: Buffer | string | (() => void), encodingOrCb?: BufferEncoding | (() => void), cb?: () => void): this {
    if (typeof chunk === 'function') {
      cb = chunk;
      chunk = undefined;
    } else if (typeof encodingOrCb === 'function') {
      cb = encodingOrCb;
    }
    if (this.writableEnded || this.destroyed) {
      if (cb) process.nextTick(cb);
      return this;
    }
    this.writableEnded = true;
    if (cb) this.once('finish', cb);
    const buf = chunk === undefined ? undefined
      : typeof chunk === 'string' ? Buffer.from(chunk, typeof encodingOrCb === 'string' ? encodingOrCb : 'utf8') : chunk;
    if (!this.headersSent) {
      // Answered in one go: a length known from the body unless a header states one.
      if (buf && this.headers['content-length'] === undefined) this.headers['content-length'] = buf.length;
      if (!buf || buf.length === 0) {
        this.sendHead(true);
        return this;
      }
      this.sendHead(false);
    }
    this.stream.owner.sendData(this.stream, buf && buf.length ? buf : undefined, true);
    return this;
  }

  destroy(err?: Error): this {
    if (!this.destroyed && !this.stream.closed) this.stream.owner.reset(this.stream, err ? 0x2 /* INTERNAL_ERROR */ : 0x8 /* CANCEL */);
    return this;
  }

  /** From the session: the queue fell below the high-water mark. */
  drained(): void {
    if (this.needDrain && this.stream.queuedBytes <= HIGH_WATER_MARK) {
      this.needDrain = false;
      this.emit('drain');
    }
  }

  /** From the session: END_STREAM is on the socket. */
  finishFromStream(): void {
    if (this.writableFinished) return;
    this.writableFinished = true;
    this.emit('finish');
  }

  /** From the session: the stream closed. */
  closeFromStream(): void {
    this.destroyed = true;
    this.emit('close');
  }

  private sendHead(end: boolean): void {
    this.headersSent = true;
    const headers = this.headers;
    for (const name of CONNECTION_FIELDS) if (headers[name] !== undefined) headers[name] = undefined;
    if (headers.date === undefined) headers.date = httpDate();
    this.stream.owner.sendHeaders(this.stream, this.statusCode, headers, end);
  }
}

let dateSecond = -1;
let dateText = '';

/** The Date header's value, made once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}
