/**
 * The receiving half of a server session (server-session.ts): requests and their bodies.
 *  - HEADERS and CONTINUATION joined (header-block-assembler.ts) and decoded (HPACK with the
 *    dynamic table, the decoded size bounded while decoding), checked as RFC 9113 8.2 and 8.3
 *    require (request-fields.ts), then started as a stream, or refused past
 *    SETTINGS_MAX_CONCURRENT_STREAMS; a well-formed CONNECT is answered 405 here;
 *  - DATA counted against our flow-control windows (RFC 9113 6.9) and handed to its request as
 *    the body; a body that disagrees with its content-length, and trailers that are not
 *    trailers, reset the stream before the body's end reaches the application;
 *  - stream states as RFC 9113 5.1 has them: frames on a half-closed (remote) or closed stream
 *    are the client's error (STREAM_CLOSED), frames on a stream this server reset are ignored
 *    (closed-streams.ts), a lower stream id never opened is a connection error.
 * It reads the session's stream table and what it remembers of closed streams, and does the rest
 * through ReceiverHooks.
 */
import * as F from './frames';
import { HpackDecoder } from './hpack';
import { METHOD_NOT_ALLOWED_BODY } from '../http/method-not-allowed';
import { ClosedAs, type ClosedStreams } from './closed-streams';
import { ConnectionError } from './connection-error';
import { HeaderBlockAssembler, type HeaderBlock } from './header-block-assembler';
import { requestHead, trailersValid, type RequestHead } from './request-fields';
import type { H2Stream } from './stream';

const STREAM_CLOSED = 0x5;

/** The session's limits this half applies (H2SessionOptions). */
export interface ReceiverLimits {
  maxConcurrentStreams: number;
  maxHeaderListSize: number;
  streamWindow: number;
  connectionWindow: number;
  maxRejectedStreams: number;
}

export interface ReceiverHooks {
  /** Our GOAWAY is sent: a new stream is ignored. */
  goawaySent(): boolean;
  /** Starts stream `id` with the request's head: the session's stream table takes it. */
  open(id: number, head: RequestHead, fields: string[]): H2Stream;
  /** Hands a request to the application. */
  start(stream: H2Stream): void;
  /** Both sides have ended the stream: it is closed. */
  ended(stream: H2Stream): void;
  /** A stream error the client caused (the reset spent from its budget), on an open stream. */
  streamError(stream: H2Stream, code: number): void;
  /** As streamError, for a stream id with no open stream (never started, or closed). */
  streamErrorId(id: number, code: number): void;
  /** A control frame to send. */
  control(frame: Buffer): void;
}

export class RequestReceiver {
  /** The highest stream id the client has used (lower ones are closed or were never opened). */
  lastStreamId = 0;
  /** The header block arriving; while one is in progress, only CONTINUATION may come (the session checks). */
  readonly blocks: HeaderBlockAssembler;
  /** Requests whose HEADERS are in the chunk being read; started after it. */
  private arrived: H2Stream[] = [];
  private readonly decoder = new HpackDecoder();
  /** Body bytes received since the last connection WINDOW_UPDATE. */
  private recvUnacked = 0;
  private rejected = 0;

  constructor(private readonly streams: ReadonlyMap<number, H2Stream>, private readonly closedStreams: ClosedStreams,
    private readonly limits: ReceiverLimits, private readonly hooks: ReceiverHooks) {
    this.blocks = new HeaderBlockAssembler(limits.maxHeaderListSize);
  }

  headers(flags: number, id: number, payload: Buffer): void {
    if (id === 0 || id % 2 === 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'HEADERS on stream 0 or an even stream');
    const block = this.blocks.headers(flags, id, payload);
    if (block) this.headerBlock(block);
  }

  continuation(flags: number, id: number, payload: Buffer): void {
    const block = this.blocks.continuation(flags, id, payload);
    if (block) this.headerBlock(block);
  }

