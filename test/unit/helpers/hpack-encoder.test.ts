/**
 * The test-side HPACK encoder (test/helpers/hpack-encoder.ts) against RFC 7541 Appendix C: its
 * blocks must be the RFC's bytes, and its table must evolve as the RFC's does, or the conformance
 * suite's requests would not mean what they say. The broken Huffman strings are h2spec's bytes.
 */
import { expect } from 'chai';
import { HpackEncoder, hpackInteger, huffmanEncode } from '../../helpers/hpack-encoder';
import { HpackDecoder } from '../../../lib/http2/hpack';
import { huffmanDecode } from '../../../lib/http2/huffman';

const hex = (s: string) => s.replace(/\s+/g, '');

describe('HpackEncoder (test helper)', () => {
  it('RFC 7541 C.1: integers with a 5-bit prefix and an 8-bit prefix', () => {
    expect(hpackInteger(10, 5).toString('hex')).to.equal('0a');
    expect(hpackInteger(1337, 5).toString('hex')).to.equal('1f9a0a');
    expect(hpackInteger(42, 8).toString('hex')).to.equal('2a');
  });

  it('RFC 7541 C.2: one representation of each kind', () => {
    const e = new HpackEncoder();
    expect(e.literal('custom-key', 'custom-header').toString('hex')).to.equal(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
    expect(e.tableSize).to.equal(55);
    expect(new HpackEncoder().literal(4, '/sample/path', { indexing: 'without' }).toString('hex')).to.equal(hex('040c 2f73 616d 706c 652f 7061 7468'));
    expect(new HpackEncoder().literal('password', 'secret', { indexing: 'never' }).toString('hex')).to.equal(hex('1008 7061 7373 776f 7264 0673 6563 7265 74'));
    const plain = new HpackEncoder();
    expect(plain.indexed(2).toString('hex')).to.equal('82');
    expect(plain.tableSize).to.equal(0);
  });

  const requests: Array<Array<[string, string]>> = [
    [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']],
    [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']],
    [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']],
  ];
  const responses: Array<Array<[string, string]>> = [
    [[':status', '302'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']],
    [[':status', '307'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']],
    [[':status', '200'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'], ['location', 'https://www.example.com'],
      ['content-encoding', 'gzip'], ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1']],
  ];
  const series: Array<{ name: string; huffman: boolean; tableSize: number; lists: typeof requests; blocks: string[]; sizes: number[] }> = [
    { name: 'C.3 requests', huffman: false, tableSize: 4096, lists: requests, sizes: [57, 110, 164], blocks: [
      '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '8286 84be 5808 6e6f 2d63 6163 6865',
      '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
    ] },
    { name: 'C.4 requests, Huffman-coded', huffman: true, tableSize: 4096, lists: requests, sizes: [57, 110, 164], blocks: [
      '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
      '8286 84be 5886 a8eb 1064 9cbf',
      '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
    ] },
    { name: 'C.5 responses in a 256-byte table (evictions)', huffman: false, tableSize: 256, lists: responses, sizes: [222, 222, 215], blocks: [
      `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e
       1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`,
      '4803 3330 37c1 c0bf',
      `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d
       4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572
       7369 6f6e 3d31`,
    ] },
    { name: 'C.6 responses in a 256-byte table, Huffman-coded', huffman: true, tableSize: 256, lists: responses, sizes: [222, 222, 215], blocks: [
      `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b
       97c8 e9ae 82ae 43d3`,
      '4883 640e ffc1 c0bf',
      `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf
       cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
    ] },
  ];
  for (const s of series) {
    it(`RFC 7541 ${s.name}: the RFC's bytes, and the table's size after each block`, () => {
      const e = new HpackEncoder(s.tableSize);
      const d = new HpackDecoder(s.tableSize);
      s.lists.forEach((fields, i) => {
        const block = e.encode(fields, { huffman: s.huffman });
        expect(block.toString('hex'), `block ${i + 1}`).to.equal(hex(s.blocks[i]));
        expect(e.tableSize, `table after block ${i + 1}`).to.equal(s.sizes[i]);
        expect(d.fields(block)).to.deep.equal(fields.flat());
      });
    });
  }

  it('writes h2spec\'s broken Huffman strings of "test", which the RFC\'s decoding refuses', () => {
    expect(huffmanEncode('test').toString('hex')).to.equal('49509f');
    const broken: Array<[string, Parameters<typeof huffmanEncode>[1], string]> = [
      ['padding over 7 bits', { extraPadding: 1 }, '49509fff'],
      ['padding of 0-bits', { zeroPadding: true }, '495090'],
      ['EOS inside', { eosAt: 3 }, '4951fffffffa7f'],
    ];
    for (const [what, faults, bytes] of broken) {
      const b = huffmanEncode('test', faults);
      expect(b.toString('hex'), what).to.equal(bytes);
      expect(() => huffmanDecode(b, 0, b.length), what).to.throw();
    }
  });

  it('keeps its table in step with a decoder through every representation and size updates', () => {
    const e = new HpackEncoder();
    const d = new HpackDecoder();
    const blocks = [
      Buffer.concat([e.sizeUpdate(128), e.sizeUpdate(4096), e.literal(58, 'h2spec', { huffman: true }), e.literal('x-test', 'h2spec', { indexing: 'never', huffman: true })]),
      Buffer.concat([e.indexed(62), e.literal(62, 'again', { indexing: 'without' }), e.literal('x-new', 'v')]),
      // 40 bytes: the table keeps only the newest entry (x-new, 38 bytes).
      Buffer.concat([e.sizeUpdate(40), e.indexed(62)]),
    ];
    expect(d.fields(blocks[0])).to.deep.equal(['user-agent', 'h2spec', 'x-test', 'h2spec']);
    expect(d.fields(blocks[1])).to.deep.equal(['user-agent', 'h2spec', 'user-agent', 'again', 'x-new', 'v']);
    expect(d.fields(blocks[2])).to.deep.equal(['x-new', 'v']);
    expect([e.dynamicCount, e.tableSize, d.tableSize]).to.deep.equal([1, 38, 38]);
    expect(() => e.indexed(63)).to.throw(/not in the table/);
  });
});
