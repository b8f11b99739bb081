/**
 * One request to an APIService's backend, whichever protocol carries it (h2-exchange.ts,
 * h1-exchange.ts): what it is, where it goes, what it gives back, and how it fails.
 */
import type http from 'node:http';
import type tls from 'node:tls';

export interface BackendRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers?: http.OutgoingHttpHeaders;
  /** Until the answer's head arrives (connect, TLS, the backend's first byte). */
  timeoutMs?: number;
  /** The error's text when `timeoutMs` passes (default Go's response-header timeout's). */
  timeoutText?: string;
  /** The whole body, or a source streamed with backpressure (a client's request: 'data', 'end', pause, resume). */
  body?: Buffer | BodySource;
}

/** What a request body is read from: a Node stream, or the server's own request messages (lib/http). */
export interface BodySource {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
  readableEnded?: boolean;
}

/** Where a pool entry connects, and how. */
export interface ConnectionTarget {
  /** The address and TLS configuration: requests with equal keys share a connection. */
  key: string;
  host: string;
  port: number;
  /** TLS options (CA, verification, client certificate, server name); ALPN is the pool's. */
  tls: tls.ConnectionOptions;
  /** `host:port` as sent in Host and :authority. */
  authority: string;
}

/** The request's abort: the answer's head not in yet, the request is abandoned (and rejects). */
export type AbortRequest = (err?: Error) => void;
/** How an exchange is told its request was abandoned, and why. */
export type OnAbort = (cancel: (err: Error) => void) => void;

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
