/**
 * HPACK (RFC 7541) for the etcd client's HTTP/2 transport.
 *
 * Decoding is complete: indexed fields, literals with and without indexing and never indexed,
 * Huffman-coded strings, the dynamic table with its size updates and evictions. etcd's grpc-go
 * indexes what it sends, so after the first answers a response's header block is a few index
 * bytes; the decoder keeps the fields of such blocks, which leave the table as it is, and hands
 * them out again while the table stays the same (a Map lookup instead of a decode).
 *
 * Encoding covers what the client sends: blocks fixed per call kind (path, content type, deadline),
 * made once and reused. Fields go out as static-table indexes where name and value match, else
 * as literals without indexing, unencoded: the peer's table is never touched, so the encoder has
 * no state to keep in step.
 */
import { huffmanDecode } from './huffman';

/** A decoded header block: lower-case names; a name sent twice gets its values joined by ", ". */
export type H2Headers = Readonly<Record<string, string>>;

/** RFC 7541 Appendix A; entry i is index i + 1. */
export const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''],
  ['etag', ''], ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''],
  ['if-modified-since', ''], ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''],
  ['last-modified', ''], ['link', ''], ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''],
  ['proxy-authorization', ''], ['range', ''], ['referer', ''], ['refresh', ''], ['retry-after', ''],
  ['server', ''], ['set-cookie', ''], ['strict-transport-security', ''], ['transfer-encoding', ''],
  ['user-agent', ''], ['vary', ''], ['via', ''], ['www-authenticate', ''],
];

/** The default SETTINGS_HEADER_TABLE_SIZE, which this client never changes. */
export const DEFAULT_TABLE_SIZE = 4096;

/** Blocks whose fields are kept (see HpackDecoder.decode); a table change empties it. */
const MEMO_LIMIT = 64;

export class HpackError extends Error {}

/** An entry's size counts 32 bytes beyond its name and value (RFC 7541 4.1). */
const entrySize = (name: string, value: string) => name.length + value.length + 32;

export class HpackDecoder {
  /** The dynamic table, oldest first: dynamic index 1 (overall 62) is the last element. */
  private readonly entries: [string, string][] = [];
  private size = 0;
  /** The limit the peer's encoder set with its last size update; at most `maxSize`. */
  private limit: number;
  /** Header blocks that changed nothing in the table, by their bytes, while the table stays as it is. */
  private readonly memo = new Map<string, H2Headers>();
  /** Counts changes to the table (inserts, evictions, size updates). */
  private changes = 0;

  /** `maxSize`: our SETTINGS_HEADER_TABLE_SIZE, the most a size update may ask for. */
  constructor(private readonly maxSize = DEFAULT_TABLE_SIZE) {
    this.limit = maxSize;
  }

  /** The dynamic table's size as RFC 7541 4.1 counts it. */
  get tableSize(): number {
    return this.size;
  }

  /** Decodes one complete header block (HEADERS and its CONTINUATIONs). Throws HpackError. */
  decode(block: Buffer): H2Headers {
    return this.decodeWithin(block, Infinity)!;
  }

