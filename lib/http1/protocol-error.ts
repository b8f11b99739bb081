/**
 * A request the HTTP/1.1 connection will not take: the status it is answered with before the
 * connection closes, and a stable code naming the rule the bytes broke (callers and tests branch
 * on the code; the list is RefusalCode).
 */
import { CLOSING_ANSWERS, type ClosingStatus } from '../http/closing';
import { METHOD_NOT_ALLOWED_BODY } from '../http/method-not-allowed';

/** CONNECT is answered 405 (a Status body), everything else with one of the closing answers. */
export type RefusalStatus = ClosingStatus | 405;

export type RefusalCode =
  // Refused by Node's llhttp too.
  | 'request-line' | 'method' | 'target' | 'version' | 'field-name' | 'field-value' | 'host-missing'
  | 'content-length' | 'content-length-repeated' | 'transfer-encoding-with-length'
  | 'chunk-size' | 'chunk-extension' | 'chunk-data-end' | 'trailer-field' | 'trailer-framing-field'
  | 'head-too-large' | 'trailers-too-large' | 'chunk-extensions-too-large' | 'head-timeout' | 'connect'
  // Deliberately stricter than llhttp, each for an RFC rule (request-head.ts, chunked-body.ts say which).
  | 'bare-cr' | 'request-line-spaces' | 'version-not-served' | 'asterisk-form' | 'target-empty-host'
  | 'host-repeated' | 'host-invalid' | 'transfer-coding' | 'transfer-encoding-http10'
  | 'content-length-overflow' | 'chunk-size-overflow' | 'chunk-extension-empty' | 'chunk-line-too-long'
  | 'expectation';

export class ProtocolError extends Error {
  constructor(readonly status: RefusalStatus, readonly code: RefusalCode) {
    super(`${status} ${code}`);
  }
}

/** The answer to a refusal, by status: node:http's texts, and 405 with its Status body. */
export const REFUSAL_ANSWERS: Readonly<Record<RefusalStatus, string>> = {
  ...CLOSING_ANSWERS,
  405: 'HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\n'
    + `Content-Length: ${Buffer.byteLength(METHOD_NOT_ALLOWED_BODY)}\r\nConnection: close\r\n\r\n${METHOD_NOT_ALLOWED_BODY}`,
};
