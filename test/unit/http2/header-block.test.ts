/**
 * The response header blocks of the server's own HTTP/2 side (lib/http2/header-block.ts),
 * decoded with an HPACK decoder: every field comes back as given, in order, whatever path it
 * took (a static pair, a static name, a new name; kept bytes or encoded each time; values long
 * enough for multi-byte length prefixes), and the block never touches the peer's table.
 */
import { expect } from 'chai';
import { responseHeaderBlock } from '../../../lib/http2/header-block';
import { HpackDecoder } from '../../../lib/http2/hpack';

describe('HTTP/2 response header blocks', () => {
  const decode = (block: Buffer, decoder = new HpackDecoder()) => {
    const fields = decoder.fields(block);
    return Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]);
  };

  it('round-trips :status and every header, arrays as one field per value', () => {
    const headers = {
      'content-type': 'application/json',
      'content-length': 1234,
      'audit-id': '0f6e4c1e-1b7e-4a7b-9d3c-3a2f1e0d9c8b',
      'cache-control': 'no-cache, private',
      'x-kubernetes-pf-flowschema-uid': '',
      warning: ['299 - "first"', '299 - "second"'],
      'accept-encoding': 'gzip, deflate',
      vary: 'Accept',
    };
    for (const status of [200, 201, 404, 500, 503]) {
      for (let round = 0; round < 2; round++) {
        expect(decode(responseHeaderBlock(status, headers))).to.deep.equal([
          [':status', String(status)],
          ['content-type', 'application/json'], ['cache-control', 'no-cache, private'], ['x-kubernetes-pf-flowschema-uid', ''],
          ['warning', '299 - "first"'], ['warning', '299 - "second"'], ['accept-encoding', 'gzip, deflate'], ['vary', 'Accept'],
          // Fields that vary per response come after the kept ones.
          ['content-length', '1234'], ['audit-id', '0f6e4c1e-1b7e-4a7b-9d3c-3a2f1e0d9c8b'],
        ]);
      }
    }
  });

  it('uses static indexes: :status 200 is one byte, and a known name is not spelled out', () => {
    expect([...responseHeaderBlock(200, {})]).to.deep.equal([0x88]);
    const block = responseHeaderBlock(204, { 'content-type': 'text/plain' });
    expect(block.includes(Buffer.from('content-type'))).to.equal(false);
    expect(decode(block)).to.deep.equal([[':status', '204'], ['content-type', 'text/plain']]);
  });

  it('encodes long names and values (multi-byte length prefixes) and skips undefined headers', () => {
    const long = 'v'.repeat(70_000);
    const name = `x-${'n'.repeat(300)}`;
    expect(decode(responseHeaderBlock(200, { [name]: long, removed: undefined, short: 'ok' }))).to.deep.equal([
      [':status', '200'], ['short', 'ok'], [name, long],
    ]);
  });

  it('leaves the decoder\'s dynamic table empty (no indexing on the wire)', () => {
    const decoder = new HpackDecoder();
    decode(responseHeaderBlock(201, { 'content-type': 'application/json', 'x-one': 'a', location: '/x' }), decoder);
    expect(decoder.tableSize).to.equal(0);
  });
});
