/**
 * How an HTTP/1.1 connection that cannot go on is answered and closed, by both HTTP/1.1 sides
 * (lib/http1, and node:http's through lib/server/listener-options.ts answerClientErrors).
 */
/** The answers of an HTTP/1.1 connection that cannot go on (node:http's texts), by status; both HTTP/1.1 sides send them. */
export const CLOSING_ANSWERS = {
  400: 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
  408: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
  413: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  417: 'HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\n\r\n',
  431: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
} as const;
export type ClosingStatus = keyof typeof CLOSING_ANSWERS;

/** How long a connection closed in order keeps reading before it is cut (Go's rstAvoidanceDelay). */
const CLOSE_LINGER_MS = 500;

/**
 * Writes `answer` (if any) and ends the connection in order: what the client still sends is read
 * and dropped for a moment, so that the kernel does not answer it with a reset that overtakes
 * the answer, then the socket is cut (Go's rstAvoidanceDelay). Used for both HTTP/1.1 server sides.
 */
export function answerAndClose(socket: import('node:stream').Duplex, answer?: string): void {
  socket.end(answer);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
}
