/**
 * A request head (RFC 9112 3, 5, 6): the request line and field lines, parsed from their text
 * (latin1, without the blank line that ends them) into Node's shapes, and the body's framing.
 *
 * Whatever Node's parser (llhttp, strict) refuses is refused here too. Where llhttp is laxer than
 * RFC 9112/9110, the RFC's rule is kept: each such rule is marked "Stricter than llhttp" and has a
 * code of its own (protocol-error.ts), which the differential suite (test/fuzz/h1-differential)
 * names when it sees the two sides disagree.
 *
 * The head is checked in a few indexOf and regular-expression passes, not a loop per byte:
 * this runs for every HTTP/1.1 request.
 */
import { METHODS } from 'node:http';
import { INVALID_VALUE, isToken, skipOws, trimOwsEnd } from './field-syntax';
import { ProtocolError } from './protocol-error';

export interface RequestHead {
  method: string;
  url: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: number;
  /** Lower-case names; a repeated field joined with ", ", cookies with "; ", the first value kept for the fields Node keeps once. */
  headers: Record<string, string | string[] | undefined>;
  /** Names and values as sent (values trimmed). */
  rawHeaders: string[];
  /** The body's framing: CHUNKED, or its Content-Length (0: no body). */
  bodyLength: number;
  /** The connection stays open after this exchange (as far as the request says). */
  keepAlive: boolean;
  /** HTTP/1.1 with Expect: 100-continue. */
  expectContinue: boolean;
}

/** RequestHead.bodyLength of a chunked body. */
export const CHUNKED = -1;

/** The methods Node's parser knows (case-sensitive); CONNECT is refused on its own (405). */
const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS);

