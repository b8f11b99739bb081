/**
 * An HTTP/2 request's header list checked as RFC 9113 8.2 and 8.3 require, before anything of it
 * reaches the application: pseudo-header fields (only the four of a request, each once, before
 * the regular ones, with valid values), field names (lower-case tokens), field values (no NUL,
 * CR, LF or other control characters, no whitespace at either end), no connection-specific
 * fields, `te` only `trailers`, a valid `content-length`, `host` agreeing with `:authority`, and
 * CONNECT in its own form. A request that breaks any of these is malformed: its stream is reset
 * with PROTOCOL_ERROR (8.1.1). nghttp2 (node:http2) and Go check the same; where they differ,
 * the stricter reading is taken.
 */

/** Connection-specific fields, which HTTP/2 forbids (RFC 9113 8.2.2). */
export const CONNECTION_FIELDS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** A regular field name: tchar (RFC 9110 5.6.2) without upper-case letters (RFC 9113 8.2.1). */
const NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** A field value: visible ASCII, obs-text, SP and HTAB, not starting or ending with SP or HTAB (RFC 9113 8.2.1, RFC 9110 5.5). */
const VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 3986 scheme. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*$/;
/** An origin-form target (path and query) or `*`: visible ASCII only, as llhttp takes a request target. */
const PATH = /^\/[\x21-\x7e]*$/;
/** RFC 3986 authority without userinfo (RFC 9113 8.3.1): host (reg-name, IPv4, IP literal) and port. */
const AUTHORITY = /^[A-Za-z0-9\-._~%!$&'()*+,;=:[\]]*$/;
const CONTENT_LENGTH = /^\d{1,15}$/;

export interface RequestHead {
  /** The fields as the application sees them: pseudo-headers, lower-case names, a repeated field's values joined. */
  headers: Record<string, string>;
  /** The body's declared length, or -1. */
  contentLength: number;
  /** A well-formed CONNECT, which this server refuses (405) without handing it on. */
  connect: boolean;
}

/** A request's fields (name, value, name, value...), or the reason they are malformed. */
export function requestHead(fields: readonly string[]): RequestHead | string {
  const headers: Record<string, string> = {};
  let regular = false;
  let contentLength = -1;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    const value = fields[i + 1];
    if (name.charCodeAt(0) === 58 /* ':' */) {
      if (regular) return 'a pseudo-header field after a regular one';
      if (headers[name] !== undefined) return `${name} repeated`;
      const why = pseudoValue(name, value);
      if (why) return why;
      headers[name] = value;
      continue;
    }
    regular = true;
    const why = regularField(name, value);
    if (why) return why;
    if (name === 'content-length') {
      if (contentLength >= 0 || !CONTENT_LENGTH.test(value)) return 'invalid content-length';
      contentLength = Number(value);
    }
    const had = headers[name];
    headers[name] = had === undefined ? value : `${had}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  const method = headers[':method'];
  if (method === undefined) return ':method missing';
  const connect = method === 'CONNECT';
  if (connect) {
    if (!headers[':authority'] || headers[':scheme'] !== undefined || headers[':path'] !== undefined) return 'CONNECT not in its form';
  } else {
    const path = headers[':path'];
    if (headers[':scheme'] === undefined || path === undefined) return ':scheme or :path missing';
    if (!PATH.test(path) && !(path === '*' && method === 'OPTIONS')) return 'invalid :path';
  }
  const host = headers.host;
  const authority = headers[':authority'];
  if (host !== undefined) {
    if (!AUTHORITY.test(host)) return 'invalid host';
    if (authority !== undefined && host.toLowerCase() !== authority.toLowerCase()) return 'host differs from :authority';
  }
  return { headers, contentLength, connect };
}

/** Whether a trailer section is well-formed: regular fields only (RFC 9113 8.1). */
export function trailersValid(fields: readonly string[]): boolean {
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i].charCodeAt(0) === 58 || regularField(fields[i], fields[i + 1])) return false;
  }
  return true;
}

function regularField(name: string, value: string): string | undefined {
  if (!NAME.test(name)) return 'invalid field name';
  if (!VALUE.test(value)) return 'invalid field value';
  if (CONNECTION_FIELDS.has(name)) return 'a connection-specific field';
  if (name === 'te' && value !== 'trailers') return 'te other than trailers';
  return undefined;
}

function pseudoValue(name: string, value: string): string | undefined {
  switch (name) {
    case ':method': return TOKEN.test(value) ? undefined : 'invalid :method';
    case ':scheme': return SCHEME.test(value) ? undefined : 'invalid :scheme';
    case ':authority': return AUTHORITY.test(value) ? undefined : 'invalid :authority';
    // Checked with :method, once all pseudo-headers are known.
    case ':path': return undefined;
    default: return `unknown pseudo-header ${name}`;
  }
}
