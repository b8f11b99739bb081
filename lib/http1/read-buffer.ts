/**
 * The bytes an HTTP/1.1 connection has read and not yet parsed. A head or line arriving in many
 * reads is gathered in a buffer that doubles as it fills, and searched from where the last search
 * stopped, so that a 1 MiB head costs linear time, not a copy and a scan of everything so far per
 * read. Only bytes after what is held are ever written, never those before, which may have been
 * handed out as body chunks.
 */
export class ReadBuffer {
  /** What is held: a view of `store` (or a chunk as it came); empty when nothing is. */
  bytes: Buffer = EMPTY;
  /** Where a head growing over several reads is gathered, with room to grow. */
  private store: Buffer | undefined;
  /** Bytes at the start of `bytes` already searched in vain. */
  private scanned = 0;

  append(chunk: Buffer): void {
    const buf = this.bytes;
    if (buf.length === 0) {
      this.bytes = chunk;
      this.scanned = 0;
      return;
    }
    const need = buf.length + chunk.length;
    const store = this.store;
    if (store && buf.buffer === store.buffer && buf.byteOffset + need <= store.byteOffset + store.length) {
      const at = buf.byteOffset - store.byteOffset;
      chunk.copy(store, at + buf.length);
      this.bytes = store.subarray(at, at + need);
      return;
    }
    const grown = Buffer.allocUnsafe(Math.max(2 * need, 16 * 1024));
    buf.copy(grown, 0);
    chunk.copy(grown, buf.length);
    this.store = grown;
    this.bytes = grown.subarray(0, need);
  }

  /** Drops the first `n` bytes. */
  consume(n: number): void {
    this.bytes = this.bytes.subarray(n);
    this.scanned = 0;
    if (this.bytes.length === 0) this.store = undefined;
  }

  /** The offset of `seq`, searching only what no earlier search covered; -1 if not there yet. */
  find(seq: string): number {
    const buf = this.bytes;
    const at = buf.indexOf(seq, Math.max(0, this.scanned - seq.length + 1), 'latin1');
    if (at < 0) this.scanned = buf.length;
    return at;
  }

  clear(): void {
    this.bytes = EMPTY;
    this.store = undefined;
    this.scanned = 0;
  }
}

const EMPTY = Buffer.alloc(0);
