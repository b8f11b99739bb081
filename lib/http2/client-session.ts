/**
 * An HTTP/2 client connection (RFC 9113) for the etcd client's gRPC calls and watches, and for
 * the aggregation proxy's requests to backends that take h2 (lib/aggregation/h2-exchange.ts),
 * written on a plain or TLS socket instead of node:http2.
 *
 * Why: through node:http2 each unary call costs a Duplex stream with its listeners, header
 * objects built and converted both ways, an AsyncResource and nghttp2's own bookkeeping: about
 * three quarters of the client's CPU per Txn. Measured with the storage layer alone at 64 Txns in
 * flight (`make bench ARGS='--only=etcd-client --quick'`): 0.221 ms of client CPU per create
 * through node:http2, 0.095 ms here. A call here is one small object whose handler gets plain
 * callbacks, its request goes out as two buffers with the frames of every call made in the same
 * turn of the event loop written together, and its answer's header block is usually a lookup
 * (hpack.ts).
 *
 * What it does: the connection preface and SETTINGS both ways; flow control both ways (receive
 * windows opened to the maximum and topped up, or with `streamWindow` each stream's bounded and
 * topped up only while its owner takes data; sends held while the peer's window is shut, in
 * frames no larger than the peer allows); the peer's stream limit (requests over it wait their
 * turn); header blocks across CONTINUATION frames (at most 64 of them and 4 times the header-list
 * limit), decoded on every stream, known or not, so that the HPACK table stays in step, a list
 * over `maxHeaderListSize` resetting its stream (RFC 9113 10.5.1); PING answered; RST_STREAM and GOAWAY (streams the peer
 * never processed are failed as refused: REFUSED_STREAM); with `readIdleTimeoutMs`, Go's health
 * check by PING (ping-health.ts: the aggregation proxy's connections; the etcd client probes with
 * a Range instead). What it does not: server push (disabled in SETTINGS), priorities (ignored),
 * or being a server.
 *
 * A protocol violation by the peer, or a header block that cannot be decoded, is a connection
 * error: GOAWAY with its code, then the session is destroyed with an Error saying what was wrong.
 *
 * Its parts: a stream and its handler (client-stream.ts); the sending half, framing within the
 * peer's windows and writing a turn's frames together (client-sender.ts).
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import {
  CANCEL, COMPRESSION_ERROR, CONTINUATION, DATA, DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW, FLAG_ACK, FLAG_END_HEADERS,
  FLAG_END_STREAM, FLAG_PADDED, FLAG_PRIORITY, FLOW_CONTROL_ERROR, FRAME_HEADER, FRAME_SIZE_ERROR, FrameReader, GOAWAY,
  HEADERS, MAX_WINDOW, NO_ERROR, PING, PREFACE, PROTOCOL_ERROR, PUSH_PROMISE, REFUSED_STREAM, RST_STREAM, SETTINGS,
  SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_MAX_FRAME_SIZE,
  SETTINGS_MAX_HEADER_LIST_SIZE, ENHANCE_YOUR_CALM, WINDOW_UPDATE, goawayFrame, rstStreamFrame, settingsFrame, windowUpdateFrame, writeFrameHeader,
} from './frames';
import { ClientSender } from './client-sender';
import { H2Stream, type H2StreamHandler, type StreamSession } from './client-stream';
import { ConnectionError } from './connection-error';
import { HpackDecoder, HpackError } from './hpack';
import { PingHealth } from './ping-health';

export { H2Stream };
export type { H2StreamHandler };

/** When a receive window has this much consumed, it is topped up again. */
const TOP_UP = 2 ** 30;
const MAX_STREAM_ID = 0x7fffffff;
/** A response header block may come in at most this many CONTINUATION frames. */
const MAX_CONTINUATIONS = 64;
/** Go's HTTP/2 transport's default limit of a response's header list (10 MiB). */
const DEFAULT_MAX_HEADER_LIST_SIZE = 10 << 20;

