/**
 * The sending half of a server session: response heads (HEADERS, split into CONTINUATION past
 * the client's frame size) and bodies framed as DATA within the client's flow-control windows
 * (RFC 9113 6.9) and as fast as the socket drains. A body the windows do not take waits in its
 * stream, where the writer sees it (writableLength, write() false, 'drain'). What a client that
 * asks without reading can make the server hold is bounded two ways: responses waiting for its
 * flow-control windows past maxQueuedBytes are shed (shed()), and a connection whose socket has
 * not drained for STALL_MS while more than maxQueuedBytes wait is abandoned (onStall()). Bytes
 * that only wait their turn for a socket that is draining count for neither: a client reading
 * at full speed gets every response it asked for, however many at once.
 */
import * as F from './frames';
import type { FrameQueue } from './frame-queue';
import { responseHeaderBlock } from './header-block';
import type { OutgoingValue } from '../http/messages';
import type { H2Stream } from './stream';

/** Frame bytes gathered in a turn beyond which no more DATA is framed until they are written. */
const OUT_LIMIT = 256 * 1024;
/** How long a socket may stay undrained, with more than maxQueuedBytes waiting, before the connection is abandoned. */
const STALL_MS = 5000;

export interface SenderHooks {
  /** Resets a stream (one shed by the budget). */
  reset(stream: H2Stream, code: number): void;
  /** The stream's END_STREAM is on the socket. */
  finished(stream: H2Stream): void;
  /** Something worth a line in the log. */
  warn(message: string): void;
  /** The client reads nothing: the connection is to be ended. */
  abandon(message: string): void;
}

export class ResponseSender {
  /** The client's window for our DATA on the connection. */
  window = F.DEFAULT_WINDOW;
  /** The client's SETTINGS_MAX_FRAME_SIZE. */
  maxFrameSize = F.DEFAULT_MAX_FRAME_SIZE;
  /** Streams with DATA waiting for a window or the socket, and their bytes. */
  private readonly stalled = new Set<H2Stream>();
  private queuedBytes = 0;
  /** Streams whose END_STREAM is in the frames gathered this turn. */
  private finishing: H2Stream[] = [];
  private warned = false;
  private stallTimer?: NodeJS.Timeout;

  constructor(private readonly frames: FrameQueue, private readonly maxQueuedBytes: number, private readonly hooks: SenderHooks) {}

  headers(stream: H2Stream, status: number, headers: Readonly<Record<string, OutgoingValue | undefined>>, end: boolean): void {
    const block = responseHeaderBlock(status, headers);
    const max = this.maxFrameSize;
    if (block.length <= max) {
      const frame = Buffer.allocUnsafe(F.FRAME_HEADER + block.length);
      F.writeFrameHeader(frame, 0, block.length, F.HEADERS, F.FLAG_END_HEADERS | (end ? F.FLAG_END_STREAM : 0), stream.id);
      block.copy(frame, F.FRAME_HEADER);
      this.frames.push(frame);
    } else {
      for (let pos = 0; pos < block.length; pos += max) {
        const part = block.subarray(pos, pos + max);
        const last = pos + max >= block.length;
        const type = pos === 0 ? F.HEADERS : F.CONTINUATION;
        const flags = (last ? F.FLAG_END_HEADERS : 0) | (pos === 0 && end ? F.FLAG_END_STREAM : 0);
        this.frames.push(F.frameOf(type, flags, stream.id, part));
      }
    }
    if (end) this.localEnd(stream);
  }

  /** Queues body bytes (and END_STREAM after them when `end`); `cb` once they are on the socket. */
  data(stream: H2Stream, chunk: Buffer | undefined, end: boolean, cb?: () => void): void {
    if (chunk) {
      stream.queue.push({ buf: chunk, cb });
      stream.queuedBytes += chunk.length;
      this.queuedBytes += chunk.length;
    } else if (cb) {
      process.nextTick(cb);
    }
    if (end) stream.endQueued = true;
    this.pump(stream);
    if (this.queuedBytes > this.maxQueuedBytes) {
      this.shed();
      if (this.frames.blocked) this.stallTimer ??= setTimeout(() => this.onStall(), STALL_MS).unref();
    }
  }

