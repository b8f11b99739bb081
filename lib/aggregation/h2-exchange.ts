/**
 * One proxied request as a stream of an HTTP/2 connection to an APIService's backend (lib/http2's
 * client, as the etcd client uses it), as Go's HTTP/2 transport sends it:
 *  - the header block: :method, :scheme https, :authority (the backend's `host:port`, the Host an
 *    HTTP/1.1 request carries), :path, then the request's headers with lower-case names, less
 *    Host and the connection-specific ones HTTP/2 forbids (Connection, Keep-Alive,
 *    Proxy-Connection, Transfer-Encoding, Upgrade; TE unless `trailers`); a value with CR, LF or
 *    NUL is refused before anything is sent;
 *  - the body: a whole one with the headers, a streamed one (the caller's request) as it arrives,
 *    the caller paused while the backend's flow-control window holds data back;
 *  - the answer: the first final (non-1xx) header block is the head; the body is handed to the
 *    caller's response as it arrives, the stream paused (its receive window not topped up) while
 *    the response is full; trailers are dropped (as the HTTP/1.1 side drops them); the response
 *    is ended when the backend ends the stream, destroyed when the stream is reset or the
 *    connection lost; the caller going away resets the stream (CANCEL).
 * A stream that ends before its head rejects with a HopError in Go's words where Go has them.
 */
import type http from 'node:http';
import type { H2Session } from '../http2/client-session';
import type { H2Stream, H2StreamHandler } from '../http2/client-stream';
import { CANCEL, PROTOCOL_ERROR, REFUSED_STREAM } from '../http2/frames';
import { encodeHeaderBlock, type H2Headers } from '../http2/hpack';
import { CONNECTION_FIELDS } from '../http2/request-fields';
import { type AnswerSink, type BackendAnswer, type BackendRequest, type BodySource, HopError, type OnAbort } from './backend-exchange';

/** RFC 9113 7's error codes by value, as Go names them. */
const CODE_NAMES = [
  'NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR',
  'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED',
];
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_VALUE = /[\r\n\0]/;
const STATUS = /^[1-9]\d\d$/;

export class H2Exchange implements H2StreamHandler, BackendAnswer {
  /** Resolves with this exchange once the answer's head is in. */
  readonly answer: Promise<BackendAnswer>;
  statusCode = 0;
  headers: http.IncomingHttpHeaders = {};
  private resolve!: (answer: BackendAnswer) => void;
  private reject!: (err: Error) => void;
  private stream: H2Stream | undefined;
  private source: BodySource | undefined;
  private headed = false;
  /** The stream is over; `complete`: the backend ended it (the body is whole). */
  private closed = false;
  private complete = false;
  /** Body received between the head and pipe() or discard(). */
  private early: Buffer[] | undefined = [];
  private sink: AnswerSink | undefined;
  private abortError: Error | undefined;

  constructor(private readonly session: H2Session, authority: string, req: BackendRequest, onAbort: OnAbort, private readonly release: () => void) {
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    let block: Buffer;
    try {
      block = requestBlock(req, authority);
    } catch (err) {
      this.reject(err as Error);
      return;
    }
    const body = req.body;
    const streamed = body !== undefined && !Buffer.isBuffer(body) && !body.readableEnded;
    try {
      this.stream = session.request(block, this, Buffer.isBuffer(body) && body.length > 0 ? body : undefined, !streamed);
    } catch (err) {
      // The session closed since it was picked: nothing was sent.
      this.reject(new HopError((err as Error).message, { refused: true }));
      return;
    }
    onAbort((err) => this.abort(err));
    if (streamed) this.streamBody(body);
  }

  // ---- the request's body ----

  private streamBody(from: BodySource): void {
    const stream = this.stream!;
    this.source = from;
    from.on('data', (chunk: Buffer) => {
      stream.write(chunk);
      if (stream.held) from.pause();
    });
    from.on('end', () => stream.end());
  }

  onWritable(): void {
    this.source?.resume();
  }

  // ---- the answer ----

