/**
 * The framing lines of the chunked transfer coding (RFC 9112 7.1): chunk-size lines with their
 * extensions, and the field lines of the trailer section, each given without its CRLF. Checked
 * as Node's llhttp checks them, or more strictly where RFC 9112 asks ("Stricter than llhttp").
 * Chunk data and the CRLF after it are the connection's (connection.ts).
 */
import { INVALID_VALUE, isToken, skipOws, trimOwsEnd } from './field-syntax';
import { ProtocolError } from './protocol-error';

/** Bytes of extension names and values one chunk-size line may carry: Node's kMaxChunkExtensionsSize (413 beyond). */
export const MAX_CHUNK_EXTENSIONS = 16 * 1024;
/**
 * A chunk-size line still without its CRLF past this is refused (413): extensions within Node's
 * limit, with their ';' and '=', fit in twice MAX_CHUNK_EXTENSIONS, and a size in the rest.
 */
export const MAX_CHUNK_LINE = 2 * MAX_CHUNK_EXTENSIONS + 1024;

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]";
/** quoted-string (RFC 9110 5.6.4): qdtext or a quoted-pair between DQUOTEs. */
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
/**
 * chunk-ext (RFC 9112 7.1.1) without the BWS that llhttp refuses: `;name` or `;name=value`, a
 * value a token or a quoted-string. No bare CR or LF can hide in it.
 */
const CHUNK_EXT = new RegExp(`^(?:;${TOKEN}+(?:=(?:${TOKEN}+|${QUOTED}))?)+$`);
/** What llhttp takes beyond CHUNK_EXT: empty names and values (";=v", ";n=", ";;n"), not a ';' last. */
const EMPTY_PARTS = new RegExp(`^(?:;${TOKEN}*(?:=(?:${TOKEN}*|${QUOTED}))?)+$`);
/** One extension, for counting its name and value bytes (sticky, after CHUNK_EXT has matched the line). */
const ONE_EXT = new RegExp(`;(${TOKEN}+)(?:=(${TOKEN}+|${QUOTED}))?`, 'y');

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** The size of the chunk a chunk-size line announces; throws ProtocolError for a line to refuse. */
export function parseChunkSize(line: string): number {
  let end = 0;
  while (end < line.length && isHex(line.charCodeAt(end))) end++;
  if (end === 0) throw new ProtocolError(400, 'chunk-size');
  let start = 0;
  while (start < end - 1 && line.charCodeAt(start) === 48) start++;
  // Stricter than llhttp, which counts to 2^64 (RFC 9112 7.1: no overflow or precision lost to a large size).
  const size = end - start > 14 ? Infinity : parseInt(line.slice(start, end), 16);
  if (!Number.isSafeInteger(size)) throw new ProtocolError(400, 'chunk-size-overflow');
  if (end === line.length) return size;
  // Whitespace after the size (BWS), a bare CR or LF, anything but ';': llhttp refuses them all.
  if (line.charCodeAt(end) !== 59 /* ; */) throw new ProtocolError(400, 'chunk-size');
  const ext = line.slice(end);
  if (!CHUNK_EXT.test(ext)) {
    // Stricter than llhttp (RFC 9112 7.1.1): an extension's name is a token, its value a token or a quoted-string.
    throw new ProtocolError(400, EMPTY_PARTS.test(ext) && !ext.endsWith(';') ? 'chunk-extension-empty' : 'chunk-extension');
  }
  if (ext.length > MAX_CHUNK_EXTENSIONS && extensionBytes(ext) > MAX_CHUNK_EXTENSIONS) throw new ProtocolError(413, 'chunk-extensions-too-large');
  return size;
}

/** Bytes of names and values (quotes included) in a valid extension list, as Node counts them. */
function extensionBytes(ext: string): number {
  let bytes = 0;
  ONE_EXT.lastIndex = 0;
  for (let m = ONE_EXT.exec(ext); m; m = ONE_EXT.exec(ext)) bytes += m[1].length + (m[2]?.length ?? 0);
  return bytes;
}

/**
 * Checks one trailer field line (RFC 9112 7.1.2) as a header field line is checked; the framing
 * fields are refused there, as llhttp refuses them. Trailer fields are then dropped: Node hands
 * them out in req.trailers, which this server never reads.
 */
export function checkTrailerLine(line: string): void {
  const colon = line.indexOf(':');
  if (colon <= 0 || !isToken(line, 0, colon)) throw new ProtocolError(400, 'trailer-field');
  const from = skipOws(line, colon + 1, line.length);
  if (INVALID_VALUE.test(line.slice(from, trimOwsEnd(line, from, line.length)))) throw new ProtocolError(400, 'trailer-field');
  const name = line.slice(0, colon).toLowerCase();
  if (name === 'content-length' || name === 'transfer-encoding') throw new ProtocolError(400, 'trailer-framing-field');
}
