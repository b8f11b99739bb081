/** A connection error (RFC 9113 5.4.1): the session ends with GOAWAY and `code`. */
export class ConnectionError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
