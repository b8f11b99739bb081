/**
 * HTTP/2 conformance, HPACK decoding errors (h2spec hpack 2.3.3, 4.2, 5.2, 6.1, 6.3; RFC 7541,
 * RFC 9113 4.3): a header block the server cannot decode leaves its HPACK state unknown, so every
 * decoding error ends the connection with GOAWAY COMPRESSION_ERROR. The blocks are a request the
 * test-side encoder wrote (test/helpers/hpack-encoder.ts) followed or preceded by the broken
 * representation, so only that one is wrong.
 *
 * A header list over SETTINGS_MAX_HEADER_LIST_SIZE is not a decoding error: the stream is reset
 * (ENHANCE_YOUR_CALM) and the connection lives on, which it can only do if the server decoded the
 * whole block anyway: the next request leans on an entry the refused block added last.
 */
import { expect } from 'chai';
import { H2Conn, IMPL, PATH, useConformanceServer } from '../helpers/h2-conformance';
import { hpackInteger, hpackString } from '../helpers/hpack-encoder';

const COMPRESSION_ERROR = 0x9;
const ENHANCE_YOUR_CALM = 0xb;

describe(`HTTP/2 conformance: HPACK, h2spec hpack (--http2-server=${IMPL})`, function () {
  this.timeout(20_000);
  const suite = useConformanceServer();
  const open = suite.open.bind(suite);
  const request = (c: H2Conn) => c.block(c.fields('GET', PATH.healthz));
  /** The first index past the static table (61) and the entries the encoder has added. */
  const pastTheEnd = (c: H2Conn) => 62 + c.hpack.dynamicCount;


  const cases: Array<[string, string, (c: H2Conn) => Buffer]> = [
    ['hpack/2.3.3.1', 'a indexed header field representation with invalid index',
      (c) => { const r = request(c); return Buffer.concat([r, hpackInteger(pastTheEnd(c), 7, 0x80)]); }],
    ['hpack/2.3.3.2', 'a literal header field representation with invalid index',
      (c) => { const r = request(c); return Buffer.concat([r, hpackInteger(pastTheEnd(c), 6, 0x40), hpackString('')]); }],
    ['hpack/4.2.1', 'a dynamic table size update at the end of header block', (c) => Buffer.concat([request(c), hpackInteger(1, 5, 0x20)])],
    ['hpack/5.2.1', 'a Huffman-encoded string literal representation with padding longer than 7 bits',
      (c) => Buffer.concat([request(c), Buffer.from([0x00]), hpackString('x-test', true), hpackString('test', true, { extraPadding: 1 })])],
    ['hpack/5.2.2', 'a Huffman-encoded string literal representation padded by zero',
      (c) => Buffer.concat([request(c), Buffer.from([0x00]), hpackString('x-test', true), hpackString('test', true, { zeroPadding: true })])],
    ['hpack/5.2.3', 'a Huffman-encoded string literal representation containing the EOS symbol',
      (c) => Buffer.concat([request(c), Buffer.from([0x00]), hpackString('x-test', true), hpackString('test', true, { eosAt: 3 })])],
    ['hpack/6.1.1', 'a indexed header field representation with index 0', (c) => Buffer.concat([request(c), Buffer.from([0x80])])],
    ['hpack/6.3.1', 'a dynamic table size update larger than the value of SETTINGS_HEADER_TABLE_SIZE',
      (c) => Buffer.concat([hpackInteger((c.raw.serverSettings.get(0x1) ?? 4096) + 1, 5, 0x20), request(c)])],
    // Beyond h2spec: lengths and integers that do not fit the block or any table.
    ['RFC 7541 5.2', 'a string literal longer than what is left of the block',
      (c) => Buffer.concat([request(c), Buffer.from([0x00]), hpackString('x-test'), hpackInteger(100, 7), Buffer.from('short')])],
    ['RFC 7541 5.1', 'an integer of 2^35 (an index no table has)', (c) => Buffer.concat([request(c), Buffer.from([0xff, 0x81, 0x80, 0x80, 0x80, 0x80, 0x01])])],
  ];
  for (const [id, desc, block] of cases) {
    it(`${id} Sends ${desc}: GOAWAY COMPRESSION_ERROR`, async () => {
      const c = await open();
      await c.headers(1, block(c));
      await c.expectConnectionError(COMPRESSION_ERROR, 0);
    });
  }

  it('RFC 9113 6.5.2: a header list over SETTINGS_MAX_HEADER_LIST_SIZE: RST_STREAM ENHANCE_YOUR_CALM, the block still decoded (the table in step)', async () => {
    const c = await open();
    const limit = c.raw.serverSettings.get(0x6) ?? 0;
    expect(limit, 'SETTINGS_MAX_HEADER_LIST_SIZE').to.be.above(0);
    // A 4,037-byte entry, then its index again and again (1 octet each): a list of 1 MiB and more from a 4 KB block.
    const parts = [request(c), c.hpack.literal('x-big', 'a'.repeat(4000))];
    for (let i = 0; i < Math.ceil(limit / 4037); i++) parts.push(c.hpack.indexed(62));
    parts.push(c.hpack.literal('audit-id', 'hpack-in-step'));
    const block = Buffer.concat(parts);
    await c.headers(1, block);
    await c.expectStreamError(1, ENHANCE_YOUR_CALM);
    // The Audit-ID goes by its index now; the answer echoes what the server's table holds there.
    const s = await c.request('GET', PATH.healthz, { extra: [['audit-id', 'hpack-in-step']] });
    await c.expectOk(s);
    expect(c.responses(s)[0]['audit-id'], c.log()).to.equal('hpack-in-step');
  });
});