  private headerBlock({ streamId: id, flags, selfDependent, block }: HeaderBlock): void {
    // Decoded first, whatever becomes of the stream: the dynamic table must stay in step.
    let fields: string[] | undefined;
    try {
      fields = this.decoder.fieldsWithin(block, this.limits.maxHeaderListSize);
    } catch (err) {
      throw new ConnectionError(F.COMPRESSION_ERROR, (err as Error).message);
    }
    const endStream = (flags & F.FLAG_END_STREAM) !== 0;
    const existing = this.streams.get(id);
    if (existing) return this.onTrailers(existing, endStream, fields);
    if (id <= this.lastStreamId) {
      const closed = this.closedStreams.get(id);
      if (closed === ClosedAs.ResetHere) return; // Sent before the client saw our reset.
      if (closed === ClosedAs.Closed) throw new ConnectionError(STREAM_CLOSED, 'HEADERS on a closed stream');
      throw new ConnectionError(F.PROTOCOL_ERROR, 'a stream id lower than one already used');
    }
    this.lastStreamId = id;
    if (this.hooks.goawaySent()) {
      // Past our GOAWAY: ignored, the client retries it elsewhere.
      this.closedStreams.add(id, ClosedAs.ResetHere);
      return;
    }
    if (selfDependent) return this.hooks.streamErrorId(id, F.PROTOCOL_ERROR);
    if (this.streams.size >= this.limits.maxConcurrentStreams) {
      // A stream error (RFC 9113 5.1.2), REFUSED_STREAM so that the client may retry it (8.7), as Go
      // refuses it before its SETTINGS are acknowledged; a client that keeps on loses its session.
      if (++this.rejected > this.limits.maxRejectedStreams) throw new ConnectionError(F.ENHANCE_YOUR_CALM, 'too many refused streams');
      this.closedStreams.add(id, ClosedAs.ResetHere);
      this.hooks.control(F.rstStreamFrame(id, F.REFUSED_STREAM));
      return;
    }
    if (!fields) return this.hooks.streamErrorId(id, F.ENHANCE_YOUR_CALM);
    const head = requestHead(fields);
    if (typeof head === 'string') return this.hooks.streamErrorId(id, F.PROTOCOL_ERROR);
    const stream = this.hooks.open(id, head, fields);
    if (endStream && !this.endBody(stream)) return;
    if (head.connect) {
      // Not a request for a resource: answered here, never handed on.
      stream.res.statusCode = 405;
      stream.res.setHeader('content-type', 'application/json');
      stream.res.end(METHOD_NOT_ALLOWED_BODY);
      return;
    }
    this.arrived.push(stream);
  }

  /**
   * Hands the requests of the chunk just read to the application, but not those already reset:
   * a stream opened and reset in the same chunk never starts a handler (rapid reset).
   */
  startArrived(): void {
    if (this.arrived.length === 0) return;
    const arrived = this.arrived;
    this.arrived = [];
    for (const s of arrived) {
      if (!s.closed) this.hooks.start(s);
    }
  }

  /** A header block on an open stream: trailers, which end the body, or an error. */
  private onTrailers(stream: H2Stream, endStream: boolean, fields: string[] | undefined): void {
    if (stream.resetSent) return;
    // Half-closed (remote): the client already ended its side (RFC 9113 5.1).
    if (stream.remoteEnded) return this.hooks.streamError(stream, STREAM_CLOSED);
    if (!endStream || (fields && !trailersValid(fields))) return this.hooks.streamError(stream, F.PROTOCOL_ERROR);
    if (!fields) return this.hooks.streamError(stream, F.ENHANCE_YOUR_CALM);
    this.endBody(stream);
  }

  data(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(F.PROTOCOL_ERROR, 'DATA on stream 0');
    const length = payload.length;
    let data = payload;
    if (flags & F.FLAG_PADDED) {
      if (length === 0) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'PADDED DATA without a pad length');
      const pad = payload[0];
      if (pad >= length) throw new ConnectionError(F.PROTOCOL_ERROR, 'padding longer than the frame');
      data = payload.subarray(1, length - pad);
    }
    // Every DATA byte (padding too) counts against the connection window, whatever the stream.
    this.recvUnacked += length;
    if (this.recvUnacked > this.limits.connectionWindow) throw new ConnectionError(F.FLOW_CONTROL_ERROR, 'the connection window exceeded');
    if (this.recvUnacked >= this.limits.connectionWindow / 2) {
      this.hooks.control(F.windowUpdateFrame(0, this.recvUnacked));
      this.recvUnacked = 0;
    }
    const stream = this.streams.get(id);
    if (!stream) {
      if (id > this.lastStreamId) throw new ConnectionError(F.PROTOCOL_ERROR, 'DATA on an idle stream');
      // Sent before the client saw our reset: ignored; otherwise the stream is closed (RFC 9113 5.1).
      if (this.closedStreams.get(id) !== ClosedAs.ResetHere) this.hooks.streamErrorId(id, STREAM_CLOSED);
      return;
    }
    if (stream.resetSent) return;
    if (stream.remoteEnded) return this.hooks.streamError(stream, STREAM_CLOSED);
    stream.recvWindow -= length;
    if (stream.recvWindow < 0) return this.hooks.streamError(stream, F.FLOW_CONTROL_ERROR);
    stream.receivedLength += data.length;
    // More than the request said it would send (RFC 9113 8.1.1): malformed, and the body never ends.
    if (stream.declaredLength >= 0 && stream.receivedLength > stream.declaredLength) return this.hooks.streamError(stream, F.PROTOCOL_ERROR);
    // Padding is never handed to the consumer: its window credit comes back now.
    if (data.length < length) stream.owner.consumed(stream, length - data.length);
    // Copied: the payload is a view of the socket's chunk, which the socket reuses.
    if (data.length) stream.req.pushData(Buffer.from(data));
    if (flags & F.FLAG_END_STREAM) this.endBody(stream);
  }

  /** END_STREAM from the client: the body ends, if it is as long as it said (RFC 9113 8.1.1); false when that reset the stream. */
  private endBody(stream: H2Stream): boolean {
    if (stream.declaredLength >= 0 && stream.receivedLength !== stream.declaredLength) {
      this.hooks.streamError(stream, F.PROTOCOL_ERROR);
      return false;
    }
    stream.remoteEnded = true;
    stream.req.pushEnd();
    if (stream.localEnded) this.hooks.ended(stream);
    return true;
  }
}