  onHeaders(stream: H2Stream, fields: H2Headers): void {
    if (this.headed) return;
    const status = fields[':status'];
    if (status === undefined || !STATUS.test(status)) {
      this.cut(stream, `malformed response from server: ${status === undefined ? 'missing' : 'invalid'} status pseudo header`);
      return;
    }
    const code = Number(status);
    // An interim answer (100 Continue, 103 Early Hints) is skipped; HTTP/2 has no 101.
    if (code < 200) {
      if (code === 101) this.cut(stream, 'http2: server sent 101 Switching Protocols');
      return;
    }
    this.headed = true;
    this.statusCode = code;
    const headers: Record<string, string> = {};
    for (const name in fields) if (name[0] !== ':') headers[name] = fields[name];
    this.headers = headers as http.IncomingHttpHeaders;
    // Held until the caller takes the body (pipe, discard).
    stream.pause();
    this.resolve(this);
  }

  onData(stream: H2Stream, data: Buffer): void {
    if (!this.headed) {
      this.cut(stream, 'malformed response from server: DATA before the response headers');
      return;
    }
    if (this.sink !== undefined) {
      if (!this.sink.write(data)) stream.pause();
    } else {
      this.early?.push(data);
    }
  }

  onClose(stream: H2Stream): void {
    this.closed = true;
    if (!this.headed) {
      this.reject(this.abortError ?? this.failure(stream));
      return;
    }
    this.complete = stream.ended;
    this.release();
    if (this.sink !== undefined) this.finishSink(this.sink);
  }

  pipe(to: AnswerSink): void {
    this.sink = to;
    const stream = this.stream!;
    let full = false;
    for (const chunk of this.early ?? []) full = !to.write(chunk) || full;
    this.early = undefined;
    if (this.closed) {
      this.finishSink(to);
      return;
    }
    to.on('drain', () => stream.resume());
    to.on('close', () => { if (!this.closed) stream.close(CANCEL); });
    if (!full) stream.resume();
  }

  discard(): void {
    this.early = undefined;
    this.stream?.resume();
  }

  destroy(): void {
    if (!this.closed) this.stream?.close(CANCEL);
  }

  private finishSink(to: AnswerSink): void {
    if (this.complete) to.end();
    else to.destroy();
  }

  private abort(err: Error): void {
    if (this.closed) return;
    this.abortError = err;
    this.stream!.close(CANCEL);
  }

  /** A malformed answer: the stream is reset, and the request fails with `reason`. */
  private cut(stream: H2Stream, reason: string): void {
    stream.cutReason = reason;
    stream.close(PROTOCOL_ERROR);
  }

  /** Why the stream ended before its head, in Go's words. */
  private failure(stream: H2Stream): HopError {
    if (stream.cutReason !== undefined) return new HopError(stream.cutReason);
    if (stream.rstCode === REFUSED_STREAM) return new HopError('http2: Transport received Server\'s graceful shutdown GOAWAY', { refused: true });
    if (this.session.destroyed) {
      const err = this.session.error as NodeJS.ErrnoException | undefined;
      return new HopError(err?.message ?? 'unexpected EOF', { cause: err?.code ? err : undefined });
    }
    return new HopError(`stream error: stream ID ${stream.id}; ${CODE_NAMES[stream.rstCode] ?? `unknown error code 0x${stream.rstCode.toString(16)}`}; received from peer`);
  }
}

/** The request's header block (see the file's comment); throws a HopError for a value HTTP/2 cannot carry. */
function requestBlock(req: BackendRequest, authority: string): Buffer {
  const fields: [string, string][] = [[':method', req.method], [':scheme', 'https'], [':authority', authority], [':path', req.path]];
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (value === undefined) continue;
    const k = name.toLowerCase();
    if (k === 'host' || CONNECTION_FIELDS.has(k) || (k === 'te' && value !== 'trailers')) continue;
    for (const v of Array.isArray(value) ? value : [String(value)]) {
      if (FORBIDDEN_IN_VALUE.test(v)) throw new HopError(`net/http: invalid header field value for ${JSON.stringify(k)}`);
      fields.push([k, v]);
    }
  }
  return encodeHeaderBlock(fields);
}
