/**
 * The request and response of one exchange on the server's own protocol sides (an HTTP/2 stream
 * of http2/server-session.ts, an HTTP/1.1 request of http1/connection.ts), shaped as the parts of Node's
 * IncomingMessage and ServerResponse that Koa and this server use:
 *  - the request: method, url, headers (over HTTP/2 with the pseudo-headers, as node:http2 gives
 *    them), rawHeaders, httpVersion, socket (the TLS socket), and the body as 'data' and 'end'
 *    events once a 'data' listener or resume() asks for it; 'close' when the exchange closes;
 *  - the response: statusCode, the header methods, writeHead/flushHeaders, write with a
 *    callback and backpressure ('drain', writableLength), end, destroy, and 'finish' then
 *    'close' in Node's order.
 * They are plain event emitters, not streams: a Readable and a Writable per request cost more
 * than the rest of this layer.
 */
import { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';

/** A response header's value, as ServerResponse.setHeader takes it. */
export type OutgoingValue = string | number | readonly string[];

/** One request and its response, as the messages see it: an HTTP/2 stream, or an HTTP/1.1 exchange. */
export interface Exchange {
  readonly owner: StreamOwner;
  readonly closed: boolean;
  /** Response bytes written but not yet on the socket (the response's writableLength). */
  readonly queuedBytes: number;
}

/** What an exchange's messages ask of their connection. */
export interface StreamOwner {
  readonly socket: TLSSocket;
  /** The request's consumer took `bytes` of its body: the stream's receive window may be opened. */
  consumed(stream: Exchange, bytes: number): void;
  /** The response head (HTTP/2: HEADERS, with END_STREAM when `end`). */
  sendHeaders(stream: Exchange, status: number, headers: Record<string, OutgoingValue | undefined>, end: boolean): void;
  /** Queues body bytes (and the end of the response after them when `end`); `cb` once they are on the socket. */
  sendData(stream: Exchange, chunk: Buffer | undefined, end: boolean, cb?: () => void): void;
  /** Abandons the exchange (HTTP/2: RST_STREAM with `code`; HTTP/1.1: the connection is cut). */
  reset(stream: Exchange, code: number): void;
}

/** Node's test for header values (http's checkInvalidHeaderChar). */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const VALID_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Header names already found valid (the server sets a few dozen). */
const validNames = new Set<string>();

function checkName(name: string): void {
  if (!VALID_NAME.test(name)) throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
  if (validNames.size < 256) validNames.add(name);
}

function invalidValue(name: string): never {
  throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
}

/** Response bytes queued in a stream beyond which write() answers false. */
const HIGH_WATER_MARK = 64 * 1024;

export class ServerRequest extends EventEmitter {
  readonly httpVersion: string;
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

  constructor(private readonly stream: Exchange, readonly method: string, public url: string,
    readonly httpVersionMajor: number, readonly httpVersionMinor: number,
    readonly headers: Record<string, string | string[] | undefined>, readonly rawHeaders: string[]) {
    super();
    this.httpVersion = `${httpVersionMajor}.${httpVersionMinor}`;
    this.socket = stream.owner.socket;
  }

  get authority(): string | undefined {
    return this.headers[':authority'] as string | undefined;
  }

  get scheme(): string | undefined {
    return this.headers[':scheme'] as string | undefined;
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

export class ServerResponse extends EventEmitter {
  statusCode = 200;
  /** HTTP/1.1's reason phrase (empty: the standard one); HTTP/2 has none. */
  statusMessage = '';
  headersSent = false;
  /** end() was called. */
  writableEnded = false;
  /** END_STREAM went to the socket. */
  writableFinished = false;
  destroyed = false;
  private headers: Record<string, OutgoingValue | undefined> = Object.create(null);
  private needDrain = false;

  constructor(private readonly stream: Exchange) {
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
    if (!validNames.has(name)) checkName(name);
    if (typeof value === 'object') {
      for (const v of value) if (INVALID_VALUE.test(v)) invalidValue(name);
    } else if (typeof value === 'string' && INVALID_VALUE.test(value)) {
      invalidValue(name);
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
    if (this.headersSent || this.destroyed) return;
    this.sendHead(false);
    // No body bytes to carry the head (HTTP/1.1 holds it for them): the connection writes it now.
    this.stream.owner.sendData(this.stream, undefined, false);
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
