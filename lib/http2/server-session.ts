/**
 * The server side of one HTTP/2 connection (RFC 9113), on the frame and HPACK code it shares with
 * the etcd client's side (client-session.ts), instead of node:http2, whose session and stream
 * objects cost several times what the frames themselves do (bench h2-floor).
 *
 * What it does:
 *  - the connection preface, SETTINGS both ways (ours from ListenerLimits; the peer's initial
 *    window and frame size honoured), PING answered, PRIORITY checked and otherwise ignored,
 *    unknown frames ignored;
 *  - requests and their bodies, and the stream states of RFC 9113 5.1, by request-receiver.ts;
 *    requests handed out as request/response pairs (messages.ts) once the chunk that carried
 *    them is read, so a stream opened and reset in the same chunk never starts a handler (rapid
 *    reset);
 *  - flow control both ways: our windows are opened as the body is consumed (the connection's at
 *    once, each stream's as its consumer takes the bytes); responses go out through
 *    response-sender.ts within the client's windows, the frames of a turn written together
 *    (frame-queue.ts);
 *  - limits: SETTINGS_MAX_CONCURRENT_STREAMS (a stream past it before our SETTINGS are
 *    acknowledged is refused, after that the session ends with PROTOCOL_ERROR, as nghttp2 does),
 *    header lists over the limit reset with ENHANCE_YOUR_CALM, frames over our
 *    SETTINGS_MAX_FRAME_SIZE end the session with FRAME_SIZE_ERROR (at the frame header, before
 *    the payload is held), a peer that sends while not reading has its session cut after
 *    1000 control frames queued for it, SETTINGS frames of more than 32 entries, header blocks
 *    of more than 64 CONTINUATION frames, an idle session (no open stream) gets GOAWAY
 *    after the idle timeout, a session whose client resets streams, or makes the server reset
 *    them, beyond the reset budget (reset-budget.ts) gets GOAWAY ENHANCE_YOUR_CALM, and
 *    responses waiting for a client that does not open its windows are reset once more than
 *    maxQueuedBytes wait (all but the largest: one big answer to a slow reader is not shed);
 *  - close(): GOAWAY with the last stream started, the streams in flight finish, then the socket
 *    ends; destroy(): the socket goes at once and every stream closes.
 * Protocol errors end the session with GOAWAY and the error's code; stream errors reset the
 * stream.
 */
import { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';
import * as F from './frames';
import { ClosedAs, ClosedStreams } from './closed-streams';
import { ConnectionError } from './connection-error';
import { FrameQueue } from './frame-queue';
import { readPeerSettings } from './peer-settings';
import type { OutgoingValue, ServerRequest, ServerResponse, StreamOwner } from '../http/messages';
import type { RequestHead } from './request-fields';
import { RequestReceiver } from './request-receiver';
import { ResetBudget } from './reset-budget';
import { ResponseSender } from './response-sender';
import { H2Stream } from './stream';

export interface H2SessionOptions {
  maxConcurrentStreams: number;
  /** Bytes of a decoded header list (names and values plus 32 per field, RFC 9113 6.5.2). */
  maxHeaderListSize: number;
  /** The largest frame we take (SETTINGS_MAX_FRAME_SIZE). */
  maxFrameSize: number;
  /** Our receive window per stream (SETTINGS_INITIAL_WINDOW_SIZE). */
  streamWindow: number;
  /** Our receive window for the connection. */
  connectionWindow: number;
  idleTimeoutMs: number;
  /** Streams refused (REFUSED_STREAM) before the session is ended. */
  maxRejectedStreams: number;
  /** Response bytes that may wait for the client's windows (or socket) before waiting responses are reset. */
  maxQueuedBytes: number;
}

export type RequestListener = (req: ServerRequest, res: ServerResponse) => void;

export class H2ServerSession extends EventEmitter implements StreamOwner {
  closed = false;
  destroyed = false;
  private readonly streams = new Map<number, H2Stream>();
  private readonly closedStreams = new ClosedStreams();
  private readonly resetBudget = new ResetBudget();
  private readonly reader: F.FrameReader;
  private preface: Buffer | undefined = Buffer.alloc(0);
  private gotSettings = false;
  /** The highest stream id handed to the application: what GOAWAY reports (RFC 9113 6.8). */
  private lastStartedId = 0;
  private goawaySent = false;
  /** The peer's SETTINGS_INITIAL_WINDOW_SIZE. */
  private peerInitialWindow = F.DEFAULT_WINDOW;
  private readonly requests: RequestReceiver;
  private readonly frames: FrameQueue;
  private readonly sender: ResponseSender;
  private idleTimer?: NodeJS.Timeout;

  constructor(readonly socket: TLSSocket, private readonly opts: H2SessionOptions, private readonly onRequest: RequestListener) {
    super();
    this.reader = new F.FrameReader((type, flags, id, payload) => this.onFrame(type, flags, id, payload), opts.maxFrameSize);
    this.requests = new RequestReceiver(this.streams, this.closedStreams, opts, {
      goawaySent: () => this.goawaySent,
      open: (id, head, fields) => this.open(id, head, fields),
      start: (stream) => this.start(stream),
      ended: (stream) => this.closeStream(stream, false, ClosedAs.Closed),
      streamError: (stream, code) => this.streamError(stream, code),
      streamErrorId: (id, code) => this.streamErrorId(id, code),
      control: (frame) => this.pushControl(frame),
    });
    this.frames = new FrameQueue(socket, () => this.sender.afterFlush());
    this.sender = new ResponseSender(this.frames, opts.maxQueuedBytes, {
      reset: (stream, code) => this.reset(stream, code),
      finished: (stream) => {
        stream.res.finishFromStream();
        if (stream.remoteEnded) this.closeStream(stream, false, stream.resetSent ? ClosedAs.ResetHere : ClosedAs.Closed);
      },
      warn: (message) => this.emit('warning', `HTTP/2 client ${socket.remoteAddress}:${socket.remotePort} reads its responses slower than it asks for them: ${message}`),
      abandon: (message) => {
        this.emit('warning', `HTTP/2 client ${socket.remoteAddress}:${socket.remotePort} does not read: ${message}`);
        this.destroy();
      },
    });
    socket.setNoDelay(true);
    const settings: Array<[number, number]> = [
      [F.SETTINGS_MAX_CONCURRENT_STREAMS, opts.maxConcurrentStreams],
      [F.SETTINGS_INITIAL_WINDOW_SIZE, opts.streamWindow],
      [F.SETTINGS_MAX_FRAME_SIZE, opts.maxFrameSize],
      [F.SETTINGS_MAX_HEADER_LIST_SIZE, opts.maxHeaderListSize],
    ];
    this.frames.push(F.settingsFrame(settings));
    if (opts.connectionWindow > F.DEFAULT_WINDOW) this.frames.push(F.windowUpdateFrame(0, opts.connectionWindow - F.DEFAULT_WINDOW));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.onSocketDrain());
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.onSocketClose());
    this.armIdle();
  }

  /** GOAWAY (NO_ERROR): no new streams; those in flight finish, then the connection ends. */
  close(): void {
    if (this.closed || this.destroyed) return;
    this.closed = true;
    this.goaway(F.NO_ERROR);
    if (this.streams.size === 0) this.endSocket();
  }

  /** Ends the connection now; every open stream closes. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.closed = true;
    this.frames.stop();
    this.sender.stop();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.socket.destroy();
    this.closeAll();
  }

  // ---- reading ----

  private onData(chunk: Buffer): void {
    if (this.destroyed) return;
    try {
      if (this.preface) {
        const have = Buffer.concat([this.preface, chunk]);
        const n = Math.min(have.length, F.PREFACE.length);
        if (!have.subarray(0, n).equals(F.PREFACE.subarray(0, n))) throw new ConnectionError(F.PROTOCOL_ERROR, 'not the HTTP/2 connection preface');
        if (have.length < F.PREFACE.length) {
          this.preface = have;
          return;
        }
        this.preface = undefined;
        chunk = have.subarray(F.PREFACE.length);
      }
      this.reader.push(chunk);
    } catch (err) {
      this.connectionError(err);
    }
    this.requests.startArrived();
  }

  private onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.destroyed) return;
    if (payload.length > this.opts.maxFrameSize) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'frame larger than SETTINGS_MAX_FRAME_SIZE');
    if (!this.gotSettings) {
      if (type !== F.SETTINGS || flags & F.FLAG_ACK) throw new ConnectionError(F.PROTOCOL_ERROR, 'the first frame is not SETTINGS');
      this.gotSettings = true;
    }
    if (this.requests.blocks.inProgress && type !== F.CONTINUATION) throw new ConnectionError(F.PROTOCOL_ERROR, 'a header block interrupted');
    switch (type) {
      case F.DATA: return this.requests.data(flags, id, payload);
      case F.HEADERS: return this.requests.headers(flags, id, payload);
      case F.CONTINUATION: return this.requests.continuation(flags, id, payload);
      case F.RST_STREAM: return this.onRstStream(id, payload);
      case F.SETTINGS: return this.onSettings(flags, id, payload);
      case F.PING:
        if (id !== 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'PING on a stream');
        if (payload.length !== 8) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'PING length');
        if (!(flags & F.FLAG_ACK)) this.pushControl(F.frameOf(F.PING, F.FLAG_ACK, 0, payload));
        return;
      case F.GOAWAY:
        if (id !== 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'GOAWAY on a stream');
        if (payload.length < 8) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'GOAWAY length');
        // The client sends no more streams; those in flight finish.
        this.closed = true;
        if (this.streams.size === 0) this.endSocket();
        return;
      case F.WINDOW_UPDATE: return this.onWindowUpdate(id, payload);
      case F.PRIORITY: return this.onPriority(id, payload);
      case F.PUSH_PROMISE: throw new ConnectionError(F.PROTOCOL_ERROR, 'PUSH_PROMISE from a client');
      default: return; // Unknown frame types are ignored (RFC 9113 5.5).
    }
  }

  private onSettings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & F.FLAG_ACK) {
      if (payload.length) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
      return;
    }
    const { initialWindow, largestWindow, maxFrameSize } = readPeerSettings(payload);
    if (maxFrameSize >= 0) this.sender.maxFrameSize = maxFrameSize;
    if (initialWindow >= 0) {
      for (const s of this.streams.values()) {
        if (s.sendWindow + largestWindow - this.peerInitialWindow > F.MAX_WINDOW) throw new ConnectionError(F.FLOW_CONTROL_ERROR, 'a stream window over 2^31-1');
      }
      const delta = initialWindow - this.peerInitialWindow;
      this.peerInitialWindow = initialWindow;
      if (delta) for (const s of this.streams.values()) s.sendWindow += delta;
    }
    this.pushControl(F.frameOf(F.SETTINGS, F.FLAG_ACK, 0));
    this.sender.pumpAll();
  }

  /** A request's stream, its head checked (request-receiver.ts): in the stream table from now on. */
  private open(id: number, head: RequestHead, fields: string[]): H2Stream {
    const stream = new H2Stream(id, this, head.headers, fields, this.opts.streamWindow, this.peerInitialWindow);
    this.lastStartedId = id;
    stream.declaredLength = head.contentLength;
    this.streams.set(id, stream);
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    return stream;
  }

  private onRstStream(id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (payload.length !== 4) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'RST_STREAM length');
    if (id > this.requests.lastStreamId) throw new ConnectionError(F.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
    const stream = this.streams.get(id);
    if (!stream) return;
    if (!this.resetBudget.take()) throw new ConnectionError(F.ENHANCE_YOUR_CALM, 'too many streams reset');
    stream.remoteEnded = true;
    stream.localEnded = true;
    this.closeStream(stream, true, stream.resetSent ? ClosedAs.ResetHere : ClosedAs.Closed);
  }

  private onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'WINDOW_UPDATE length');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.sender.window += increment;
      if (this.sender.window > F.MAX_WINDOW) throw new ConnectionError(F.FLOW_CONTROL_ERROR, 'the connection window over 2^31-1');
      this.sender.pumpAll();
      return;
    }
    const stream = this.streams.get(id);
    if (!stream) {
      if (id > this.requests.lastStreamId) throw new ConnectionError(F.PROTOCOL_ERROR, 'WINDOW_UPDATE on an idle stream');
      return;
    }
    if (stream.resetSent) return;
    if (increment === 0) return this.streamError(stream, F.PROTOCOL_ERROR);
    stream.sendWindow += increment;
    if (stream.sendWindow > F.MAX_WINDOW) return this.streamError(stream, F.FLOW_CONTROL_ERROR);
    this.sender.pump(stream);
  }

  /** Priorities are not acted on, but a PRIORITY frame must still be well-formed (RFC 9113 6.3, 5.3.1). */
  private onPriority(id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'PRIORITY on stream 0');
    let code = -1;
    if (payload.length !== 5) code = F.FRAME_SIZE_ERROR;
    else if ((payload.readUInt32BE(0) & 0x7fffffff) === id) code = F.PROTOCOL_ERROR;
    if (code < 0) return;
    const stream = this.streams.get(id);
    if (stream) this.streamError(stream, code);
    else this.streamErrorId(id, code);
  }

  /** Hands a request to the listener (request-receiver.ts says when). */
  private start(s: H2Stream): void {
    try {
      this.onRequest(s.req, s.res);
    } catch (err) {
      // The handler failed before it could answer: the stream is reset, the session goes on.
      this.emit('internalError', err);
      this.reset(s, F.INTERNAL_ERROR);
    }
  }

  // ---- StreamOwner ----

  consumed(stream: H2Stream, bytes: number): void {
    if (stream.remoteEnded || stream.closed) return;
    stream.recvUnacked += bytes;
    if (stream.recvUnacked >= this.opts.streamWindow / 2) {
      stream.recvWindow += stream.recvUnacked;
      this.pushControl(F.windowUpdateFrame(stream.id, stream.recvUnacked));
      stream.recvUnacked = 0;
    }
  }

  sendHeaders(stream: H2Stream, status: number, headers: Record<string, OutgoingValue | undefined>, end: boolean): void {
    if (stream.closed || this.destroyed) return;
    this.sender.headers(stream, status, headers, end);
    // "Connection: close" on a response (--goaway-chance): GOAWAY once this head is out; the streams in flight finish.
    const connection = headers.connection;
    if (connection !== undefined && String(connection).toLowerCase() === 'close') this.close();
  }

  sendData(stream: H2Stream, chunk: Buffer | undefined, end: boolean, cb?: () => void): void {
    if (stream.closed || this.destroyed || stream.endQueued) {
      if (cb) process.nextTick(cb);
      return;
    }
    this.sender.data(stream, chunk, end, cb);
  }

  /** Abandons a stream on the application's word (RST_STREAM with `code`). */
  reset(stream: H2Stream, code: number): void {
    if (stream.closed) return;
    if (!this.destroyed) this.pushControl(F.rstStreamFrame(stream.id, code));
    stream.resetSent = true;
    stream.localEnded = true;
    stream.remoteEnded = true;
    this.closeStream(stream, true, ClosedAs.ResetHere);
  }

  /**
   * A stream error the client caused (RFC 9113 5.4.2): the stream is reset with `code`, and the
   * reset spent from the client's budget, so that a client cannot make the server start and
   * abandon requests without end (MadeYouReset).
   */
  private streamError(stream: H2Stream, code: number): void {
    this.spendReset();
    this.reset(stream, code);
  }

  /** As streamError, for a stream id with no open stream (never started, or closed). */
  private streamErrorId(id: number, code: number): void {
    this.spendReset();
    this.closedStreams.add(id, ClosedAs.ResetHere);
    this.pushControl(F.rstStreamFrame(id, code));
  }

  private spendReset(): void {
    if (!this.resetBudget.take()) throw new ConnectionError(F.ENHANCE_YOUR_CALM, 'too many streams reset');
  }

  /** A control frame; a client that provokes them without reading them is cut (frame-queue.ts). */
  private pushControl(frame: Buffer): void {
    if (!this.frames.pushControl(frame)) this.destroy();
  }

  private onSocketDrain(): void {
    this.frames.drained();
    this.sender.drained();
  }

  // ---- closing ----

  private closeStream(stream: H2Stream, aborted: boolean, how: ClosedAs): void {
    if (stream.closed) return;
    stream.closed = true;
    this.streams.delete(stream.id);
    this.closedStreams.add(stream.id, how);
    this.sender.forget(stream);
    for (const item of stream.queue) if (item.cb) process.nextTick(item.cb);
    stream.queue.length = 0;
    stream.req.closeFromStream(aborted);
    stream.res.closeFromStream();
    if (this.streams.size === 0) {
      if (this.closed) this.endSocket();
      else this.armIdle();
    }
  }

  private closeAll(): void {
    for (const s of [...this.streams.values()]) {
      s.localEnded = true;
      s.remoteEnded = true;
      this.closeStream(s, true, ClosedAs.ResetHere);
    }
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.streams.size === 0) this.close();
    }, this.opts.idleTimeoutMs).unref();
  }

  private goaway(code: number): void {
    if (this.goawaySent) return;
    this.goawaySent = true;
    this.frames.push(F.goawayFrame(this.lastStartedId, code));
  }

  /** Ends the socket once what is gathered has been written. */
  private endSocket(): void {
    if (this.destroyed) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    setImmediate(() => {
      if (this.destroyed) return;
      this.frames.flush();
      this.socket.end();
    });
  }

  private connectionError(err: unknown): void {
    const known = err instanceof ConnectionError || err instanceof F.FrameTooLarge;
    const code = err instanceof ConnectionError ? err.code : known ? F.FRAME_SIZE_ERROR : F.INTERNAL_ERROR;
    if (!known) this.emit('internalError', err);
    this.closed = true;
    this.goaway(code);
    this.frames.flush();
    this.frames.stop();
    this.sender.stop();
    this.destroyed = true;
    this.socket.end();
    // A peer that does not close its side is cut shortly after.
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.closeAll();
  }

  private onSocketClose(): void {
    this.destroyed = true;
    this.frames.stop();
    this.sender.stop();
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.closeAll();
    this.emit('close');
  }
}
