/**
 * HPACK decoding against the examples of RFC 7541 Appendix C (hex dumps and the header lists they
 * encode), plus the error cases of sections 4-6, and the encoder's blocks read back.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { HpackDecoder, HpackError, encodeHeaderBlock } from '../../../lib/http2/hpack';
import { huffmanCodes, huffmanDecode } from '../../../lib/http2/huffman';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('HPACK', () => {
  describe('RFC 7541 C.2: one field, a new decoder each', () => {
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['C.2.1 literal with indexing', '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572', { 'custom-key': 'custom-header' }, 55],
      ['C.2.2 literal without indexing', '040c 2f73 616d 706c 652f 7061 7468', { ':path': '/sample/path' }, 0],
      ['C.2.3 literal never indexed', '1008 7061 7373 776f 7264 0673 6563 7265 74', { password: 'secret' }, 0],
      ['C.2.4 indexed', '82', { ':method': 'GET' }, 0],
    ];
    for (const [name, dump, fields, size] of cases) {
      it(name, () => {
        const d = new HpackDecoder();
        expect(d.decode(hex(dump))).to.deep.equal(fields);
        expect(d.tableSize).to.equal(size);
      });
    }
  });

  const requests = [
    { ':method': 'GET', ':scheme': 'http', ':path': '/', ':authority': 'www.example.com' },
    { ':method': 'GET', ':scheme': 'http', ':path': '/', ':authority': 'www.example.com', 'cache-control': 'no-cache' },
    { ':method': 'GET', ':scheme': 'https', ':path': '/index.html', ':authority': 'www.example.com', 'custom-key': 'custom-value' },
  ];

  const series: Array<[string, string[]]> = [
    ['C.3: three requests on one decoder, without Huffman coding', [
      '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '8286 84be 5808 6e6f 2d63 6163 6865',
      '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
    ]],
    ['C.4: the same requests Huffman-coded', [
      '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
      '8286 84be 5886 a8eb 1064 9cbf',
      '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
    ]],
  ];
  for (const [name, dumps] of series) {
    it(`RFC 7541 ${name}`, () => {
      const d = new HpackDecoder();
      dumps.forEach((dump, i) => expect(d.decode(hex(dump)), `request ${i + 1}`).to.deep.equal(requests[i]));
      expect(d.tableSize).to.equal(164);
    });
  }

  it('RFC 7541 C.6.1: a Huffman-coded response into a 256-byte table', () => {
    const d = new HpackDecoder(256);
    const block = hex(`4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
      2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`);
    expect(d.decode(block)).to.deep.equal({
      ':status': '302', 'cache-control': 'private', date: 'Mon, 21 Oct 2013 20:13:21 GMT', location: 'https://www.example.com',
    });
    expect(d.tableSize).to.equal(222);
    // A fourth entry does not fit beside the first: the oldest (:status 302, 42 bytes) is evicted.
    d.decode(hex('4003 6162 6301 78'));
    expect(d.tableSize).to.equal(222 - 42 + 36);
  });

  it('decodes the Huffman-coded strings of the RFC\'s examples', () => {
    const strings: Array<[string, string]> = [
      ['f1e3 c2e5 f23a 6ba0 ab90 f4ff', 'www.example.com'],
      ['a8eb 1064 9cbf', 'no-cache'],
      ['25a8 49e9 5ba9 7d7f', 'custom-key'],
      ['25a8 49e9 5bb8 e8b4 bf', 'custom-value'],
      ['6402', '302'],
      ['aec3 771a 4b', 'private'],
      ['d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3', 'https://www.example.com'],
      ['9bd9 ab', 'gzip'],
    ];
    for (const [dump, text] of strings) {
      const b = hex(dump);
      expect(huffmanDecode(b, 0, b.length)).to.equal(text);
    }
  });

  it('the code is complete and prefix-free, with the RFC\'s codes for a few symbols and EOS', () => {
    const codes = huffmanCodes();
    expect(codes).to.have.length(257);
    expect(codes.reduce((sum, c) => sum + 2 ** -c.length, 0)).to.equal(1);
    const known: Array<[number, number, number]> = [[0, 0x1ff8, 13], [32, 0x14, 6], [48, 0x0, 5], [127, 0xffffffc, 28], [255, 0x3ffffee, 26], [256, 0x3fffffff, 30]];
    for (const [symbol, code, length] of known) expect(codes[symbol], `symbol ${symbol}`).to.deep.equal({ code, length });
  });

  it('refuses padding over 7 bits, padding that is not all ones, and EOS in the data', () => {
    for (const dump of ['ff', 'a8eb 1064 9cbf ff', 'a8eb 1064 9cbe', 'ffff fffc']) {
      const b = hex(dump);
      expect(() => huffmanDecode(b, 0, b.length), dump).to.throw();
    }
    const d = new HpackDecoder();
    expect(() => d.decode(hex('0484 ffff ffff'))).to.throw(HpackError, /EOS/);
  });

  describe('the four-bits-at-a-time decoder against a bit-by-bit one', () => {
    const codes = huffmanCodes();
    const bySymbolBits = new Map(codes.map((c, symbol) => [c.code.toString(2).padStart(c.length, '0'), symbol]));
    /** Bit by bit from the code table: the string, or 'error' for EOS or bad padding. */
    const reference = (b: Buffer): string => {
      let pending = '';
      let out = '';
      for (const byte of b) {
        for (const bit of byte.toString(2).padStart(8, '0')) {
          pending += bit;
          const symbol = bySymbolBits.get(pending);
          if (symbol === undefined) continue;
          if (symbol === 256) return 'error';
          out += String.fromCharCode(symbol);
          pending = '';
        }
      }
      return pending.length > 7 || /0/.test(pending) ? 'error' : out;
    };
    const encode = (bytes: Uint8Array): Buffer => {
      let bits = '';
      for (const s of bytes) bits += codes[s].code.toString(2).padStart(codes[s].length, '0');
      bits = bits.padEnd(Math.ceil(bits.length / 8) * 8, '1');
      return Buffer.from((bits.match(/.{8}/g) ?? []).map((x) => parseInt(x, 2)));
    };
    const decoded = (b: Buffer) => { try { return huffmanDecode(b, 0, b.length); } catch { return 'error'; } };

    it('agrees on any bytes, strings or errors', () => {
      fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const b = Buffer.from(bytes);
        expect(decoded(b)).to.equal(reference(b));
      }), { numRuns: 3000 });
    });

    it('decodes what was encoded: every symbol, and strings longer than its scratch buffer', () => {
      fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(decoded(encode(bytes))).to.equal(Buffer.from(bytes).toString('latin1'));
      }), { numRuns: 1000 });
      const all = Uint8Array.from({ length: 256 }, (_, i) => i);
      expect(decoded(encode(all))).to.equal(Buffer.from(all).toString('latin1'));
      const long = Buffer.from('eyJhbGciOiJSUzI1NiJ9.'.repeat(2000));
      expect(decoded(encode(long))).to.equal(long.toString('latin1'));
      // A slice in the middle of a larger buffer.
      const inner = encode(Buffer.from('custom-value'));
      const framed = Buffer.concat([Buffer.from([0, 1, 2]), inner, Buffer.from([0xff])]);
      expect(huffmanDecode(framed, 3, 3 + inner.length)).to.equal('custom-value');
    });
  });

  it('a table size update evicts; one above the allowed size, or after a field, is an error', () => {
    const d = new HpackDecoder();
    d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
    expect(d.tableSize).to.equal(55);
    // Size update to 0 (001 00000): everything goes; then back to 4096 (3f e1 1f).
    expect(d.decode(hex('20 3fe1 1f 82'))).to.deep.equal({ ':method': 'GET' });
    expect(d.tableSize).to.equal(0);
    expect(() => d.decode(hex('be'))).to.throw(HpackError, /beyond the table/);
    expect(() => d.decode(hex('3fe2 1f'))).to.throw(HpackError, /over the 4096 allowed/);
    expect(() => d.decode(hex('82 20'))).to.throw(HpackError, /after a header field/);
  });

  it('truncated blocks and index 0 are errors', () => {
    for (const dump of ['40', '400a 6375', '7f', '80', '0f']) {
      expect(() => new HpackDecoder().decode(hex(dump)), dump).to.throw(HpackError);
    }
  });

  it('a block decoded before and after a table change reads the table as it is now', () => {
    const d = new HpackDecoder();
    d.decode(hex('4003 6162 6301 78')); // abc: x
    expect(d.decode(hex('be'))).to.deep.equal({ abc: 'x' });
    expect(d.decode(hex('be'))).to.deep.equal({ abc: 'x' });
    d.decode(hex('4003 6465 6601 79')); // def: y, now index 62
    expect(d.decode(hex('be'))).to.deep.equal({ def: 'y' });
    expect(d.decode(hex('bf'))).to.deep.equal({ abc: 'x' });
  });

  it('a name sent twice has its values joined', () => {
    expect(new HpackDecoder().decode(hex('0003 6162 6301 78 0003 6162 6301 79'))).to.deep.equal({ abc: 'x, y' });
  });

  it('the encoder\'s blocks read back as sent, with static indexes where they match exactly', () => {
    const fields: Array<[string, string]> = [
      [':method', 'POST'], [':scheme', 'http'], [':path', '/etcdserverpb.KV/Txn'], [':authority', '127.0.0.1:2379'],
      ['content-type', 'application/grpc'], ['te', 'trailers'], ['grpc-timeout', '3000m'], ['x-long', 'v'.repeat(300)],
    ];
    const block = encodeHeaderBlock(fields);
    expect(block[0]).to.equal(0x83);
    expect(block[1]).to.equal(0x86);
    const d = new HpackDecoder();
    expect(d.decode(block)).to.deep.equal(Object.fromEntries(fields));
    expect(d.tableSize, 'the peer\'s table is not touched').to.equal(0);
  });
});

