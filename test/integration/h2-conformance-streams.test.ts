/**
 * HTTP/2 conformance, stream states and identifiers (h2spec http2/5.1-5.3; RFC 9113 5.1-5.3):
 * raw frames on streams kept deterministically idle, open (a POST whose body is not sent yet),
 * half-closed (remote) (a watch), or closed (by both END_STREAMs, by the client's RST_STREAM, or
 * by the server's), each asserting the exact frame and code RFC 9113 gives:
 *  - DATA on a half-closed (remote) or closed stream: RST_STREAM STREAM_CLOSED (6.1), and HEADERS
 *    on a half-closed (remote) stream likewise (5.1); HEADERS on a closed stream: GOAWAY
 *    STREAM_CLOSED; CONTINUATION out of a header block: GOAWAY PROTOCOL_ERROR (6.10);
 *  - frames on a stream the server itself reset or finished early are ignored (5.1), their HPACK
 *    blocks still decoded;
 *  - anything but HEADERS and PRIORITY on an idle stream, even ids, ids going down: GOAWAY
 *    PROTOCOL_ERROR; a stream past SETTINGS_MAX_CONCURRENT_STREAMS: RST_STREAM REFUSED_STREAM
 *    (5.1.2, and 8.7: the client may retry it); a stream depending on itself: RST_STREAM
 *    PROTOCOL_ERROR.
 */
import { expect } from 'chai';
import { FRAME, frame } from '../helpers/raw-h2';
import { configMapJson, FLAG, H2Conn, IMPL, JSON_TYPE, PATH, priority, settings, u32, useConformanceServer, WHOLE } from '../helpers/h2-conformance';

const E = { PROTOCOL_ERROR: 0x1, STREAM_CLOSED: 0x5, REFUSED_STREAM: 0x7, CANCEL: 0x8 } as const;

