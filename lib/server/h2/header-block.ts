/**
 * Response header blocks for the server's own HTTP/2 side (RFC 7541). Every field goes out as a
 * static-table index where name and value match (`:status 200`), else as a literal without
 * indexing (name by static index where there is one), not Huffman-coded: the client's dynamic
 * table is never touched, so there is no encoder state to keep in step with it. The bytes of a
 * field whose value repeats (content types, cache-control) are made once and kept.
 */
import { STATIC_TABLE } from '../../storage/etcd3/h2/hpack';

export type OutgoingValue = string | number | readonly string[];

/** Static-table index of each name (its first entry), and of each full (name, value) pair. */
const NAME_INDEX = new Map<string, number>();
const PAIR_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  if (!NAME_INDEX.has(name)) NAME_INDEX.set(name, i + 1);
  if (value) PAIR_INDEX.set(`${name}\0${value}`, i + 1);
});

/** Fields whose values differ from response to response: encoded each time, never kept. */
const VARYING = new Set(['content-length', 'audit-id', 'date', 'location', 'etag', 'last-modified']);
const MEMO_LIMIT = 512;
const memo = new Map<string, Buffer>();

/** Bytes an HPACK integer with an N-bit prefix takes. */
function intLength(value: number, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) return 1;
  let n = 2;
  for (let v = value - max; v >= 128; v = Math.floor(v / 128)) n++;
  return n;
}

function writeInt(buf: Buffer, pos: number, flags: number, prefixBits: number, value: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    buf[pos] = flags | value;
    return pos + 1;
  }
  buf[pos++] = flags | max;
  let v = value - max;
  while (v >= 128) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Writes one field at `pos` of `buf` (large enough: see fieldLength); returns the position after it. */
function writeField(buf: Buffer, pos: number, name: string, value: string): number {
  const pair = PAIR_INDEX.get(`${name}\0${value}`);
  if (pair !== undefined) return writeInt(buf, pos, 0x80, 7, pair);
  const nameIndex = NAME_INDEX.get(name) ?? 0;
  pos = writeInt(buf, pos, 0x00, 4, nameIndex);
  if (nameIndex === 0) {
    pos = writeInt(buf, pos, 0x00, 7, name.length);
    pos += buf.write(name, pos, 'latin1');
  }
  pos = writeInt(buf, pos, 0x00, 7, value.length);
  return pos + buf.write(value, pos, 'latin1');
}

/** An upper bound of a field's encoded length. */
function fieldLength(name: string, value: string): number {
  return 1 + intLength(name.length, 7) + name.length + intLength(value.length, 7) + value.length;
}

function encodedField(name: string, value: string): Buffer {
  const key = `${name}\0${value}`;
  let bytes = memo.get(key);
  if (bytes) return bytes;
  const buf = Buffer.allocUnsafe(fieldLength(name, value));
  bytes = buf.subarray(0, writeField(buf, 0, name, value));
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, bytes);
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
 * response keeps them; an array value as one field per element).
 */
export function responseHeaderBlock(status: number, headers: Readonly<Record<string, OutgoingValue | undefined>>): Buffer {
  const parts: Buffer[] = [statusField(status)];
  let length = parts[0].length;
  let varying: Array<[string, string]> | undefined;
  let varyingLength = 0;
  for (const name in headers) {
    const v = headers[name];
    if (v === undefined) continue;
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
