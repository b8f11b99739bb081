/**
 * The HTTP/2 connection health check of Go's transport (golang.org/x/net/http2's ReadIdleTimeout
 * and PingTimeout, which client-go turns on for every transport it builds): when nothing has been
 * read on the connection for `readIdleMs`, a PING is sent; when its ACK does not come within
 * `pingTimeoutMs`, the connection is lost (`http2: client connection lost`, Go's words) and the
 * session is destroyed with that error, failing the requests on it. The check runs again
 * `readIdleMs` after the last read, so a busy connection sends no PINGs.
 *
 * Reads are only noted (a timestamp), never a timer reset: the timer, when it fires, works out
 * how long the connection has really been quiet.
 */
import { randomBytes } from 'node:crypto';
import { FRAME_HEADER, PING, writeFrameHeader } from './frames';

export const CONNECTION_LOST = 'http2: client connection lost';

export interface PingTarget {
  /** Writes a frame to the peer. */
  write(frame: Buffer): void;
  /** The peer did not answer: the connection is to be ended with `err`. */
  lost(err: Error): void;
}

export class PingHealth {
  private lastRead = Date.now();
  private timer: NodeJS.Timeout | undefined;
  /** The payload of the PING awaiting its ACK. */
  private awaiting: Buffer | undefined;
  private stopped = false;

  constructor(private readonly target: PingTarget, private readonly readIdleMs: number, private readonly pingTimeoutMs: number) {
    this.arm(readIdleMs);
  }

  /** Something was read on the connection. */
  heard(): void {
    this.lastRead = Date.now();
  }

  /** A PING ACK came with `payload`: if it answers ours, the connection is alive. */
  acked(payload: Buffer): void {
    if (this.awaiting === undefined || !payload.equals(this.awaiting)) return;
    this.awaiting = undefined;
    this.arm(this.readIdleMs);
  }

  /** The connection is over: no more checks. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), ms);
    // A check never keeps the process alive.
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    if (this.stopped) return;
    if (this.awaiting !== undefined) {
      this.stop();
      this.target.lost(new Error(CONNECTION_LOST));
      return;
    }
    const quiet = Date.now() - this.lastRead;
    if (quiet < this.readIdleMs) {
      this.arm(this.readIdleMs - quiet);
      return;
    }
    const payload = randomBytes(8);
    const frame = Buffer.allocUnsafe(FRAME_HEADER + 8);
    writeFrameHeader(frame, 0, 8, PING, 0, 0);
    payload.copy(frame, FRAME_HEADER);
    this.awaiting = payload;
    this.target.write(frame);
    this.arm(this.pingTimeoutMs);
  }
}