describe(`HTTP/2 conformance: stream states and identifiers, h2spec http2/5.1-5.3 (--http2-server=${IMPL})`, function () {
  this.timeout(30_000);
  const suite = useConformanceServer();
  const open = suite.open.bind(suite);
  /** An open stream: a ConfigMap POST whose body has not been sent. */
  const post = (c: H2Conn) => c.request('POST', PATH.configMaps, { end: false, extra: [JSON_TYPE] });
  /** A closed stream: a GET answered in full, END_STREAM both ways. */
  const closed = async (c: H2Conn) => {
    const s = await c.request('GET', PATH.healthz);
    await c.expectOk(s);
    return s;
  };
  const test = Buffer.from('test');


  describe('5.1 Stream States', () => {
    it('http2/5.1.1 idle: Sends a DATA frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.send(FRAME.DATA, FLAG.END_STREAM, 1, test);
      await c.expectConnectionError(E.PROTOCOL_ERROR, 0);
    });

    it('http2/5.1.2 idle: Sends a RST_STREAM frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.send(FRAME.RST_STREAM, 0, 1, u32(E.CANCEL));
      await c.expectConnectionError(E.PROTOCOL_ERROR, 0);
    });

    it('http2/5.1.3 idle: Sends a WINDOW_UPDATE frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.send(FRAME.WINDOW_UPDATE, 0, 1, u32(100));
      await c.expectConnectionError(E.PROTOCOL_ERROR, 0);
    });

    it('http2/5.1.4 idle: Sends a CONTINUATION frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.send(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, c.block(c.fields('GET', PATH.healthz)));
      await c.expectConnectionError(E.PROTOCOL_ERROR, 0);
    });

    it('http2/5.1.5 half closed (remote): Sends a DATA frame: RST_STREAM STREAM_CLOSED', async () => {
      const c = await open();
      const s = await c.watch();
      await c.send(FRAME.DATA, FLAG.END_STREAM, s, test);
      await c.expectStreamError(s, E.STREAM_CLOSED, { answered: true });
    });

    it('http2/5.1.6 half closed (remote): Sends a HEADERS frame: RST_STREAM STREAM_CLOSED, its block still decoded', async () => {
      const c = await open();
      const s = await c.watch();
      await c.headers(s, c.fields('GET', PATH.healthz, [['x-in-table', 'yes']]));
      await c.expectStreamError(s, E.STREAM_CLOSED, { answered: true });
    });

    it('http2/5.1.7 half closed (remote): Sends a CONTINUATION frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      const s = await c.watch();
      await c.send(FRAME.CONTINUATION, FLAG.END_HEADERS, s, c.block(c.fields('GET', PATH.healthz)));
      await c.expectConnectionError(E.PROTOCOL_ERROR, s);
    });

    it('http2/5.1.8 closed: Sends a DATA frame after sending RST_STREAM frame: RST_STREAM STREAM_CLOSED', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.RST_STREAM, 0, s, u32(E.CANCEL));
      await c.send(FRAME.DATA, FLAG.END_STREAM, s, test);
      await c.expectStreamError(s, E.STREAM_CLOSED);
    });

    it('http2/5.1.9 closed: Sends a HEADERS frame after sending RST_STREAM frame: GOAWAY STREAM_CLOSED', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.RST_STREAM, 0, s, u32(E.CANCEL));
      await c.headers(s, c.fields('GET', PATH.healthz));
      await c.expectConnectionError(E.STREAM_CLOSED, s);
    });

    it('http2/5.1.10 closed: Sends a CONTINUATION frame after sending RST_STREAM frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.RST_STREAM, 0, s, u32(E.CANCEL));
      await c.send(FRAME.CONTINUATION, FLAG.END_HEADERS, s, c.block([['x-dummy0', 'x'.repeat(4000)]]));
      await c.expectConnectionError(E.PROTOCOL_ERROR, s);
    });

    it('http2/5.1.11 closed: Sends a DATA frame: RST_STREAM STREAM_CLOSED', async () => {
      const c = await open();
      const s = await closed(c);
      await c.send(FRAME.DATA, FLAG.END_STREAM, s, test);
      await c.expectStreamError(s, E.STREAM_CLOSED, { answered: true });
    });

    it('http2/5.1.12 closed: Sends a HEADERS frame: GOAWAY STREAM_CLOSED', async () => {
      const c = await open();
      const s = await closed(c);
      await c.headers(s, c.fields('GET', PATH.healthz));
      await c.expectConnectionError(E.STREAM_CLOSED, s);
    });

    it('http2/5.1.13 closed: Sends a CONTINUATION frame: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      const s = await closed(c);
      await c.send(FRAME.CONTINUATION, FLAG.END_HEADERS, s, c.block([['x-dummy0', 'x'.repeat(4000)]]));
      await c.expectConnectionError(E.PROTOCOL_ERROR, s);
    });

    it('RFC 9113 5.1: DATA and trailers on a stream the server reset (a malformed request) are ignored, the trailers\' block still decoded', async () => {
      const c = await open();
      const s = await c.request('POST', PATH.configMaps, { end: false, extra: [JSON_TYPE, ['X-Upper', '1']] });
      await c.raw.until(() => c.raw.of(FRAME.RST_STREAM, s).length > 0 || c.raw.closed, 3_000, 'the reset').catch(() => undefined);
      await c.send(FRAME.DATA, 0, s, configMapJson('streams-reset-by-server'));
      // A new entry in the dynamic table: the request after it finds :authority one place further.
      await c.headers(s, [['x-trailer', 'in the table']]);
      await c.ping();
      expect({ rst: c.rstCodes(s), goaway: c.raw.goaway }, c.log()).to.deep.equal({ rst: ['PROTOCOL_ERROR'], goaway: undefined });
      await c.served();
    });

    it('RFC 9113 5.1/8.1: DATA on a stream the server answered before the request\'s end is ignored', async () => {
      const c = await open();
      // Not found: answered without reading the body, then (RFC 9113 8.1) maybe reset with NO_ERROR.
      const s = await c.request('POST', '/healthz', { end: false });
      await c.answered(s);
      await c.ping();
      const before = c.rstCodes(s);
      expect({ status: c.status(s), rst: before.filter((x) => x !== 'NO_ERROR') }, c.log()).to.deep.equal({ status: 404, rst: [] });
      await c.send(FRAME.DATA, FLAG.END_STREAM, s, test);
      await c.ping();
      expect({ rst: c.rstCodes(s), goaway: c.raw.goaway }, c.log()).to.deep.equal({ rst: before, goaway: undefined });
      await c.served();
    });
  });

  describe('5.1.1 Stream Identifiers', () => {
    it('http2/5.1.1.1 Sends even-numbered stream identifier: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.headers(2, c.fields('GET', PATH.healthz));
      await c.expectConnectionError(E.PROTOCOL_ERROR, 0);
    });

    it('http2/5.1.1.2 Sends stream identifier that is numerically smaller than previous: GOAWAY PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.headers(5, c.fields('GET', PATH.healthz));
      await c.headers(3, c.fields('GET', PATH.healthz));
      await c.expectConnectionError(E.PROTOCOL_ERROR, 5);
    });
  });

  it('http2/5.1.2.1 Sends HEADERS frames that causes their advertised concurrent stream limit to be exceeded: RST_STREAM REFUSED_STREAM, the others served', async () => {
    // The client's initial window 0 keeps every response open (its 2 bytes of body held back).
    const c = await open({ settings: [[0x4, 0]] });
    const max = c.raw.serverSettings.get(0x3) ?? 0;
    expect(max, 'SETTINGS_MAX_CONCURRENT_STREAMS').to.be.above(0);
    const ids = Array.from({ length: max + 1 }, () => c.streamId());
    await c.raw.write(Buffer.concat(ids.map((id) => frame(FRAME.HEADERS, WHOLE, id, c.block(c.fields('GET', PATH.healthz))))));
    const extra = ids[max];
    await c.raw.until(() => c.raw.of(FRAME.RST_STREAM, extra).length > 0 || c.raw.goaway !== undefined || c.raw.closed, 20_000, 'the refusal').catch(() => undefined);
    const resetOthers = ids.slice(0, max).filter((id) => c.raw.of(FRAME.RST_STREAM, id).length > 0);
    expect({ extra: c.rstCodes(extra), goaway: c.raw.goaway, othersReset: resetOthers.length }, c.log())
      .to.deep.equal({ extra: ['REFUSED_STREAM'], goaway: undefined, othersReset: 0 });
    // Windows opened: the streams within the limit finish, and the connection serves on.
    await c.send(FRAME.SETTINGS, 0, 0, settings([0x4, 65_535]));
    await c.wait(() => ids.slice(0, max).every((id) => c.raw.ended(id)), 20_000, `the ${max} answers`);
    expect(ids.slice(0, max).filter((id) => c.status(id) !== 200 || c.body(id) !== 'ok'), c.log()).to.deep.equal([]);
    await c.served();
  });

  describe('5.3.1 Stream Dependencies', () => {
    it('http2/5.3.1.1 Sends HEADERS frame that depends on itself: RST_STREAM PROTOCOL_ERROR, the request not served', async () => {
      const c = await open();
      await c.send(FRAME.HEADERS, WHOLE | FLAG.PRIORITY, 1, Buffer.concat([priority(1, 255), c.block(c.fields('GET', PATH.healthz))]));
      await c.expectStreamError(1, E.PROTOCOL_ERROR);
    });

    it('http2/5.3.1.2 Sends PRIORITY frame that depend on itself: RST_STREAM PROTOCOL_ERROR', async () => {
      const c = await open();
      await c.send(FRAME.PRIORITY, 0, 1, priority(1, 255));
      c.streamId(); // stream 1 is closed now; the next request goes on stream 3
      await c.expectStreamError(1, E.PROTOCOL_ERROR);
    });
  });
});