export interface H2ConnectOptions {
  host: string;
  port: number;
  /** Set: TLS with these (ALPN h2); absent: plain TCP with prior knowledge, as gRPC over http://. */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** A connection already made (its TLS handshake done and `h2` negotiated): used instead of dialling `host`. */
  socket?: net.Socket;
  /**
   * The largest response header list taken (RFC 9113 6.5.2's size, announced in SETTINGS); a
   * larger one resets its stream (the H2Stream's `cutReason` says why). Default 10 MiB.
   */
  maxHeaderListSize?: number;
  /**
   * Each stream's receive window. Default the largest (2^31 - 1): the peer never waits. Smaller,
   * it bounds what a stream's owner is handed while it has paused the stream (H2Stream.pause).
   */
  streamWindow?: number;
  /**
   * The health check (ping-health.ts): after this long without a read, a PING; without its ACK
   * within `pingTimeoutMs`, the session is destroyed (`http2: client connection lost`). Absent
   * or 0: none.
   */
  readIdleTimeoutMs?: number;
  /** How long a health check's PING may go unanswered (default 15 s, Go's). */
  pingTimeoutMs?: number;
}

/**
 * One connection. Events: 'connect' (TCP, or TLS, established), 'remoteSettings' (each SETTINGS
 * frame from the peer), 'goaway' (code, lastStreamId), 'error' (err; only emitted when listened
 * for), 'close' (after destroy, once).
 */
export class H2Session extends EventEmitter implements StreamSession {
  /** No new streams: close() was called or the peer sent GOAWAY. */
  closed = false;
  destroyed = false;
  /** What destroyed the session, if an error did. */
  error: Error | undefined = undefined;
  readonly socket: net.Socket;
  private readonly decoder = new HpackDecoder();
  private readonly reader: FrameReader;
  private readonly streams = new Map<number, H2Stream>();
  /** Streams waiting for the peer's stream limit, in order. */
  private readonly waiting: H2Stream[] = [];
  private nextId = 1;
  private peerMaxStreams = Infinity;
  private peerInitialWindow = DEFAULT_WINDOW;
  private readonly sender: ClientSender;
  /** Bytes received since the connection's receive window was last topped up. */
  private received = 0;
  /** A header block being received across CONTINUATION frames. */
  private partial: { streamId: number; endStream: boolean; parts: Buffer[]; bytes: number } | undefined;
  private readonly maxHeaderListSize: number;
  private readonly streamWindow: number;
  private longLived = 0;
  private unrefWhenIdle = false;
  private readonly closeCallbacks: Array<() => void> = [];
  private readonly health: PingHealth | undefined;

  constructor(opts: H2ConnectOptions) {
    super();
    this.reader = new FrameReader((type, flags, id, payload) => this.onFrame(type, flags, id, payload));
    this.maxHeaderListSize = opts.maxHeaderListSize ?? DEFAULT_MAX_HEADER_LIST_SIZE;
    this.streamWindow = opts.streamWindow ?? MAX_WINDOW;
    const socket = opts.socket ?? (opts.tls
      ? tls.connect({ host: opts.host, port: opts.port, ca: opts.tls.ca, cert: opts.tls.cert, key: opts.tls.key, ALPNProtocols: ['h2'] })
      : net.connect({ host: opts.host, port: opts.port }));
    this.socket = socket;
    this.sender = new ClientSender(socket);
    socket.setNoDelay(true);
    if (opts.socket) {
      process.nextTick(() => { if (!this.destroyed) this.emit('connect'); });
    } else {
      socket.once(opts.tls ? 'secureConnect' : 'connect', () => {
        if (!this.destroyed) this.emit('connect');
      });
    }
    if (opts.readIdleTimeoutMs) {
      this.health = new PingHealth({ write: (frame) => this.sender.write(frame), lost: (err) => this.destroy(err) },
        opts.readIdleTimeoutMs, opts.pingTimeoutMs ?? 15_000);
    }
    socket.on('data', (chunk: Buffer) => this.onRead(chunk));
    socket.on('error', (err: Error) => this.destroy(err));
    socket.on('close', () => this.destroy());
    // Written once connected (a socket holds writes until then). Our streams may take the largest
    // window at once; the connection's grows to it by WINDOW_UPDATE.
    this.sender.write(Buffer.concat([
      PREFACE,
      settingsFrame([
        [SETTINGS_ENABLE_PUSH, 0], [SETTINGS_INITIAL_WINDOW_SIZE, this.streamWindow],
        [SETTINGS_MAX_HEADER_LIST_SIZE, Math.min(this.maxHeaderListSize, 0xffffffff)],
      ]),
      windowUpdateFrame(0, MAX_WINDOW - DEFAULT_WINDOW),
    ]));
  }

