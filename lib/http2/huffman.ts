/**
 * HPACK's Huffman code (RFC 7541 Appendix B), decoding only: this client sends its few header
 * strings unencoded, and etcd (grpc-go) Huffman-codes what it sends back when that is shorter.
 *
 * The code is canonical (codes of one length are consecutive, in symbol order, and each length
 * continues where the shorter one ended), so the table below is the code lengths alone; the
 * codes follow from them. Symbol 256 is EOS, which must never appear in a string.
 */

/** Code length in bits of symbols 0..255 and EOS (256), as listed in RFC 7541 Appendix B. */
const LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];

export const EOS = 256;

/** The canonical code of each symbol (codes are at most 30 bits: plain numbers suffice). */
export function huffmanCodes(): { code: number; length: number }[] {
  const symbols = LENGTHS.map((_, s) => s).sort((a, b) => LENGTHS[a] - LENGTHS[b] || a - b);
  const out: { code: number; length: number }[] = [];
  let code = 0;
  let previous = LENGTHS[symbols[0]];
  symbols.forEach((s, i) => {
    if (i > 0) code = (code + 1) * 2 ** (LENGTHS[s] - previous);
    previous = LENGTHS[s];
    out[s] = { code, length: LENGTHS[s] };
  });
  return out;
}

/**
 * The decoding tree, flattened: node n's children are TREE[2n] (bit 0) and TREE[2n + 1] (bit 1);
 * a positive entry is the next node, a negative one is a leaf, -(symbol + 1).
 */
const TREE = (() => {
  const tree: number[] = [0, 0];
  let nodes = 1;
  huffmanCodes().forEach(({ code, length }, symbol) => {
    let node = 0;
    for (let bit = length - 1; bit > 0; bit--) {
      const slot = 2 * node + ((code / 2 ** bit) & 1);
      if (tree[slot] === 0) {
        tree[slot] = nodes++;
        tree.push(0, 0);
      }
      node = tree[slot];
    }
    tree[2 * node + (code & 1)] = -(symbol + 1);
  });
  return Int32Array.from(tree);
})();

/**
 * The tree as a machine that reads four bits at a time (the shortest code is five bits, so a
 * nibble completes at most one symbol). For internal node n and nibble v, STEP[16n + v] holds
 * the node reached (bits 0-15), the symbol completed plus one (bits 16-24, 0 for none), and
 * FAILED when the nibble completes EOS. ACCEPT[n]: the string may end at node n, that is, the
 * bits read since the last symbol are at most seven and all ones (RFC 7541 5.2).
 */
const FAILED = 1 << 25;
const { STEP, ACCEPT } = (() => {
  const count = TREE.length / 2;
  const step = new Int32Array(count * 16);
  const accept = new Uint8Array(count);
  // Depth and all-ones-ness of each internal node, from the root down (children have larger ids).
  const depth = new Int32Array(count);
  const ones = new Uint8Array(count);
  ones[0] = 1;
  for (let n = 0; n < count; n++) {
    for (let b = 0; b < 2; b++) {
      const child = TREE[2 * n + b];
      if (child > 0) {
        depth[child] = depth[n] + 1;
        ones[child] = ones[n] && b === 1 ? 1 : 0;
      }
    }
    accept[n] = depth[n] <= 7 && ones[n] ? 1 : 0;
  }
  for (let n = 0; n < count; n++) {
    for (let v = 0; v < 16; v++) {
      let node = n;
      let emitted = 0;
      let failed = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const next = TREE[2 * node + ((v >> bit) & 1)];
        if (next < 0) {
          const symbol = -next - 1;
          if (symbol === EOS) failed = FAILED;
          emitted = symbol + 1;
          node = 0;
        } else {
          node = next;
        }
      }
      step[16 * n + v] = node | (emitted << 16) | failed;
    }
  }
  return { STEP: step, ACCEPT: accept };
})();

/** Output bytes of the decode in progress (decoding is synchronous: one scratch buffer serves all). */
const scratch = Buffer.allocUnsafe(16 * 1024);

/**
 * Decodes `src[start, end)`. Throws on EOS in the data, or padding that is longer than 7 bits or
 * not the most significant bits of EOS (all ones), as RFC 7541 5.2 requires.
 */
export function huffmanDecode(src: Buffer, start: number, end: number): string {
  // Each byte completes at most two symbols (five bits is the shortest code).
  const most = 2 * (end - start);
  // A longer string (headers may be large) gets a buffer of its own, not kept.
  const out = most <= scratch.length ? scratch : Buffer.allocUnsafe(most);
  let n = 0;
  let node = 0;
  for (let i = start; i < end; i++) {
    const byte = src[i];
    let e = STEP[16 * node + (byte >> 4)];
    if (e & FAILED) throw new Error('Huffman-coded string contains EOS');
    if (e >> 16) out[n++] = (e >> 16) - 1;
    e = STEP[16 * (e & 0xffff) + (byte & 15)];
    if (e & FAILED) throw new Error('Huffman-coded string contains EOS');
    if (e >> 16) out[n++] = (e >> 16) - 1;
    node = e & 0xffff;
  }
  if (!ACCEPT[node]) throw new Error('invalid Huffman padding');
  return out.toString('latin1', 0, n);
}
