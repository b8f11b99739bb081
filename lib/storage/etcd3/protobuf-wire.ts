/**
 * The protobuf wire primitives of the hand-written etcd codecs (kv-codec.ts, watch-stream.ts).
 * Encoding: sizes first, then one Buffer with the 5-byte gRPC message prefix in front. Decoding:
 * one reader over the message, nested messages as [pos, end) ranges of it; bytes fields are views
 * of the message buffer, as protobufjs gives them (no copy).
 */

export const EMPTY = Buffer.alloc(0);

/** Bytes of a varint; negative int64s take ten. */
export function varintSize(v: number): number {
  if (v < 0) return 10;
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  let n = 4;
  for (let x = Math.floor(v / 0x10000000); x > 0; x = Math.floor(x / 128)) n++;
  return n;
}

function writeVarint(buf: Buffer, pos: number, v: number): number {
  if (v < 0) return writeBigVarint(buf, pos, BigInt(Math.trunc(v)));
  if (v < 0x80000000) {
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
  } else {
    while (v > 0x7f) {
      buf[pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
  }
  buf[pos++] = v;
  return pos;
}

/** A length-delimited field (field numbers below 16: one tag byte). */
export const bytesSize = (b: Buffer): number => 1 + varintSize(b.length) + b.length;

export function writeBytes(buf: Buffer, pos: number, tag: number, b: Buffer): number {
  buf[pos++] = tag;
  pos = writeVarint(buf, pos, b.length);
  buf.set(b, pos);
  return pos + b.length;
}

export function writeUint(buf: Buffer, pos: number, tag: number, v: number): number {
  buf[pos++] = tag;
  return writeVarint(buf, pos, v);
}

/** A nested message field of `size` bytes: tag and length; the caller writes the body. */
export const messageSize = (size: number): number => 1 + varintSize(size) + size;

/** An int64 as a varint (a lease ID may exceed 2^53); negative values take ten bytes. */
export function bigVarintSize(v: bigint): number {
  let x = BigInt.asUintN(64, v);
  let n = 1;
  while (x > 0x7fn) { x >>= 7n; n++; }
  return n;
}

export function writeBigVarint(buf: Buffer, pos: number, v: bigint): number {
  let x = BigInt.asUintN(64, v);
  while (x > 0x7fn) {
    buf[pos++] = Number(x & 0x7fn) | 0x80;
    x >>= 7n;
  }
  buf[pos++] = Number(x);
  return pos;
}

/** A Buffer for one gRPC message of `size` bytes, its prefix (not compressed, length) written. */
export function frame(size: number): Buffer {
  const buf = Buffer.allocUnsafe(5 + size);
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
  return buf;
}

export function done(buf: Buffer, pos: number): Buffer {
  if (pos !== buf.length) throw new Error(`etcd request encoding wrote ${pos} of ${buf.length} bytes`);
  return buf;
}

export class Reader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly end: number) {}

  varint(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b < 0x80) return b;
    let v = b & 0x7f;
    let mul = 0x80;
    for (let i = 1; ; i++) {
      if (i === 10 || this.pos >= this.end) throw new Error('malformed varint');
      b = buf[this.pos++];
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }

  /** A varint as an int64 (a lease ID may exceed 2^53). */
  varintBig(): bigint {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (shift > 63n || this.pos >= this.end) throw new Error('malformed varint');
      const b = this.buf[this.pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asIntN(64, v);
    }
  }

  /** A length prefix; returns where the delimited field ends. */
  delimited(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.end) throw new Error('truncated message');
    return end;
  }

  bytes(): Buffer {
    const end = this.delimited();
    const b = this.buf.subarray(this.pos, end);
    this.pos = end;
    return b;
  }

  skip(tag: number): void {
    switch (tag & 7) {
      case 0: this.varint(); break;
      case 1: this.pos += 8; break;
      case 2: this.pos = this.delimited(); break;
      case 5: this.pos += 4; break;
      default: throw new Error(`unsupported wire type ${tag & 7}`);
    }
    if (this.pos > this.end) throw new Error('truncated message');
  }

  tag(): number {
    const b = this.buf[this.pos];
    if (b < 0x80) {
      this.pos++;
      return b;
    }
    return this.varint();
  }
}

export function endOf(r: Reader, end: number): void {
  if (r.pos !== end) throw new Error('truncated message');
}