describe('HPACK decoding within a header-list limit', () => {
  /** A literal with incremental indexing and a new name (RFC 7541 6.2.1), unencoded. */
  const indexed = (name: string, value: string) => Buffer.concat([Buffer.from([0x40, name.length]), Buffer.from(name),
    Buffer.from(value.length < 127 ? [value.length] : [0x7f, ...multiByte(value.length - 127)]), Buffer.from(value)]);
  const multiByte = (v: number) => { const out: number[] = []; while (v >= 128) { out.push((v % 128) | 0x80); v = Math.floor(v / 128); } out.push(v); return out; };

  it('stops collecting past the limit (an HPACK bomb costs its own bytes), and keeps the table in step', () => {
    const d = new HpackDecoder();
    // One 4000-byte entry, then 100,000 references to it (index 62): 400 MB were it expanded.
    expect(d.fieldsWithin(indexed('x-big', 'v'.repeat(4000)), 1 << 20)).to.have.length(2);
    const bomb = Buffer.alloc(100_000, 0xbe);
    expect(d.fieldsWithin(bomb, 1 << 20)).to.equal(undefined);
    // An entry inserted after the limit was passed is still in the table for the next block.
    const over = Buffer.concat([Buffer.alloc(300, 0xbe), indexed('x-late', 'later')]);
    expect(d.fieldsWithin(over, 1 << 20)).to.equal(undefined);
    expect(d.fieldsWithin(Buffer.from([0xbe]), 1 << 20)).to.deep.equal(['x-late', 'later']);
    expect(d.fieldsWithin(Buffer.from([0xbf]), 1 << 20)).to.deep.equal(['x-big', 'v'.repeat(4000)]);
  });

  it('a list exactly at the limit is collected; one byte over is not', () => {
    const block = Buffer.concat([Buffer.from([0x00, 3]), Buffer.from('x-a'), Buffer.from([5]), Buffer.from('hello')]);
    expect(new HpackDecoder().fieldsWithin(block, 3 + 5 + 32)).to.deep.equal(['x-a', 'hello']);
    expect(new HpackDecoder().fieldsWithin(block, 3 + 5 + 31)).to.equal(undefined);
  });

  it('a malformed block past the limit is still an error (COMPRESSION_ERROR for the session)', () => {
    const d = new HpackDecoder();
    expect(() => d.fieldsWithin(Buffer.concat([Buffer.alloc(10, 0x82), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])]), 10)).to.throw(HpackError);
  });
});
