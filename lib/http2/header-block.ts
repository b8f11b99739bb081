/**
 * Response header blocks for the server's own HTTP/2 side (RFC 7541), in the etcd client's
 * encoding (hpack.ts writeField): static-table indexes and literals, the client's dynamic table
 * never touched, so there is no encoder state to keep in step with it. The bytes of a field whose
 * value repeats (content types, cache-control) are made once and kept.
 */
import { fieldLength, writeField } from './hpack';
import type { OutgoingValue } from '../http/messages';
import { CONNECTION_FIELDS } from './request-fields';


/** Fields whose values differ from response to response: encoded each time, never kept. */
const VARYING = new Set(['content-length', 'audit-id', 'date', 'location', 'etag', 'last-modified']);
const MEMO_LIMIT = 512;
/** By name, then value: a lookup builds no key (names and repeated values are the same strings each time). */
const memo = new Map<string, Map<string, Buffer>>();
let memoSize = 0;

function encodedField(name: string, value: string): Buffer {
  let byValue = memo.get(name);
  let bytes = byValue?.get(value);
  if (bytes) return bytes;
  const buf = Buffer.allocUnsafe(fieldLength(name, value));
  bytes = buf.subarray(0, writeField(buf, 0, name, value));
  if (memoSize >= MEMO_LIMIT) {
    memo.clear();
    memoSize = 0;
    byValue = undefined;
  }
  if (!byValue) memo.set(name, byValue = new Map());
  byValue.set(value, bytes);
  memoSize++;
  return bytes;
}

const STATUS_BYTES = new Map<number, Buffer>();

function statusField(status: number): Buffer {
  let bytes = STATUS_BYTES.get(status);
  if (!bytes) {
    const value = String(status);
    const buf = Buffer.allocUnsafe(fieldLength(':status', value));
    bytes = buf.subarray(0, writeField(buf, 0, ':status', value));
    STATUS_BYTES.set(status, bytes);
  }
  return bytes;
}

/**
 * The header block of a response: `:status`, then each header (names lower-case, as the
 * response keeps them; an array value as one field per element) but the connection-specific ones.
 */
export function responseHeaderBlock(status: number, headers: Readonly<Record<string, OutgoingValue | undefined>>): Buffer {
  const parts: Buffer[] = [statusField(status)];
  let length = parts[0].length;
  let varying: Array<[string, string]> | undefined;
  let varyingLength = 0;
  for (const name in headers) {
    const v = headers[name];
    if (v === undefined || CONNECTION_FIELDS.has(name)) continue;
    const values = typeof v === 'object' ? v : [String(v)];
    for (const value of values) {
      if (VARYING.has(name) || value.length > 128) {
        (varying ??= []).push([name, value]);
        varyingLength += fieldLength(name, value);
      } else {
        const bytes = encodedField(name, value);
        parts.push(bytes);
        length += bytes.length;
      }
    }
  }
  const out = Buffer.allocUnsafe(length + varyingLength);
  let pos = 0;
  for (const p of parts) pos += p.copy(out, pos);
  if (varying) for (const [name, value] of varying) pos = writeField(out, pos, name, value);
  return out.subarray(0, pos);
}
