/**
 * The frames a session sends, gathered per event-loop turn and written to the socket together
 * (one write, one TLS record where they fit). It tells the session when the socket is blocked,
 * so that DATA waits in its streams instead, and it counts the control frames queued meanwhile:
 * a client that keeps provoking acknowledgements, resets or window updates without reading them
 * is cut past MAX_QUEUED_CONTROL (nghttp2's max_outbound_ack; Go allows 10,000).
 */
import type { TLSSocket } from 'node:tls';

const MAX_QUEUED_CONTROL = 1000;
/** Gathered bytes up to which a turn's frames are copied into one buffer; past it they go as one writev. */
const COPY_LIMIT = 64 * 1024;

export class FrameQueue {
  /** Bytes gathered this turn. */
  bytes = 0;
  /** The socket asked to wait for 'drain'. */
  blocked = false;
  private out: Buffer[] = [];
  private callbacks: Array<() => void> = [];
  private scheduled = false;
  private stopped = false;
  private controlWhileBlocked = 0;

  /** `afterFlush`: run after each write (the session finishes streams and frames more DATA there). */
  constructor(private readonly socket: TLSSocket, private readonly afterFlush: () => void) {}

  push(frame: Buffer): void {
    this.out.push(frame);
    this.bytes += frame.length;
    this.schedule();
  }

  /** A control frame; false (and not queued) when too many wait for a client that does not read. */
  pushControl(frame: Buffer): boolean {
    if (this.blocked && ++this.controlWhileBlocked > MAX_QUEUED_CONTROL) return false;
    this.push(frame);
    return true;
  }

  /** `cb` once what is gathered now is on the socket. */
  onWritten(cb: () => void): void {
    this.callbacks.push(cb);
  }

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** The socket drained. */
  drained(): void {
    this.blocked = false;
    this.controlWhileBlocked = 0;
  }

  /** Nothing more is written (the socket is gone). */
  stop(): void {
    this.stopped = true;
  }

  flush(): void {
    this.scheduled = false;
    if (this.stopped) return;
    const out = this.out;
    if (out.length) {
      const bytes = this.bytes;
      const callbacks = this.callbacks;
      this.out = [];
      this.bytes = 0;
      this.callbacks = [];
      const done = callbacks.length ? () => { for (const cb of callbacks) cb(); } : undefined;
      const socket = this.socket;
      if (out.length === 1) socket.write(out[0], done);
      else if (bytes <= COPY_LIMIT) socket.write(Buffer.concat(out, bytes), done);
      else {
        socket.cork();
        for (let i = 0; i < out.length - 1; i++) socket.write(out[i]);
        socket.write(out[out.length - 1], done);
        socket.uncork();
      }
      if (socket.writableNeedDrain) this.blocked = true;
    }
    this.afterFlush();
  }
}
