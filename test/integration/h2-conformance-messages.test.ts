/**
 * HTTP/2 conformance, HTTP messages (h2spec http2/8; RFC 9113 8.1-8.4): a malformed request is a
 * stream error, RST_STREAM PROTOCOL_ERROR (8.1.1), and is never served: no response on its stream,
 * and a ConfigMap create whose body does not match its content-length, or whose trailers are
 * malformed, creates nothing (checked with a GET: 404). The connection serves the next request,
 * whose header block leans on the dynamic table, so the server must have decoded the refused one.
 * A client's PUSH_PROMISE is a connection error (8.4).
 */
import { expect } from 'chai';
import { FRAME } from '../helpers/raw-h2';
import { configMapJson, FLAG, H2Conn, IMPL, JSON_TYPE, PATH, useConformanceServer } from '../helpers/h2-conformance';

const PROTOCOL_ERROR = 0x1;
type Fields = Array<[string, string]>;

describe(`HTTP/2 conformance: HTTP messages, h2spec http2/8 (--http2-server=${IMPL})`, function () {
  this.timeout(20_000);
  const suite = useConformanceServer();
  const open = suite.open.bind(suite);
  /** The refused create made nothing, even a moment later (a handler that got the body would have). */
  const notCreated = async (c: H2Conn, name: string) => {
    await c.settle(200);
    const r = await suite.server.t.get(`${PATH.configMaps}/${name}`);
    expect(r.status, `ConfigMap ${name} created; ${c.log()}`).to.equal(404);
  };
  /** A ConfigMap POST: HEADERS (with `extra`), then `body` in DATA frames of the sizes given, the last ending the stream unless `end` is false. */
  const create = async (c: H2Conn, name: string, opts: { extra?: Fields; splits?: number[]; end?: boolean; body?: Buffer } = {}) => {
    const s = await c.request('POST', PATH.configMaps, { end: false, extra: [JSON_TYPE, ...(opts.extra ?? [])] });
    const body = opts.body ?? configMapJson(name);
    const cuts = [0, ...(opts.splits ?? []), body.length];
    for (let i = 1; i < cuts.length; i++) {
      const last = i === cuts.length - 1;
      await c.send(FRAME.DATA, last && opts.end !== false ? FLAG.END_STREAM : 0, s, body.subarray(cuts[i - 1], cuts[i]));
    }
    return s;
  };


  describe('8.1 HTTP Request/Response Exchange, trailers', () => {
    it('http2/8.1.1 Sends a second HEADERS frame without the END_STREAM flag: RST_STREAM PROTOCOL_ERROR, nothing created', async () => {
      const c = await open();
      const s = await create(c, 'messages-8-1-1', { end: false });
      await c.headers(s, [['x-test', 'ok']], FLAG.END_HEADERS);
      await c.expectStreamError(s, PROTOCOL_ERROR);
      await notCreated(c, 'messages-8-1-1');
    });

    it('http2/8.1.2.1.3 Sends a HEADERS frame that contains a pseudo-header field as trailers: RST_STREAM PROTOCOL_ERROR, nothing created', async () => {
      // h2spec's trailers also lack END_STREAM (8.1.1 above); these end the stream, so the pseudo-header is the only fault.
      const c = await open();
      const s = await create(c, 'messages-8-1-2-1-3', { end: false });
      await c.headers(s, [[':method', 'POST']]);
      await c.expectStreamError(s, PROTOCOL_ERROR);
      await notCreated(c, 'messages-8-1-2-1-3');
    });
  });

  describe('8.1.2 HTTP Header Fields: malformed requests', () => {
    const common = (c: H2Conn) => c.fields('GET', PATH.healthz);
    const cases: Array<[string, string, (c: H2Conn) => Fields]> = [
      ['8.1.2.1', 'that contains the header field name in uppercase letters', (c) => [...common(c), ['X-TEST', 'ok']]],
      ['8.1.2.1.1', 'that contains a unknown pseudo-header field', (c) => [...common(c), [':test', 'ok']]],
      ['8.1.2.1.2', 'that contains the pseudo-header field defined for response', (c) => [...common(c), [':status', '200']]],
      ['8.1.2.1.4', 'that contains a pseudo-header field that appears in a header block after a regular header field', (c) => [['x-test', 'ok'], ...common(c)]],
      ['8.1.2.2.1', 'that contains the connection-specific header field', (c) => [...common(c), ['connection', 'keep-alive']]],
      ['8.1.2.2.2', 'that contains the TE header field with any value other than "trailers"', (c) => [...common(c), ['trailers', 'test'], ['te', 'trailers, deflate']]],
      ['8.1.2.3.1', 'with empty ":path" pseudo-header field', (c) => common(c).map(([k, v]): [string, string] => [k, k === ':path' ? '' : v])],
      ['8.1.2.3.2', 'that omits ":method" pseudo-header field', (c) => common(c).filter(([k]) => k !== ':method')],
      ['8.1.2.3.3', 'that omits ":scheme" pseudo-header field', (c) => common(c).filter(([k]) => k !== ':scheme')],
      ['8.1.2.3.4', 'that omits ":path" pseudo-header field', (c) => common(c).filter(([k]) => k !== ':path')],
      ['8.1.2.3.5', 'with duplicated ":method" pseudo-header field', (c) => [...common(c), [':method', 'GET']]],
      ['8.1.2.3.6', 'with duplicated ":scheme" pseudo-header field', (c) => [...common(c), [':scheme', 'https']]],
      ['8.1.2.3.7', 'with duplicated ":path" pseudo-header field', (c) => [...common(c), [':path', PATH.healthz]]],
      // RFC 9113 8.2.2: every connection-specific field, not only Connection.
      ...['keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'].map((name): [string, string, (c: H2Conn) => Fields] =>
        [`RFC 9113 8.2.2 (${name})`, `that contains the connection-specific header field ${name}`, (c) => [...common(c), [name, name === 'upgrade' ? 'h2c' : name === 'transfer-encoding' ? 'chunked' : 'timeout=5']]]),
    ];
    for (const [id, desc, fields] of cases) {
      it(`${id.startsWith('RFC') ? id : `http2/${id}`} Sends a HEADERS frame ${desc}: RST_STREAM PROTOCOL_ERROR, not served`, async () => {
        const c = await open();
        const s = c.streamId();
        await c.headers(s, fields(c));
        await c.expectStreamError(s, PROTOCOL_ERROR);
      });
    }

    it('RFC 9113 8.2.2: TE: trailers is allowed (served)', async () => {
      const c = await open();
      await c.expectOk(await c.request('GET', PATH.healthz, { extra: [['te', 'trailers']] }));
    });
  });

  describe('8.1.2.6 Malformed Requests and Responses: content-length', () => {
    it('http2/8.1.2.6.1 Sends a HEADERS frame with the "content-length" header field which does not equal the DATA frame payload length: RST_STREAM PROTOCOL_ERROR, nothing created', async () => {
      const c = await open();
      const s = await create(c, 'messages-8-1-2-6-1', { extra: [['content-length', '1']] });
      await c.expectStreamError(s, PROTOCOL_ERROR);
      await notCreated(c, 'messages-8-1-2-6-1');
    });

    it('http2/8.1.2.6.2 Sends a HEADERS frame with the "content-length" header field which does not equal the sum of the multiple DATA frames payload length: RST_STREAM PROTOCOL_ERROR, nothing created', async () => {
      const c = await open();
      const s = await create(c, 'messages-8-1-2-6-2', { extra: [['content-length', '1']], splits: [10] });
      await c.expectStreamError(s, PROTOCOL_ERROR);
      await notCreated(c, 'messages-8-1-2-6-2');
    });

    it('RFC 9113 8.1.1: a content-length larger than the DATA at END_STREAM: RST_STREAM PROTOCOL_ERROR, nothing created', async () => {
      const c = await open();
      const body = configMapJson('messages-short-body');
      const s = await create(c, 'messages-short-body', { extra: [['content-length', String(body.length + 1)]], splits: [10] });
      await c.expectStreamError(s, PROTOCOL_ERROR);
      await notCreated(c, 'messages-short-body');
    });

    it('RFC 9113 8.1.1: a content-length equal to the DATA received is served (201 Created)', async () => {
      const c = await open();
      const body = configMapJson('messages-exact-length');
      await c.expectCreated(await create(c, 'messages-exact-length', { extra: [['content-length', String(body.length)]], splits: [10] }), 'messages-exact-length');
    });
  });

  it('http2/8.2.1 Sends a PUSH_PROMISE frame: GOAWAY PROTOCOL_ERROR', async () => {
    const c = await open();
    const promised = Buffer.alloc(4);
    promised.writeUInt32BE(3);
    await c.send(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, Buffer.concat([promised, c.block(c.fields('GET', PATH.healthz))]));
    await c.expectConnectionError(PROTOCOL_ERROR, 0);
  });
});