  /** Bytes read on the socket so far. */
  get bytesRead(): number {
    return this.socket.bytesRead;
  }

  /**
   * Starts a request: `block` is its encoded header block (hpack.encodeHeaderBlock), `body` its
   * first data; `end`: nothing follows. A long-lived stream (a watch) keeps the process alive
   * while open, even after unref(). Throws when the session takes no new streams.
   */
  request(block: Buffer, handler: H2StreamHandler, body: Buffer | undefined, end: boolean, longLived = false): H2Stream {
    if (this.closed || this.destroyed) throw new Error(this.destroyed ? 'the HTTP/2 session is destroyed' : 'the HTTP/2 session is closing');
    if (this.nextId > MAX_STREAM_ID) {
      this.close();
      throw new Error('the HTTP/2 session has used up its stream ids');
    }
    const stream = new H2Stream(this, handler, longLived);
    if (longLived && this.longLived++ === 0) this.socket.ref();
    if (this.streams.size >= this.peerMaxStreams) {
      stream.block = block;
      if (body !== undefined || end) this.sender.hold(stream, body, end);
      this.waiting.push(stream);
      return stream;
    }
    this.open(stream, block, body, end);
    return stream;
  }

  /** Lets the process exit while no long-lived stream is open (unary calls keep it alive by their timers). */
  unref(): void {
    this.unrefWhenIdle = true;
    if (this.longLived === 0) this.socket.unref();
  }

  /** No new streams; the connection ends once the open ones are over. `callback` runs at 'close'. */
  close(callback?: () => void): void {
    if (callback) {
      if (this.destroyed) process.nextTick(callback);
      else this.closeCallbacks.push(callback);
    }
    if (this.destroyed) return;
    this.closed = true;
    this.endIfIdle();
  }

  /** The streams not yet over, opened or waiting to open. */
  openStreams(): H2Stream[] {
    return [...this.streams.values(), ...this.waiting];
  }

  /** Ends the connection now; every open stream is closed. */
  destroy(err?: Error): void {
    if (this.destroyed) return;
    this.error = err;
    this.destroyed = true;
    this.health?.stop();
    this.sender.stop();
    this.closed = true;
    this.socket.destroy();
    for (const stream of this.waiting.splice(0)) this.finish(stream, REFUSED_STREAM);
    for (const stream of [...this.streams.values()]) this.finish(stream, CANCEL);
    process.nextTick(() => {
      if (err && this.listenerCount('error') > 0) this.emit('error', err);
      this.emit('close');
      for (const cb of this.closeCallbacks.splice(0)) cb();
    });
  }

  // -------------------------------------------------------------------------------------------
  // Sending.

  /** Sends the stream's HEADERS (it now has an id), then its held data. */
  private open(stream: H2Stream, block: Buffer, body: Buffer | undefined, end: boolean): void {
    stream.id = this.nextId;
    this.nextId += 2;
    stream.sendWindow = this.peerInitialWindow;
    this.streams.set(stream.id, stream);
    const endWithHeaders = end && (body === undefined || body.length === 0) && stream.pending === undefined;
    this.sender.headers(stream.id, block, endWithHeaders);
    if (endWithHeaders) {
      stream.localEnded = true;
      return;
    }
    if (stream.pending !== undefined) {
      // Held while waiting to open: it goes out now, in order.
      const pending = stream.pending;
      const pendingEnd = stream.pendingEnd;
      stream.pending = undefined;
      stream.pendingEnd = false;
      for (let i = 0; i < pending.length; i++) this.sender.send(stream, pending[i], pendingEnd && i === pending.length - 1);
      if (pending.length === 0 && pendingEnd) this.sender.send(stream, undefined, true);
      if (stream.pending === undefined) stream.handler.onWritable?.(stream);
    } else if (body !== undefined || end) {
      this.sender.send(stream, body, end);
    }
  }

