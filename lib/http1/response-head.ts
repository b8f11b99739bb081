/**
 * An HTTP/1.1 response head as the connection writes it: the status line, the fields with their
 * names as Go writes them (kube-apiserver's are canonicalized so), and the framing the connection
 * owns (Content-Length, Transfer-Encoding: chunked, or close-delimited for HTTP/1.0; Connection).
 */
import { STATUS_CODES } from 'node:http';
import type { OutgoingValue } from '../http/messages';

/** Response fields the connection writes itself. */
const FRAMING_FIELDS: ReadonlySet<string> = new Set(['connection', 'transfer-encoding', 'keep-alive']);

export interface HeadRequest {
  /** The response carries no body (HEAD, 1xx, 204, 304). */
  bodyless: boolean;
  /** The connection would stay open after this response. */
  keepAlive: boolean;
  /** The request's HTTP/1.x minor version. */
  minor: number;
  /** The response is given whole with its head (no body bytes follow). */
  end: boolean;
}

export interface ResponseHead {
  bytes: Buffer;
  /** The connection stays open after this response (the handler's `Connection: close` and HTTP/1.0 without a length say otherwise). */
  keepAlive: boolean;
  /** The body goes chunked. */
  chunked: boolean;
  /** Body bytes the stated Content-Length promises (-1: none stated). */
  lengthLeft: number;
}

export function responseHead(status: number, reason: string, headers: Readonly<Record<string, OutgoingValue | undefined>>, r: HeadRequest): ResponseHead {
  let keepAlive = r.keepAlive;
  let chunked = false;
  let lengthLeft = -1;
  let head = `HTTP/1.1 ${status} ${reason || STATUS_CODES[status] || 'unknown'}\r\n`;
  for (const name in headers) {
    const v = headers[name];
    if (v === undefined) continue;
    if (FRAMING_FIELDS.has(name)) {
      if (name === 'connection' && hasToken(String(v).toLowerCase(), 'close')) keepAlive = false;
      continue;
    }
    const field = canonicalName(name);
    if (typeof v === 'object') for (const one of v) head += `${field}: ${one}\r\n`;
    else head += `${field}: ${v}\r\n`;
  }
  const length = headers['content-length'];
  if (length !== undefined && !r.bodyless) lengthLeft = Number(length);
  else if (!r.bodyless) {
    if (r.end) head += 'Content-Length: 0\r\n';
    else if (r.minor === 1) {
      chunked = true;
      head += 'Transfer-Encoding: chunked\r\n';
    } else {
      // HTTP/1.0 without a length: the body ends with the connection.
      keepAlive = false;
    }
  }
  if (!keepAlive) head += 'Connection: close\r\n';
  else if (r.minor === 0) head += 'Connection: keep-alive\r\n';
  head += '\r\n';
  return { bytes: Buffer.from(head, 'latin1'), keepAlive, chunked, lengthLeft };
}

/** Whether a comma-separated field value (lower-cased) holds `token`. */
function hasToken(value: string | undefined, token: string): boolean {
  if (!value) return false;
  if (value === token) return true;
  if (!value.includes(',')) return value.trim() === token;
  return value.split(',').some((t) => t.trim() === token);
}

const CANONICAL = new Map<string, string>();

/** A field name as Go's CanonicalMIMEHeaderKey writes it: Content-Type, Audit-Id, X-Kubernetes-Pf-Flowschema-Uid. */
export function canonicalName(name: string): string {
  let out = CANONICAL.get(name);
  if (out === undefined) {
    out = name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
    if (CANONICAL.size < 1024) CANONICAL.set(name, out);
  }
  return out;
}
