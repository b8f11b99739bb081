/**
 * Cuts a gRPC response body into messages (a 5-byte prefix: compressed flag and length, then the
 * message), which DATA frames may split or pack several to a frame. Every message comes out in
 * a Buffer of its own: DATA payloads are views of the socket's whole read, and what is decoded
 * from a message (views of it) may live long in a cache.
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
    // A Buffer just concatenated belongs to its first message alone, which need not be copied again.
    let fresh = false;
    if (this.held > 0) {
      this.parts.push(chunk);
      this.held += chunk.length;
      if (this.need === 0 && this.held >= 5) this.need = 5 + lengthOf(this.parts);
      if (this.need === 0 || this.held < this.need) return;
      data = Buffer.concat(this.parts, this.held);
      fresh = true;
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
      if (fresh && pos === 0) {
        out.push(data.subarray(5, end));
      } else {
        const msg = Buffer.allocUnsafe(end - pos - 5);
        data.copy(msg, 0, pos + 5, end);
        out.push(msg);
      }
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