  /** Sends `data` (and END_STREAM when `end`) as far as the windows allow; holds the rest. */
  send(stream: H2Stream, data: Buffer | undefined, end: boolean): void {
    this.sender.send(stream, data, end);
  }

  /** Resets a stream from this side. */
  reset(stream: H2Stream, code: number): void {
    if (stream.closed) return;
    if (stream.id !== 0 && !this.destroyed) this.sender.write(rstStreamFrame(stream.id, code));
    this.finish(stream, code);
  }

  /** The stream is over: bookkeeping, then its handler hears of it. */
  private finish(stream: H2Stream, rstCode: number): void {
    if (stream.closed) return;
    stream.closed = true;
    if (stream.rstCode === NO_ERROR) stream.rstCode = rstCode;
    stream.pending = undefined;
    if (stream.id !== 0) {
      this.streams.delete(stream.id);
    } else {
      const i = this.waiting.indexOf(stream);
      if (i >= 0) this.waiting.splice(i, 1);
    }
    if (stream.longLived && --this.longLived === 0 && this.unrefWhenIdle && !this.destroyed) this.socket.unref();
    if (!this.destroyed) {
      this.openWaiting();
      this.endIfIdle();
    }
    stream.handler.onClose(stream);
  }

  private openWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxStreams && !this.closed) {
      const stream = this.waiting.shift()!;
      const block = stream.block!;
      stream.block = undefined;
      this.open(stream, block, undefined, false);
    }
  }

  /** A closing session without streams says GOAWAY and ends the connection. */
  private endIfIdle(): void {
    if (!this.closed || this.destroyed || this.streams.size > 0 || this.waiting.length > 0) return;
    this.sender.write(goawayFrame(0, NO_ERROR));
    this.sender.flush();
    this.socket.end();
  }

  // -------------------------------------------------------------------------------------------
  // Receiving.

  private onRead(chunk: Buffer): void {
    if (this.destroyed) return;
    this.health?.heard();
    try {
      this.reader.push(chunk);
    } catch (err) {
      if (err instanceof ConnectionError) this.connectionError(err.code, err.message);
      else if (err instanceof HpackError) this.connectionError(COMPRESSION_ERROR, `undecodable header block: ${err.message}`);
      else throw err;
    }
  }

  private connectionError(code: number, message: string): void {
    if (this.destroyed) return;
    // This client processes no streams of the peer's: the last one is 0. The GOAWAY goes out first.
    this.sender.write(goawayFrame(0, code));
    this.sender.flush();
    this.destroy(new Error(`HTTP/2 protocol error from the peer: ${message}`));
  }

  private onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.destroyed) return;
    if (this.partial !== undefined && (type !== CONTINUATION || id !== this.partial.streamId)) {
      throw new ConnectionError(PROTOCOL_ERROR, 'a header block was interrupted by another frame');
    }
    switch (type) {
      case DATA: this.onDataFrame(flags, id, payload); break;
      case HEADERS: this.onHeadersFrame(flags, id, payload); break;
      case CONTINUATION: this.onContinuation(flags, id, payload); break;
      case RST_STREAM: {
        if (payload.length !== 4) throw new ConnectionError(FRAME_SIZE_ERROR, 'RST_STREAM of the wrong size');
        const stream = this.streams.get(id);
        if (stream !== undefined) this.finish(stream, payload.readUInt32BE(0));
        break;
      }
      case SETTINGS: this.onSettings(flags, payload); break;
      case PING:
        if (payload.length !== 8) throw new ConnectionError(FRAME_SIZE_ERROR, 'PING of the wrong size');
        if (!(flags & FLAG_ACK)) {
          const ack = Buffer.allocUnsafe(FRAME_HEADER + 8);
          writeFrameHeader(ack, 0, 8, PING, FLAG_ACK, 0);
          payload.copy(ack, FRAME_HEADER);
          this.sender.write(ack);
        } else {
          this.health?.acked(payload);
        }
        break;
      case GOAWAY: this.onGoaway(payload); break;
      case WINDOW_UPDATE: this.onWindowUpdate(id, payload); break;
      case PUSH_PROMISE: throw new ConnectionError(PROTOCOL_ERROR, 'PUSH_PROMISE, though push is disabled');
      default: break; // PRIORITY and unknown types are ignored.
    }
  }

  private onDataFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(PROTOCOL_ERROR, 'DATA on stream 0');
    this.received += payload.length;
    if (this.received >= TOP_UP) {
      this.sender.write(windowUpdateFrame(0, this.received));
      this.received = 0;
    }
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    stream.received += payload.length;
    if (this.streamWindow < MAX_WINDOW) {
      if (stream.received > this.streamWindow) {
        stream.cutReason = 'the peer sent more than the stream\'s flow-control window';
        this.reset(stream, FLOW_CONTROL_ERROR);
        return;
      }
      if (!(flags & FLAG_END_STREAM)) this.topUp(stream);
    } else if (stream.longLived && stream.received >= TOP_UP && !(flags & FLAG_END_STREAM)) {
      this.sender.write(windowUpdateFrame(id, stream.received));
      stream.received = 0;
    }
    const data = flags & FLAG_PADDED ? unpad(payload) : payload;
    if (data.length > 0) stream.handler.onData(stream, data);
    if (flags & FLAG_END_STREAM) this.remoteEnd(stream);
  }

  /**
   * With a bounded stream window: once half of it is consumed and the stream's owner has not
   * paused it, the peer may send that much again.
   */
  private topUp(stream: H2Stream): void {
    if (stream.paused || stream.closed || stream.received < this.streamWindow / 2) return;
    this.sender.write(windowUpdateFrame(stream.id, stream.received));
    stream.received = 0;
  }

  /** The owner of a paused stream takes data again (H2Stream.resume). */
  resumed(stream: H2Stream): void {
    if (this.streamWindow < MAX_WINDOW && !this.destroyed && stream.id !== 0) this.topUp(stream);
  }

  private onHeadersFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(PROTOCOL_ERROR, 'HEADERS on stream 0');
    let fragment = flags & FLAG_PADDED ? unpad(payload) : payload;
    if (flags & FLAG_PRIORITY) {
      if (fragment.length < 5) throw new ConnectionError(FRAME_SIZE_ERROR, 'HEADERS too short for its priority');
      fragment = fragment.subarray(5);
    }
    const endStream = (flags & FLAG_END_STREAM) !== 0;
    if (!(flags & FLAG_END_HEADERS)) {
      this.partial = { streamId: id, endStream, parts: [Buffer.from(fragment)], bytes: fragment.length };
      return;
    }
    this.onHeaderBlock(id, fragment, endStream);
  }

  private onContinuation(flags: number, id: number, payload: Buffer): void {
    const partial = this.partial;
    if (partial === undefined) throw new ConnectionError(PROTOCOL_ERROR, 'CONTINUATION without a header block');
    partial.parts.push(Buffer.from(payload));
    partial.bytes += payload.length;
    // A CONTINUATION flood costs the peer its connection, not this process its memory.
    if (partial.parts.length > MAX_CONTINUATIONS + 1 || partial.bytes > 4 * this.maxHeaderListSize) {
      throw new ConnectionError(ENHANCE_YOUR_CALM, 'a header block too large');
    }
    if (!(flags & FLAG_END_HEADERS)) return;
    this.partial = undefined;
    this.onHeaderBlock(id, Buffer.concat(partial.parts), partial.endStream);
  }

  /** Every block is decoded, whoever it is for: the HPACK table must stay in step with the peer's. */
  private onHeaderBlock(id: number, block: Buffer, endStream: boolean): void {
    const headers = this.decoder.decodeWithin(block, this.maxHeaderListSize);
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    if (headers === undefined) {
      stream.cutReason = `a header list larger than ${this.maxHeaderListSize} bytes`;
      this.reset(stream, CANCEL);
      return;
    }
    stream.handler.onHeaders(stream, headers, endStream);
    if (endStream) this.remoteEnd(stream);
  }

  /** The peer ended the stream: it is over (a gRPC call is complete with its trailers). */
  private remoteEnd(stream: H2Stream): void {
    if (stream.closed) return;
    stream.ended = true;
    // A stream this side has not ended (a watch) is closed with RST_STREAM NO_ERROR, as gRPC does.
    if (!stream.localEnded && stream.id !== 0) this.sender.write(rstStreamFrame(stream.id, NO_ERROR));
    this.finish(stream, NO_ERROR);
  }

  private onSettings(flags: number, payload: Buffer): void {
    if (flags & FLAG_ACK) return;
    if (payload.length % 6 !== 0) throw new ConnectionError(FRAME_SIZE_ERROR, 'SETTINGS of the wrong size');
    for (let pos = 0; pos < payload.length; pos += 6) {
      const id = payload.readUInt16BE(pos);
      const value = payload.readUInt32BE(pos + 2);
      switch (id) {
        case SETTINGS_MAX_CONCURRENT_STREAMS: this.peerMaxStreams = value; break;
        case SETTINGS_INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW) throw new ConnectionError(FLOW_CONTROL_ERROR, 'initial window over 2^31 - 1');
          const delta = value - this.peerInitialWindow;
          this.peerInitialWindow = value;
          for (const stream of this.streams.values()) stream.sendWindow += delta;
          break;
        }
        case SETTINGS_MAX_FRAME_SIZE:
          if (value < DEFAULT_MAX_FRAME_SIZE || value > 0xffffff) throw new ConnectionError(PROTOCOL_ERROR, `max frame size ${value}`);
          this.sender.maxFrame = value;
          break;
        default: break; // The header table size only binds an encoder with a table, which this one is not.
      }
    }
    const ack = Buffer.allocUnsafe(FRAME_HEADER);
    writeFrameHeader(ack, 0, 0, SETTINGS, FLAG_ACK, 0);
    this.sender.write(ack);
    this.openWaiting();
    this.sender.flushBlocked();
    this.emit('remoteSettings');
  }

  private onGoaway(payload: Buffer): void {
    if (payload.length < 8) throw new ConnectionError(FRAME_SIZE_ERROR, 'GOAWAY too short');
    const lastStreamId = payload.readUInt32BE(0) & 0x7fffffff;
    const code = payload.readUInt32BE(4);
    this.closed = true;
    // Streams above the last one the peer took, and those not yet opened, were never processed.
    for (const stream of this.waiting.splice(0)) this.finish(stream, REFUSED_STREAM);
    for (const stream of [...this.streams.values()]) if (stream.id > lastStreamId) this.finish(stream, REFUSED_STREAM);
    this.emit('goaway', code, lastStreamId);
    this.endIfIdle();
  }

  private onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(FRAME_SIZE_ERROR, 'WINDOW_UPDATE of the wrong size');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(PROTOCOL_ERROR, 'WINDOW_UPDATE of 0 on the connection');
      this.sender.window += increment;
      if (this.sender.window > MAX_WINDOW) throw new ConnectionError(FLOW_CONTROL_ERROR, 'connection window over 2^31 - 1');
    } else {
      const stream = this.streams.get(id);
      if (stream === undefined) return;
      if (increment === 0 || stream.sendWindow + increment > MAX_WINDOW) {
        this.reset(stream, increment === 0 ? PROTOCOL_ERROR : FLOW_CONTROL_ERROR);
        return;
      }
      stream.sendWindow += increment;
    }
    this.sender.flushBlocked();
  }
}

/** A PADDED frame's payload without its pad length byte and padding. */
function unpad(payload: Buffer): Buffer {
  if (payload.length < 1) throw new ConnectionError(PROTOCOL_ERROR, 'padded frame without a pad length');
  const pad = payload[0];
  if (pad >= payload.length) throw new ConnectionError(PROTOCOL_ERROR, 'padding longer than the frame');
  return payload.subarray(1, payload.length - pad);
}
