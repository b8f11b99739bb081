/**
 * One HTTP/2 stream of the server side: its flow-control windows both ways, the response body
 * waiting for them, its state (which side ended it, whether this server reset it), and the
 * request/response pair it carries (lib/http/messages.ts).
 */
import { ServerRequest, ServerResponse, type Exchange, type StreamOwner } from '../http/messages';

export class H2Stream implements Exchange {
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
  /** We sent RST_STREAM (an error, or NO_ERROR after answering early): frames still arriving are ignored. */
  resetSent = false;
  /** The request body's declared content-length (-1: none), and the body bytes received. */
  declaredLength = -1;
  receivedLength = 0;
  closed = false;
  readonly req: ServerRequest;
  readonly res: ServerResponse;

  constructor(readonly id: number, readonly owner: StreamOwner, headers: Record<string, string | undefined>, rawHeaders: string[],
    recvWindow: number, sendWindow: number) {
    this.recvWindow = recvWindow;
    this.sendWindow = sendWindow;
    this.req = new ServerRequest(this, headers[':method'] ?? '', headers[':path'] ?? '', 2, 0, headers, rawHeaders);
    this.res = new ServerResponse(this);
  }
}