  /**
   * As decode(), but undefined when the list passes `maxListSize` bytes (fieldsWithin). A block
   * kept from an earlier decode is within the limit: a session decodes with one limit throughout.
   */
  decodeWithin(block: Buffer, maxListSize: number): H2Headers | undefined {
    const key = block.length <= 64 ? block.toString('latin1') : undefined;
    if (key !== undefined) {
      const known = this.memo.get(key);
      if (known !== undefined) return known;
    }
    const changesBefore = this.changes;
    const fields = this.fieldsWithin(block, maxListSize);
    if (this.changes !== changesBefore) this.memo.clear();
    if (fields === undefined) return undefined;
    const out: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) add(out, fields[i], fields[i + 1]);
    if (this.changes === changesBefore && key !== undefined) {
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      this.memo.set(key, Object.freeze(out));
    }
    return out;
  }

  /**
   * Decodes one complete header block into its fields in order, as a flat list of names and
   * values (Node's rawHeaders shape): a name sent twice appears twice. Throws HpackError.
   */
  fields(block: Buffer): string[] {
    return this.fieldsWithin(block, Infinity) ?? [];
  }

  /**
   * As fields(), but stops collecting once the decoded list passes `maxListSize` bytes (names and
   * values plus 32 per field, RFC 9113 6.5.2) and answers undefined. The rest of the block is still
   * read for its effect on the dynamic table, which must stay in step with the peer's encoder, but
   * nothing more is collected: a block of many references to one large table entry costs its own
   * bytes, not the bytes it would expand to (an HPACK bomb). Throws HpackError.
   */
  fieldsWithin(block: Buffer, maxListSize: number): string[] | undefined {
    const out: string[] = [];
    let listSize = 0;
    let over = false;
    let pos = 0;
    let fieldsSeen = false;
    const n = block.length;
    while (pos < n) {
      const b = block[pos];
      let name: string;
      let value: string;
      if (b & 0x80) {
        // Indexed field (6.1).
        const [index, next] = readInt(block, pos, 7);
        pos = next;
        [name, value] = this.lookup(index);
      } else if ((b & 0xe0) === 0x20) {
        // Dynamic table size update (6.3): only before the first field.
        if (fieldsSeen) throw new HpackError('a table size update after a header field');
        const [size, next] = readInt(block, pos, 5);
        pos = next;
        if (size > this.maxSize) throw new HpackError(`table size update to ${size}, over the ${this.maxSize} allowed`);
        this.limit = size;
        this.changes++;
        this.evict(0);
        continue;
      } else {
        // Literal with incremental indexing (6.2.1, 01xxxxxx), without indexing (0000xxxx),
        // never indexed (0001xxxx).
        const indexing = (b & 0xc0) === 0x40;
        const [index, afterIndex] = readInt(block, pos, indexing ? 6 : 4);
        pos = afterIndex;
        if (index === 0) {
          [name, pos] = readString(block, pos);
        } else {
          name = this.lookup(index)[0];
        }
        [value, pos] = readString(block, pos);
        if (indexing) this.insert(name, value);
      }
      fieldsSeen = true;
      if (over) continue;
      listSize += name.length + value.length + 32;
      if (listSize > maxListSize) {
        over = true;
        out.length = 0;
        continue;
      }
      out.push(name, value);
    }
    return over ? undefined : out;
  }

  private lookup(index: number): readonly [string, string] {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1];
    const i = this.entries.length - (index - STATIC_TABLE.length);
    if (i < 0) throw new HpackError(`index ${index} is beyond the table`);
    return this.entries[i];
  }

  private insert(name: string, value: string): void {
    const size = entrySize(name, value);
    // An entry larger than the table empties it and is not added (4.4).
    this.evict(size);
    if (size <= this.limit) {
      this.entries.push([name, value]);
      this.size += size;
      this.changes++;
    }
  }

  /** Evicts the oldest entries until `room` more bytes fit within the limit. */
  private evict(room: number): void {
    let drop = 0;
    while (drop < this.entries.length && this.size + room > this.limit) {
      const [name, value] = this.entries[drop++];
      this.size -= entrySize(name, value);
    }
    if (drop > 0) {
      this.entries.splice(0, drop);
      this.changes++;
    }
  }
}

function add(out: Record<string, string>, name: string, value: string): void {
  const had = out[name];
  out[name] = had === undefined ? value : `${had}, ${value}`;
}

/** An integer with an N-bit prefix (5.1): [value, position after it]. */
function readInt(buf: Buffer, pos: number, prefixBits: number): [number, number] {
  const max = (1 << prefixBits) - 1;
  let value = buf[pos++] & max;
  if (value < max) return [value, pos];
  let shift = 0;
  for (;;) {
    if (pos >= buf.length) throw new HpackError('truncated integer');
    const b = buf[pos++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(b & 0x80)) break;
    // Far beyond any size or index this decoder accepts.
    if (shift > 28) throw new HpackError('integer too large');
  }
  return [value, pos];
}

/** A string literal (5.2), Huffman-coded or not: [string, position after it]. */
function readString(buf: Buffer, pos: number): [string, number] {
  if (pos >= buf.length) throw new HpackError('truncated string');
  const huffman = (buf[pos] & 0x80) !== 0;
  const [length, start] = readInt(buf, pos, 7);
  const end = start + length;
  if (end > buf.length) throw new HpackError('truncated string');
  if (!huffman) return [buf.toString('latin1', start, end), end];
  try {
    return [huffmanDecode(buf, start, end), end];
  } catch (err) {
    throw new HpackError((err as Error).message);
  }
}

/** Static-table index of each name (its first entry), and of each full (name, value) pair. */
const NAME_INDEX = new Map<string, number>();
const PAIR_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  if (!NAME_INDEX.has(name)) NAME_INDEX.set(name, i + 1);
  if (value) PAIR_INDEX.set(`${name}\0${value}`, i + 1);
});

/** Bytes an integer with an N-bit prefix takes (5.1). */
function intLength(value: number, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) return 1;
  let n = 2;
  for (let v = value - max; v >= 128; v = Math.floor(v / 128)) n++;
  return n;
}

/** Writes an integer with an N-bit prefix, the prefix's other bits `flags`; the position after it. */
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

/** An upper bound of a field's encoded length (fieldOf). */
export function fieldLength(name: string, value: string): number {
  return 1 + intLength(name.length, 7) + name.length + intLength(value.length, 7) + value.length;
}

/**
 * Writes one field at `pos` of `buf` (room: fieldLength), touching no table: the static-table
 * index where name and value match, else a literal without indexing (name by static index where
 * there is one), not Huffman-coded. Returns the position after it.
 */
export function writeField(buf: Buffer, pos: number, name: string, value: string): number {
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

/**
 * A header block for `fields` (names lower-case, pseudo-headers first), touching no table
 * (writeField). Made once per kind of request and reused.
 */
export function encodeHeaderBlock(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  const buf = Buffer.allocUnsafe(fields.reduce((n, [name, value]) => n + fieldLength(name, value), 0));
  let pos = 0;
  for (const [name, value] of fields) pos = writeField(buf, pos, name, value);
  return buf.subarray(0, pos);
}
