/**
 * Cuts a gRPC response body into messages (a 5-byte prefix: compressed flag and length, then the
 * message), which DATA frames may split or pack several to a frame. Every message comes out in
 * a Buffer of its own: DATA payloads are views of the socket's whole read, and what is decoded
 * from a message (views of it) may live long in a cache. Its own means an ArrayBuffer of exactly
 * its size: not a slice of Node's shared 8 KiB pool (where `Buffer.allocUnsafe` and
 * `Buffer.concat` put anything under 4 KiB), nor a view of a concatenation with the next
 * messages, either of which a watch event kept in the cache's event ring would pin (about 8 KiB
 * for a Lease renewal of 1 KiB).
 */
export class GrpcMessageCutter {
  /** The start of an incomplete message: views of chunks, copied when it completes. */
  private parts: Buffer[] = [];
  private held = 0;
  /** Prefix and message bytes of the incomplete message once its prefix is in; 0 before. */
  private need = 0;

  /** Takes the next chunk of the body; appends the messages it completes to `out`. Throws on a compressed message. */
  push(chunk: Buffer, out: Buffer[]): void {
    let data = chunk;
    if (this.held > 0) {
      this.parts.push(chunk);
      this.held += chunk.length;
      if (this.need === 0 && this.held >= 5) this.need = 5 + lengthOf(this.parts);
      if (this.need === 0 || this.held < this.need) return;
      // The message completes in this chunk: its bytes alone are copied, the rest is cut below.
      out.push(copyOut(this.parts, 5, this.need));
      data = chunk.subarray(chunk.length - (this.held - this.need));
      this.parts = [];
      this.held = 0;
      this.need = 0;
    }
    const n = data.length;
    let pos = 0;
    while (n - pos >= 5) {
      if (data[pos] !== 0) throw new Error('etcd sent a compressed gRPC message, which was not asked for');
      const end = pos + 5 + data.readUInt32BE(pos + 1);
      if (end > n) break;
      out.push(copyOut([data], pos + 5, end));
      pos = end;
    }
    if (pos < n) {
      const rest = data.subarray(pos);
      this.parts.push(rest);
      this.held = rest.length;
      this.need = rest.length >= 5 ? 5 + rest.readUInt32BE(1) : 0;
    }
  }
}

/** Bytes `from` .. `to` of the concatenation of `parts`, in a Buffer of their own (never pooled). */
function copyOut(parts: Buffer[], from: number, to: number): Buffer {
  const msg = Buffer.allocUnsafeSlow(to - from);
  let at = 0;
  for (const p of parts) {
    if (at + p.length > from && at < to) p.copy(msg, Math.max(0, at - from), Math.max(0, from - at), Math.min(p.length, to - at));
    at += p.length;
  }
  return msg;
}

/** The message length in a prefix that may be spread over several parts. */
function lengthOf(parts: Buffer[]): number {
  let length = 0;
  let i = 0;
  for (const p of parts) {
    for (let j = 0; j < p.length && i < 5; j++, i++) if (i > 0) length = length * 256 + p[j];
    if (i === 5) break;
  }
  return length;
}
