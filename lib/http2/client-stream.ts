/**
 * One stream of the etcd client's HTTP/2 session (client-session.ts): its state, its flow-control
 * windows, the data it holds until they open, and the handler its owner is told through. What
 * it sends goes through its session, which it knows by the little a stream asks of it
 * (StreamSession).
 */
import { CANCEL, NO_ERROR } from './frames';
import type { H2Headers } from './hpack';

/** What a stream's owner is told; each call happens on the socket's read, never inside request(). */
export interface H2StreamHandler {
  /** A header block: the response headers, then (gRPC) the trailers. `endStream`: the peer is done. */
  onHeaders(stream: H2Stream, headers: H2Headers, endStream: boolean): void;
  /** A DATA frame's payload (not empty), a view of the socket's read: copy what is kept. */
  onData(stream: H2Stream, data: Buffer): void;
  /**
   * The stream is over, once: the peer ended it (`ended`), it was reset by either side
   * (`rstCode`), its session went away (`session.destroyed`), or GOAWAY said the peer never
   * processed it (`rstCode` REFUSED_STREAM).
   */
  onClose(stream: H2Stream): void;
  /** Data that waited for the peer's flow-control window has all gone out (see H2Stream.held). */
  onWritable?(stream: H2Stream): void;
}

/** What a stream asks of its session (H2Session). */
export interface StreamSession {
  /** The connection is over. */
  readonly destroyed: boolean;
  /** Sends `data` (and END_STREAM when `end`) as far as the windows allow; holds the rest. */
  send(stream: H2Stream, data: Buffer | undefined, end: boolean): void;
  /** Resets a stream from this side. */
  reset(stream: H2Stream, code: number): void;
  /** The stream's owner takes data again. */
  resumed(stream: H2Stream): void;
}

export class H2Stream {
  /** Its stream id; 0 while it waits for the peer's stream limit. */
  id = 0;
  closed = false;
  /** The peer sent END_STREAM. */
  ended = false;
  /** The RST_STREAM code received or sent; REFUSED_STREAM when the peer never processed it. */
  rstCode = NO_ERROR;
  /** This side has sent (or queued) END_STREAM. */
  localEnded = false;
  /** What the peer's window allows to be sent on this stream now (may go below 0: RFC 9113 6.9.2). */
  sendWindow = 0;
  /** Bytes received since this stream's receive window was last topped up. */
  received = 0;
  /** Data waiting for a window (or for the stream to open), and whether END_STREAM follows it. */
  pending: Buffer[] | undefined = undefined;
  pendingEnd = false;
  /** The request's header block, kept while the stream waits to open. */
  block: Buffer | undefined = undefined;
  /** Why this side reset it, when its owner was not the one to (set before close(), for messages). */
  cutReason: string | undefined = undefined;
  /** Its owner takes no more data for now: its receive window is not topped up (a bounded `streamWindow`). */
  paused = false;

  constructor(readonly session: StreamSession, public handler: H2StreamHandler, readonly longLived: boolean) {}

  /** Sends `data` on the stream (held while flow control says wait). */
  write(data: Buffer): void {
    this.session.send(this, data, false);
  }

  /** Some of what was written waits for the peer's window (the handler's onWritable says when it has gone). */
  get held(): boolean {
    return this.pending !== undefined;
  }

  /** Stops topping up the receive window: the peer stops sending once it is used up. */
  pause(): void {
    this.paused = true;
  }

  /** Tops the receive window up again. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.session.resumed(this);
  }

  /** Ends this side of the stream, after `data` if given. */
  end(data?: Buffer): void {
    this.session.send(this, data, true);
  }

  /** Resets the stream with `code` (RST_STREAM); its handler's onClose follows at once. */
  close(code = CANCEL): void {
    this.session.reset(this, code);
  }
}
