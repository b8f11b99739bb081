/**
 * The allocation bitmap of Kubernetes' allocator/bitmap.go: one bit per item of a range (bit i
 * set = offset i taken), kept as a big integer and stored as Go's big.Int.Bytes() (big-endian,
 * no leading zero bytes, empty when nothing is taken), so a RangeAllocation written here reads
 * the same in kube-apiserver and back. Dynamic allocation is the random scan with an offset
 * (KEP-3070/3668): a random free item of the upper band [offset, max) first, then of [0, offset),
 * which leaves the lower band for explicitly requested values.
 */

export class AllocationBitmap {
  constructor(readonly max: number, readonly offset: number, public bits: bigint = 0n) {}

  /** big.Int.SetBytes. */
  static fromBytes(max: number, offset: number, data: Buffer | Uint8Array): AllocationBitmap {
    const hex = Buffer.from(data).toString('hex');
    return new AllocationBitmap(max, offset, hex ? BigInt(`0x${hex}`) : 0n);
  }

  /** big.Int.Bytes. */
  toBytes(): Buffer {
    if (this.bits === 0n) return Buffer.alloc(0);
    let hex = this.bits.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    return Buffer.from(hex, 'hex');
  }

  has(i: number): boolean {
    return ((this.bits >> BigInt(i)) & 1n) === 1n;
  }

  /** Takes item i; false when it was taken already. */
  allocate(i: number): boolean {
    if (this.has(i)) return false;
    this.bits |= 1n << BigInt(i);
    return true;
  }

  release(i: number): void {
    this.bits &= ~(1n << BigInt(i));
  }

  /** The taken offsets, ascending. */
  taken(): number[] {
    const out: number[] = [];
    let v = this.bits;
    for (let i = 0; v > 0n; i++, v >>= 1n) if (v & 1n) out.push(i);
    return out;
  }

  count(): number {
    return this.taken().length;
  }

  /** randomScanStrategyWithOffset.AllocateBit: the offset taken, or undefined when full. */
  allocateNext(random: (n: number) => number = (n) => Math.floor(Math.random() * n)): number | undefined {
    if (this.count() >= this.max) return undefined;
    const upper = this.max - this.offset;
    const start = upper > 0 ? random(upper) : 0;
    for (let i = 0; i < upper; i++) {
      const at = this.offset + ((start + i) % upper);
      if (!this.has(at)) { this.allocate(at); return at; }
    }
    const lowStart = this.offset > 0 ? random(this.offset) : 0;
    for (let i = 0; i < this.offset; i++) {
      const at = (lowStart + i) % this.offset;
      if (!this.has(at)) { this.allocate(at); return at; }
    }
    return undefined;
  }
}
