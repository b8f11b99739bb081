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
 * Decodes `src[start, end)`. Throws on EOS in the data, or padding that is longer than 7 bits or
 * not the most significant bits of EOS (all ones), as RFC 7541 5.2 requires.
 */
export function huffmanDecode(src: Buffer, start: number, end: number): string {
  let out = '';
  let node = 0;
  // Bits read since the last complete symbol, and whether they were all ones (padding).
  let pending = 0;
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = src[i];
    for (let bit = 7; bit >= 0; bit--) {
      const b = (byte >> bit) & 1;
      const next = TREE[2 * node + b];
      pending++;
      allOnes &&= b === 1;
      if (next < 0) {
        const symbol = -next - 1;
        if (symbol === EOS) throw new Error('Huffman-coded string contains EOS');
        out += String.fromCharCode(symbol);
        node = 0;
        pending = 0;
        allOnes = true;
      } else {
        node = next;
      }
    }
  }
  if (pending > 7 || !allOnes) throw new Error('invalid Huffman padding');
  return out;
}
