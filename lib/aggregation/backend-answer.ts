/**
 * What a request to an APIService's backend gives back, whichever protocol carried it
 * (h2-exchange.ts, h1-exchange.ts), and how it fails.
 */
import type http from 'node:http';

/** Where an answer's body is copied: the caller's response. */
export interface AnswerSink {
  write(chunk: Buffer): boolean;
  end(): void;
  destroy(): void;
  on(event: 'drain' | 'close', listener: () => void): unknown;
}

/** The answer's head is in; its body is the caller's to copy, discard or abandon. */
export interface BackendAnswer {
  readonly statusCode: number;
  readonly headers: http.IncomingHttpHeaders;
  /** Copies the body into `to` with backpressure and ends it; a body cut short destroys `to`; `to` closing first abandons the answer. */
  pipe(to: AnswerSink): void;
  /** Reads the body to its end and drops it. */
  discard(): void;
  /** Abandons the answer (and the request, if it is still going). */
  destroy(): void;
}

/** A request that got no answer head; `message` is the text the proxy answers 503 with. */
export class HopError extends Error {
  /** The socket's error, when one caused it (dial, TLS, reset). */
  readonly cause?: NodeJS.ErrnoException;
  /** The answer's head did not come within the request's timeout. */
  readonly timeout: boolean;
  /** The backend never processed the request (HTTP/2 GOAWAY or REFUSED_STREAM): safe to send again. */
  readonly refused: boolean;

  constructor(message: string, opts: { cause?: NodeJS.ErrnoException; timeout?: boolean; refused?: boolean } = {}) {
    super(message);
    this.cause = opts.cause;
    this.timeout = opts.timeout ?? false;
    this.refused = opts.refused ?? false;
  }
}