/** origin-form: what llhttp takes after a '/' (visible ASCII; no controls, DEL or bytes >= 0x80). */
const ORIGIN_FORM = /^\/[\x21-\x7e]*$/;
/** What llhttp takes after a '*'. */
const ASTERISK_LIKE = /^\*[\x21-\x7e]*$/;
/** absolute-form as llhttp reads it: letters, "://", an authority of its characters, then a path or query. */
const ABSOLUTE_FORM = /^[A-Za-z]+:\/\/([\w\-.!~*'()%;:&=+$,[\]@]*)(?:[/?][\x21-\x7e]*)?$/;

/** Host = uri-host [ ":" port ] (RFC 9112 3.2, RFC 3986 3.2.2); empty is valid (a target without authority). */
const HOST = /^(?:\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[\w\-.~!$&'()*+,;=:]+)\]|(?:[\w\-.~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;
/** A Content-Length value, its leading whitespace gone: digits, then spaces only (llhttp refuses a tab there). */
const CONTENT_LENGTH = /^[0-9]+ *$/;
/** Transfer-Encoding naming chunked alone (empty list elements before it allowed, spaces only after it, as llhttp reads it). */
const CHUNKED_ONLY = /^(?:[ \t]*,)*[ \t]*chunked *$/i;

/** Fields of which Node keeps the first value when a request repeats them (node:_http_incoming matchKnownFields). */
const FIRST_VALUE_ONLY: ReadonlySet<string> = new Set([
  'content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization',
  'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag',
  'last-modified', 'server', 'age', 'expires',
]);
/**
 * The lengths of the fields counted (host) or read untrimmed for the framing and the connection's
 * fate (connection, content-length, proxy-connection, transfer-encoding), as a bit set: most field
 * names are told apart by their length alone, without a lookup.
 */
const SPECIAL_LENGTHS = (1 << 4) | (1 << 10) | (1 << 14) | (1 << 16) | (1 << 17);

/** Lower-case field names, kept for the names clients send (a few dozen). */
const LOWER = new Map<string, string>();

function lowerName(name: string): string {
  let lower = LOWER.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (LOWER.size < 1024) LOWER.set(name, lower);
  }
  return lower;
}

/** Parses and checks `head`; throws ProtocolError for a request the connection must refuse. */
export function parseRequestHead(head: string): RequestHead {
  let eol = head.indexOf('\r\n');
  if (eol < 0) eol = head.length;
  const { method, url, minor } = parseRequestLine(head, eol);

  const headers: Record<string, string | string[] | undefined> = {};
  const rawHeaders: string[] = [];
  let hosts = 0;
  // Untrimmed at the end (llhttp refuses a tab after a length and does not take "chunked\t" as chunked).
  let length: string | undefined;
  let codings: string | undefined;
  let connection: string | undefined;
  for (let pos = eol + 2; pos < head.length;) {
    let next = head.indexOf('\r\n', pos);
    if (next < 0) next = head.length;
    const colon = head.indexOf(':', pos);
    // No name, whitespace before the colon, a folded line, or a bare CR or LF in the name (RFC 9112 5.1, 5.2).
    if (colon <= pos || colon > next || !isToken(head, pos, colon)) throw new ProtocolError(400, 'field-name');
    const name = head.slice(pos, colon);
    const from = skipOws(head, colon + 1, next);
    const to = trimOwsEnd(head, from, next);
    const value = head.slice(from, to);
    if (INVALID_VALUE.test(value)) throw new ProtocolError(400, 'field-value');
    rawHeaders.push(name, value);
    const key = lowerName(name);
    if (key.length < 18 && (SPECIAL_LENGTHS >>> key.length) & 1) {
      const raw = to === next ? value : head.slice(from, next);
      if (key === 'host') hosts++;
      else if (key === 'content-length') {
        if (length !== undefined) throw new ProtocolError(400, 'content-length-repeated');
        length = raw;
      } else if (key === 'transfer-encoding') codings = codings === undefined ? raw : `${codings},${raw}`;
      else if (key === 'connection' || key === 'proxy-connection') connection = connection === undefined ? raw : `${connection},${raw}`;
    }
    pos = next + 2;
    // A value is there when a string (or set-cookie's array) is: "constructor" finds Object's otherwise, as in Node.
    const had = headers[key];
    if (typeof had === 'string') {
      if (!FIRST_VALUE_ONLY.has(key)) headers[key] = `${had}${key === 'cookie' ? '; ' : ', '}${value}`;
    } else if (key === 'set-cookie') {
      if (had === undefined) headers[key] = [value];
      else had.push(value);
    } else headers[key] = value;
  }

  // RFC 9112 3.2: an HTTP/1.1 request without Host is 400, as Node's http.Server answers it.
  if (hosts === 0 && minor === 1) throw new ProtocolError(400, 'host-missing');
  // Stricter than llhttp (RFC 9112 3.2): more than one Host line, or one that is not uri-host [":" port], is 400.
  if (hosts > 1) throw new ProtocolError(400, 'host-repeated');
  if (hosts === 1 && !HOST.test(headers.host as string)) throw new ProtocolError(400, 'host-invalid');

  return {
    method, url, minor, headers, rawHeaders,
    bodyLength: bodyLength(length, codings, minor),
    keepAlive: keepAlive(connection, headers.upgrade as string | undefined, minor),
    expectContinue: expectsContinue(headers.expect as string | undefined, minor),
  };
}

function parseRequestLine(head: string, eol: number): { method: string; url: string; minor: number } {
  const sp1 = head.indexOf(' ');
  if (sp1 <= 0 || sp1 > eol) throw new ProtocolError(400, 'request-line');
  const method = head.slice(0, sp1);
  // CONNECT asks for a tunnel, which this server does not give (kube-apiserver answers it 405).
  if (method === 'CONNECT') throw new ProtocolError(405, 'connect');
  if (!KNOWN_METHODS.has(method)) throw new ProtocolError(400, 'method');
  const sp2 = head.indexOf(' ', sp1 + 1);
  // Stricter than llhttp, which takes a line without a version as HTTP/0.9 (RFC 9112 3: the version is required).
  if (sp2 < 0 || sp2 > eol) throw new ProtocolError(400, 'version-not-served');
  // Stricter than llhttp, which skips runs of spaces (RFC 9112 3: method SP request-target SP HTTP-version).
  if (sp2 === sp1 + 1 || head.charCodeAt(sp2 + 1) === 32) throw new ProtocolError(400, 'request-line-spaces');
  const url = head.slice(sp1 + 1, sp2);
  checkTarget(method, url);
  const version = head.slice(sp2 + 1, eol);
  if (version === 'HTTP/1.1') return { method, url, minor: 1 };
  if (version === 'HTTP/1.0') return { method, url, minor: 0 };
  // Stricter than llhttp, which serves HTTP/0.9 and HTTP/2.0 request lines: only HTTP/1.x is HTTP/1.1's (RFC 9112 2.3, RFC 9110 6.2).
  if (version === 'HTTP/0.9' || version === 'HTTP/2.0') throw new ProtocolError(400, 'version-not-served');
  throw new ProtocolError(400, 'version');
}

/** The request-target forms of RFC 9112 3.2, as far as llhttp takes them; authority-form belongs to CONNECT, refused before. */
function checkTarget(method: string, url: string): void {
  const first = url.charCodeAt(0);
  if (first === 47 /* / */) {
    if (!ORIGIN_FORM.test(url)) throw new ProtocolError(400, 'target');
    return;
  }
  if (first === 42 /* * */) {
    if (url === '*' && method === 'OPTIONS') return;
    // Stricter than llhttp, which takes "*" and anything after it for any method (RFC 9112 3.2.4: "*" alone, for OPTIONS).
    throw new ProtocolError(400, ASTERISK_LIKE.test(url) ? 'asterisk-form' : 'target');
  }
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) throw new ProtocolError(400, 'target');
  // Stricter than llhttp (RFC 9110 4.2.1): a URI with an empty host is invalid and must be rejected.
  const hostPort = m[1].slice(m[1].lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.split(':')[0];
  if (!host) throw new ProtocolError(400, 'target-empty-host');
}

/** The body's framing (RFC 9112 6.3); throws for what cannot be framed safely (request smuggling). */
function bodyLength(length: string | undefined, codings: string | undefined, minor: number): number {
  if (codings !== undefined) {
    // A length beside a transfer coding is how requests are smuggled (RFC 9112 6.3 item 3; llhttp refuses it).
    if (length !== undefined) throw new ProtocolError(400, 'transfer-encoding-with-length');
    // Stricter than llhttp (RFC 9112 6.1): an HTTP/1.0 message with Transfer-Encoding has faulty framing.
    if (minor === 0) throw new ProtocolError(400, 'transfer-encoding-http10');
    // Stricter than llhttp, which takes "gzip, chunked": a coding other than chunked cannot be decoded here
    // (RFC 9112 6.1 would answer 501; 400 keeps refusals below 500), and chunked must be last (RFC 9112 6.3 item 4).
    if (!CHUNKED_ONLY.test(codings)) throw new ProtocolError(400, 'transfer-coding');
    return CHUNKED;
  }
  if (length === undefined) return 0;
  // llhttp refuses a sign, a list ("1, 1"), an empty value, a tab after the digits.
  if (!CONTENT_LENGTH.test(length)) throw new ProtocolError(400, 'content-length');
  const n = Number(length);
  // Stricter than llhttp, which counts to 2^64 (RFC 9110 8.6: no precision lost to a large number).
  if (!Number.isSafeInteger(n)) throw new ProtocolError(400, 'content-length-overflow');
  return n;
}

/**
 * Whether the connection stays open (RFC 9112 9.3): HTTP/1.1 unless "close" is listed, HTTP/1.0
 * only with "keep-alive". Proxy-Connection counts as Connection, as llhttp counts it. "close" is
 * recognised wherever RFC 9110 5.6.1 lists it (llhttp misses "close\t"); "keep-alive" only where
 * llhttp recognises it too (spaces after it, not tabs), so the connection never outlives Node's.
 * A request asking to upgrade (Connection: upgrade and an Upgrade field) closes it too: this server
 * switches to no protocol (RFC 9110 7.8 lets it go on), but llhttp stops reading what was
 * pipelined after such a request, so nothing after it is served here either.
 */
function keepAlive(connection: string | undefined, upgrade: string | undefined, minor: number): boolean {
  if (connection === undefined) return minor === 1;
  let keep = false;
  for (const t of connection.toLowerCase().split(',')) {
    const from = skipOws(t, 0, t.length);
    const word = t.slice(from, trimOwsEnd(t, from, t.length));
    if (word === 'close' || (word === 'upgrade' && upgrade)) return false;
    if (word === 'keep-alive' && !t.includes('\t', from)) keep = true;
  }
  return minor === 1 || keep;
}

/** Expect in HTTP/1.1 (HTTP/1.0 ignores it, as Node does): 100-continue, or 417 for an expectation this server cannot meet (RFC 9110 10.1.1). */
function expectsContinue(expect: string | undefined, minor: number): boolean {
  if (expect === undefined || minor === 0) return false;
  const lower = expect.toLowerCase();
  // A repeated Expect line is joined into a list: each of its members must be 100-continue.
  if (lower !== '100-continue' && !lower.split(',').every((e) => e.trim() === '100-continue')) throw new ProtocolError(417, 'expectation');
  return true;
}
