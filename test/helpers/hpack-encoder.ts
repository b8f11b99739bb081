/**
 * An HPACK encoder for tests (RFC 7541) that can write every representation the format has, with
 * a dynamic table kept as the peer's decoder keeps it, and a few encodings a decoder must refuse:
 * Huffman strings with padding over 7 bits, padding of 0-bits, or EOS inside (5.2). Invalid
 * indexes and misplaced size updates need no help: hpackInteger() writes any prefix and value.
 *
 * The server's decoder (lib/http2/hpack.ts) is what the conformance suite tests, so
 * this encoder shares only the RFC's tables with it: the static table and the Huffman code.
 */
import { STATIC_TABLE } from '../../lib/http2/hpack';
import { EOS, huffmanCodes } from '../../lib/http2/huffman';

const CODES = huffmanCodes();

/** The three literal representations (6.2.1-6.2.3). */
export type Indexing = 'incremental' | 'without' | 'never';

/** How a Huffman-coded string is broken on purpose; a decoder must refuse each (RFC 7541 5.2). */
export interface HuffmanFaults {
  /** Whole bytes of 1-bits after the code's own padding: padding longer than 7 bits. */
  extraPadding?: number;
  /** Pads with 0-bits, where the padding must be the most significant bits of EOS (all 1-bits). */
  zeroPadding?: boolean;
  /** Writes the EOS symbol before the character at this position (the text's length: after it). */
  eosAt?: number;
}

export interface LiteralOptions {
  indexing?: Indexing;
  /** Huffman-codes the value (and a new name). */
  huffman?: boolean;
  faults?: HuffmanFaults;
}

/** An integer with an N-bit prefix (5.1); `firstByte` holds the bits above the prefix. */
export function hpackInteger(value: number, prefixBits: number, firstByte = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([firstByte | value]);
  const out = [firstByte | max];
  let v = value - max;
  while (v >= 128) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** The Huffman code of `text`'s bytes (latin1), padded with the top bits of EOS, or broken as asked. */
export function huffmanEncode(text: string, faults: HuffmanFaults = {}): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  const bits: number[] = [];
  const put = (symbol: number) => {
    const { code, length } = CODES[symbol];
    for (let b = length - 1; b >= 0; b--) bits.push(Math.floor(code / 2 ** b) % 2);
  };
  bytes.forEach((byte, i) => {
    if (faults.eosAt === i) put(EOS);
    put(byte);
  });
  if (faults.eosAt === bytes.length) put(EOS);
  while (bits.length % 8) bits.push(faults.zeroPadding ? 0 : 1);
  for (let i = 0; i < 8 * (faults.extraPadding ?? 0); i++) bits.push(1);
  const out = Buffer.alloc(bits.length / 8);
  bits.forEach((bit, i) => { out[i >> 3] |= bit << (7 - (i & 7)); });
  return out;
}

/** A string literal (5.2): the H bit, a 7-bit-prefix length, the octets. */
export function hpackString(text: string, huffman = false, faults?: HuffmanFaults): Buffer {
  const octets = huffman ? huffmanEncode(text, faults) : Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInteger(octets.length, 7, huffman ? 0x80 : 0), octets]);
}

const entrySize = (name: string, value: string) => Buffer.byteLength(name, 'latin1') + Buffer.byteLength(value, 'latin1') + 32;

/**
 * One connection's encoder. Each method returns the bytes of one representation and updates the
 * dynamic table as the decoder will on reading them; blocks are concatenations of these.
 */
export class HpackEncoder {
  /** Newest first: entries[0] is index 62. */
  private entries: Array<[string, string]> = [];
  private size = 0;

  /** `maxSize`: the decoder's table size (its SETTINGS_HEADER_TABLE_SIZE, 4096 by default). */
  constructor(private maxSize = 4096) {}

  /** Entries in the dynamic table. */
  get dynamicCount(): number {
    return this.entries.length;
  }

  /** The dynamic table's size as RFC 7541 4.1 counts it. */
  get tableSize(): number {
    return this.size;
  }

  /** The field at `index` (static, then dynamic); throws for an index not in either. */
  entry(index: number): readonly [string, string] {
    if (index >= 1 && index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1];
    const e = this.entries[index - STATIC_TABLE.length - 1];
    if (!e) throw new Error(`HPACK index ${index} is not in the table`);
    return e;
  }

  /** Indexed field (6.1). */
  indexed(index: number): Buffer {
    this.entry(index);
    return hpackInteger(index, 7, 0x80);
  }

  /** Literal field (6.2): `name` as a string (new name) or as the index of a name in the table. */
  literal(name: string | number, value: string, opts: LiteralOptions = {}): Buffer {
    const indexing = opts.indexing ?? 'incremental';
    const [prefix, first] = indexing === 'incremental' ? [6, 0x40] : indexing === 'without' ? [4, 0x00] : [4, 0x10];
    const huffman = opts.huffman ?? false;
    const parts = typeof name === 'number'
      ? [hpackInteger(name, prefix, first)]
      : [hpackInteger(0, prefix, first), hpackString(name, huffman)];
    parts.push(hpackString(value, huffman, opts.faults));
    if (indexing === 'incremental') this.insert(typeof name === 'number' ? this.entry(name)[0] : name, value);
    return Buffer.concat(parts);
  }

  /** Dynamic table size update (6.3): the table's new maximum, which evicts what no longer fits. */
  sizeUpdate(size: number): Buffer {
    this.maxSize = size;
    this.evict(0);
    return hpackInteger(size, 5, 0x20);
  }

  /**
   * The fields as a client with a dynamic table encodes them (and as RFC 7541 Appendix C does):
   * a field in the table by its index, otherwise a literal of `indexing` with the name's index
   * where the table has the name; static table before dynamic.
   */
  encode(fields: ReadonlyArray<readonly [string, string]>, opts: { huffman?: boolean; indexing?: Indexing } = {}): Buffer {
    return Buffer.concat(fields.map(([name, value]) => {
      const exact = this.find(name, value);
      if (exact) return this.indexed(exact);
      const nameIndex = this.find(name);
      return this.literal(nameIndex ?? name, value, { indexing: opts.indexing, huffman: opts.huffman });
    }));
  }

  /** The first index holding `name` (with `value`, when given). */
  private find(name: string, value?: string): number | undefined {
    const matches = (e: readonly [string, string]) => e[0] === name && (value === undefined || e[1] === value);
    const s = STATIC_TABLE.findIndex(matches);
    if (s >= 0) return s + 1;
    const d = this.entries.findIndex(matches);
    return d >= 0 ? STATIC_TABLE.length + d + 1 : undefined;
  }

  private insert(name: string, value: string): void {
    const size = entrySize(name, value);
    // An entry larger than the table empties it and is not added (4.4).
    this.evict(size);
    if (size > this.maxSize) return;
    this.entries.unshift([name, value]);
    this.size += size;
  }

  private evict(room: number): void {
    while (this.entries.length && this.size + room > this.maxSize) {
      const [name, value] = this.entries.pop()!;
      this.size -= entrySize(name, value);
    }
  }
}
