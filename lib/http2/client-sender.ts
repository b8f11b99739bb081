/**
 * The sending half of the etcd client's HTTP/2 session (client-session.ts): a request's header
 * block as HEADERS (with CONTINUATION frames past the peer's frame size), its body as DATA within
 * the peer's flow-control windows (RFC 9113 6.9) and frame size, what does not fit held in its
 * stream until the windows grow. Everything written in one turn of the event loop leaves in one
 * socket write.
 */
import type net from 'node:net';
import {
  CONTINUATION, DATA, DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW, FLAG_END_HEADERS, FLAG_END_STREAM, FRAME_HEADER, HEADERS,
  writeFrameHeader,
} from './frames';
import type { H2Stream } from './client-stream';

export class ClientSender {
  /** The connection's send window. */
  window = DEFAULT_WINDOW;
  /** The peer's SETTINGS_MAX_FRAME_SIZE. */
  maxFrame = DEFAULT_MAX_FRAME_SIZE;
  /** Streams with data held by flow control, in order. */
  private blocked: H2Stream[] = [];
  /** What has been written this tick, sent as one socket write on the next (flush). */
  private out: Buffer[] = [];
  private outBytes = 0;
  /** The session is destroyed: nothing more is written. */
  private stopped = false;
  readonly flush = () => {
    const out = this.out;
    if (out.length === 0 || this.stopped) return;
    this.out = [];
    const bytes = this.outBytes;
    this.outBytes = 0;
    this.socket.write(out.length === 1 ? out[0] : Buffer.concat(out, bytes));
  };

  constructor(private readonly socket: net.Socket) {}

  /** Nothing more is written (the session is destroyed). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Writes `buf`. Everything written in one turn of the event loop (the frames of every call the
   * requests read in that turn make) leaves in one socket write: one copy and one system call,
   * whose cost on loopback includes etcd's receiving side, instead of one per request.
   */
  write(buf: Buffer): void {
    if (this.stopped) return;
    if (this.out.length === 0) setImmediate(this.flush);
    this.out.push(buf);
    this.outBytes += buf.length;
  }

  /** The request's header block on stream `id` (END_STREAM with it when `endStream`). */
  headers(id: number, block: Buffer, endStream: boolean): void {
    if (block.length <= this.maxFrame) {
      const head = Buffer.allocUnsafe(FRAME_HEADER + block.length);
      writeFrameHeader(head, 0, block.length, HEADERS, FLAG_END_HEADERS | (endStream ? FLAG_END_STREAM : 0), id);
      block.copy(head, FRAME_HEADER);
      this.write(head);
    } else {
      this.writeLongBlock(id, block, endStream);
    }
  }

  /** A header block over the peer's frame size: HEADERS, then CONTINUATION frames. */
  private writeLongBlock(id: number, block: Buffer, endStream: boolean): void {
    for (let pos = 0, first = true; pos < block.length || first; first = false) {
      const piece = block.subarray(pos, pos + this.maxFrame);
      pos += piece.length;
      const last = pos >= block.length;
      const frame = Buffer.allocUnsafe(FRAME_HEADER + piece.length);
      writeFrameHeader(frame, 0, piece.length, first ? HEADERS : CONTINUATION,
        (last ? FLAG_END_HEADERS : 0) | (first && endStream ? FLAG_END_STREAM : 0), id);
      piece.copy(frame, FRAME_HEADER);
      this.write(frame);
    }
  }

  /** Sends `data` (and END_STREAM when `end`) as far as the windows allow; holds the rest. */
  send(stream: H2Stream, data: Buffer | undefined, end: boolean): void {
    if (stream.closed || stream.localEnded) return;
    if (stream.id === 0 || stream.pending !== undefined) {
      this.hold(stream, data, end);
      return;
    }
    let pos = 0;
    const n = data === undefined ? 0 : data.length;
    while (pos < n) {
      const room = Math.min(this.window, stream.sendWindow, this.maxFrame);
      if (room <= 0) break;
      const size = Math.min(room, n - pos);
      const last = pos + size === n;
      const head = Buffer.allocUnsafe(FRAME_HEADER);
      writeFrameHeader(head, 0, size, DATA, last && end ? FLAG_END_STREAM : 0, stream.id);
      this.write(head);
      this.write(pos === 0 && last ? data! : data!.subarray(pos, pos + size));
      this.window -= size;
      stream.sendWindow -= size;
      pos += size;
    }
    if (pos < n) {
      this.hold(stream, data!.subarray(pos), end);
      this.blocked.push(stream);
      return;
    }
    if (end) {
      if (n === 0) {
        const frame = Buffer.allocUnsafe(FRAME_HEADER);
        writeFrameHeader(frame, 0, 0, DATA, FLAG_END_STREAM, stream.id);
        this.write(frame);
      }
      stream.localEnded = true;
    }
  }

  /** Holds `data` (and END_STREAM after it when `end`) in the stream until it can go. */
  hold(stream: H2Stream, data: Buffer | undefined, end: boolean): void {
    stream.pending ??= [];
    if (data !== undefined && data.length > 0) stream.pending.push(data);
    if (end) stream.pendingEnd = true;
  }

  /** Windows grew: blocked streams send what now fits, in order. */
  flushBlocked(): void {
    if (this.blocked.length === 0 || this.window <= 0) return;
    const blocked = this.blocked;
    this.blocked = [];
    for (const stream of blocked) {
      const pending = stream.pending;
      if (pending === undefined || stream.closed) continue;
      const end = stream.pendingEnd;
      stream.pending = undefined;
      stream.pendingEnd = false;
      for (let i = 0; i < pending.length; i++) {
        const last = i === pending.length - 1;
        if (stream.pending !== undefined) {
          // Blocked again: the rest waits behind what could not go.
          this.hold(stream, pending[i], end && last);
          continue;
        }
        this.send(stream, pending[i], end && last);
      }
      if (pending.length === 0 && end) this.send(stream, undefined, true);
      if (stream.pending === undefined) stream.handler.onWritable?.(stream);
    }
  }
}