  /** Frames what the windows and the socket allow of a stream's queue. */
  pump(stream: H2Stream): void {
    const queue = stream.queue;
    let lastHead: Buffer | undefined;
    while (queue.length && !this.frames.blocked && this.frames.bytes < OUT_LIMIT) {
      const room = Math.min(stream.sendWindow, this.window, this.maxFrameSize);
      if (room <= 0) break;
      const item = queue[0];
      const n = Math.min(room, item.buf.length);
      const head = Buffer.allocUnsafe(F.FRAME_HEADER);
      F.writeFrameHeader(head, 0, n, F.DATA, 0, stream.id);
      this.frames.push(head);
      this.frames.push(n === item.buf.length ? item.buf : item.buf.subarray(0, n));
      lastHead = head;
      stream.sendWindow -= n;
      this.window -= n;
      stream.queuedBytes -= n;
      this.queuedBytes -= n;
      if (n === item.buf.length) {
        queue.shift();
        if (item.cb) this.frames.onWritten(item.cb);
      } else {
        item.buf = item.buf.subarray(n);
      }
    }
    if (queue.length) this.stalled.add(stream);
    else this.stalled.delete(stream);
    if (queue.length === 0 && stream.endQueued && !stream.localEnded) {
      // END_STREAM on the last DATA frame of this turn, or on an empty one.
      if (lastHead) lastHead[4] |= F.FLAG_END_STREAM;
      else this.frames.push(F.frameOf(F.DATA, F.FLAG_END_STREAM, stream.id));
      this.localEnd(stream);
    }
    stream.res.drained();
  }

  /** Frames waiting DATA (a window opened, the socket drained). */
  pumpAll(): void {
    for (const s of this.stalled) {
      if (this.frames.blocked || this.window <= 0 || this.frames.bytes >= OUT_LIMIT) break;
      this.pump(s);
    }
  }

  /** After each write: streams whose END_STREAM went out finish, and waiting DATA is framed. */
  afterFlush(): void {
    const finishing = this.finishing;
    if (finishing.length) {
      this.finishing = [];
      for (const s of finishing) this.hooks.finished(s);
    }
    if (!this.frames.blocked && this.stalled.size) this.pumpAll();
  }

  /** The socket drained: the client reads. */
  drained(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.pumpAll();
  }

  /** The session ended. */
  stop(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
  }

  /** The stream closed: what waits in it is dropped. */
  forget(stream: H2Stream): void {
    this.stalled.delete(stream);
    this.queuedBytes -= stream.queuedBytes;
    stream.queuedBytes = 0;
  }

  private localEnd(stream: H2Stream): void {
    stream.localEnded = true;
    this.finishing.push(stream);
    if (!stream.remoteEnded) {
      // Answered before the request's body ended: the client may stop sending it (RFC 9113 8.1).
      this.frames.push(F.rstStreamFrame(stream.id, F.NO_ERROR));
      stream.remoteEnded = true;
      stream.resetSent = true;
    }
    this.frames.schedule();
  }

  /**
   * More response bytes wait than maxQueuedBytes. Those held back by the client's flow-control
   * windows (its stream's, or the connection's) are what it asked for and does not take: past the
   * budget, every such response but the largest (a big answer to a slow reader is served) is
   * reset until half the budget is left, and that is logged once.
   */
  private shed(): void {
    let largest: H2Stream | undefined;
    const blocked: H2Stream[] = [];
    let blockedBytes = 0;
    for (const s of this.stalled) {
      if (!largest || s.queuedBytes > largest.queuedBytes) largest = s;
      if (s.sendWindow <= 0 || this.window <= 0) {
        blocked.push(s);
        blockedBytes += s.queuedBytes;
      }
    }
    if (blockedBytes <= this.maxQueuedBytes) return;
    blocked.sort((a, b) => b.queuedBytes - a.queuedBytes);
    let shed = 0;
    let bytes = 0;
    for (const s of blocked) {
      if (blockedBytes <= this.maxQueuedBytes / 2) break;
      if (s === largest) continue;
      shed++;
      bytes += s.queuedBytes;
      blockedBytes -= s.queuedBytes;
      this.hooks.reset(s, F.ENHANCE_YOUR_CALM);
    }
    if (shed && !this.warned) {
      this.warned = true;
      this.hooks.warn(`${shed} responses (${bytes} bytes) waiting for its flow-control windows were reset (ENHANCE_YOUR_CALM), `
        + `over the ${this.maxQueuedBytes} bytes a connection may have waiting`);
    }
  }

  /** STALL_MS after the socket blocked with more than the budget waiting: if it has not drained since, the client reads nothing. */
  private onStall(): void {
    this.stallTimer = undefined;
    if (!this.frames.blocked || this.queuedBytes <= this.maxQueuedBytes) return;
    this.hooks.abandon(`its socket took nothing for ${STALL_MS} ms while ${this.queuedBytes} response bytes waited; the connection is closed`);
  }
}
