/**
 * HTTP/2 conformance, SETTINGS, PING, GOAWAY, flow control and error codes (h2spec http2/6.5-6.9,
 * 7; RFC 9113 6.5-6.9), as raw frames against a real server, each asserting the exact answer:
 *  - malformed SETTINGS, PING and GOAWAY frames end the connection with the code RFC 9113 names;
 *    unknown settings and error codes change nothing; a PING ACK is not answered;
 *  - flow control is honoured to the byte: the client's initial window of 1 gets DATA frames of
 *    1 byte, a window made negative by a smaller SETTINGS_INITIAL_WINDOW_SIZE is counted as such
 *    (6.9.2), a WINDOW_UPDATE of 0 is PROTOCOL_ERROR (GOAWAY on the connection, RST_STREAM on a
 *    stream) and one above 2^31-1 is FLOW_CONTROL_ERROR (likewise).
 * Cases that watch DATA keep the window themselves (manualWindow) and wait 300 ms for what must
 * not come.
 */
import { expect } from 'chai';
import { FRAME, frame } from '../helpers/raw-h2';
import { codeName, FLAG, H2Conn, IMPL, JSON_TYPE, PATH, settings, u32, useConformanceServer } from '../helpers/h2-conformance';

const E = { PROTOCOL_ERROR: 0x1, FLOW_CONTROL_ERROR: 0x3, FRAME_SIZE_ERROR: 0x6, CANCEL: 0x8 } as const;
const S = { ENABLE_PUSH: 0x2, INITIAL_WINDOW_SIZE: 0x4, MAX_FRAME_SIZE: 0x5 } as const;
const MAX_WINDOW = 0x7fffffff;
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const H2SPEC = Buffer.from('h2spec\0\0');

describe(`HTTP/2 conformance: SETTINGS, PING, GOAWAY, WINDOW_UPDATE, error codes, h2spec http2/6.5-7 (--http2-server=${IMPL})`, function () {
  this.timeout(20_000);
  const suite = useConformanceServer();
  const open = suite.open.bind(suite);
  const post = (c: H2Conn) => c.request('POST', PATH.configMaps, { end: false, extra: [JSON_TYPE] });
  const dataLengths = (c: H2Conn, s: number) => c.raw.of(FRAME.DATA, s).map((f) => f.length).filter((n) => n > 0);
  /** Waits for the ACK of the client's `n`th SETTINGS (the first is sent with the preface). */
  const acked = (c: H2Conn, n: number) => c.wait(() => c.settingsFrames(true).length >= n, 3_000, `SETTINGS ACK ${n}`);


  describe('6.5 SETTINGS, and the connection errors of 6.7-6.9', () => {
    const connectionErrors: Array<[string, string, Buffer, number]> = [
      ['6.5.1', 'a SETTINGS frame with ACK flag and payload', hex('000001 04 01 00000000 00'), E.FRAME_SIZE_ERROR],
      ['6.5.2', 'a SETTINGS frame with a stream identifier other than 0x0', hex('000006 04 00 00000001 0003 00000064'), E.PROTOCOL_ERROR],
      ['6.5.3', 'a SETTINGS frame with a length other than a multiple of 6 octets', hex('000003 04 00 00000000 000300'), E.FRAME_SIZE_ERROR],
      ['6.5.2.1', 'SETTINGS_ENABLE_PUSH (0x2): Sends the value other than 0 or 1', frame(FRAME.SETTINGS, 0, 0, settings([S.ENABLE_PUSH, 2])), E.PROTOCOL_ERROR],
      ['6.5.2.2', 'SETTINGS_INITIAL_WINDOW_SIZE (0x4): Sends the value above the maximum flow control window size',
        frame(FRAME.SETTINGS, 0, 0, settings([S.INITIAL_WINDOW_SIZE, 2 ** 31])), E.FLOW_CONTROL_ERROR],
      ['6.5.2.3', 'SETTINGS_MAX_FRAME_SIZE (0x5): Sends the value below the initial value', frame(FRAME.SETTINGS, 0, 0, settings([S.MAX_FRAME_SIZE, 16_383])), E.PROTOCOL_ERROR],
      ['6.5.2.4', 'SETTINGS_MAX_FRAME_SIZE (0x5): Sends the value above the maximum allowed frame size',
        frame(FRAME.SETTINGS, 0, 0, settings([S.MAX_FRAME_SIZE, 16_777_216])), E.PROTOCOL_ERROR],
      ['6.9.2.3', 'a SETTINGS_INITIAL_WINDOW_SIZE settings with an exceeded maximum window size value', hex('000006 04 00 00000000 0004 80000000'), E.FLOW_CONTROL_ERROR],
      ['6.7.3', 'a PING frame with a stream identifier field value other than 0x0', hex('000008 06 00 00000001 0000000000000000'), E.PROTOCOL_ERROR],
      ['6.7.4', 'a PING frame with a length field value other than 8', hex('000006 06 00 00000000 000000000000'), E.FRAME_SIZE_ERROR],
      ['6.8.1', 'a GOAWAY frame with a stream identifier other than 0x0', hex('000008 07 00 00000001 0000000000000000'), E.PROTOCOL_ERROR],
      ['6.9.1', 'a WINDOW_UPDATE frame with a flow control window increment of 0', frame(FRAME.WINDOW_UPDATE, 0, 0, u32(0)), E.PROTOCOL_ERROR],
      ['6.9.3', 'a WINDOW_UPDATE frame with a length other than 4 octets', hex('000003 08 00 00000000 000001'), E.FRAME_SIZE_ERROR],
      ['6.9.1.2', 'multiple WINDOW_UPDATE frames increasing the flow control window to above 2^31-1',
        Buffer.concat([frame(FRAME.WINDOW_UPDATE, 0, 0, u32(MAX_WINDOW)), frame(FRAME.WINDOW_UPDATE, 0, 0, u32(MAX_WINDOW))]), E.FLOW_CONTROL_ERROR],
    ];
    for (const [id, desc, bytes, code] of connectionErrors) {
      it(`http2/${id} ${desc.startsWith('SETTINGS_') ? '' : 'Sends '}${desc}: GOAWAY ${codeName(code)}`, async () => {
        const c = await open();
        await c.raw.write(bytes);
        await c.expectConnectionError(code, 0);
      });
    }

    it('http2/6.5.2.5 Sends a SETTINGS frame with unknown identifier: acknowledged, ignored', async () => {
      const c = await open();
      await c.send(FRAME.SETTINGS, 0, 0, settings([0xff, 1]));
      await acked(c, 2);
      await c.expectAccepted();
    });

    it('http2/6.5.3.1 Sends multiple values of SETTINGS_INITIAL_WINDOW_SIZE: the last one holds (DATA of 1 byte)', async () => {
      const c = await open({ manualWindow: true });
      await c.send(FRAME.SETTINGS, 0, 0, settings([S.INITIAL_WINDOW_SIZE, 100], [S.INITIAL_WINDOW_SIZE, 1]));
      await acked(c, 2);
      const s = await c.request('GET', PATH.healthz);
      await c.wait(() => dataLengths(c, s).length > 0, 5_000, 'DATA');
      await c.settle();
      expect(dataLengths(c, s), c.log()).to.deep.equal([1]);
    });

    it('http2/6.5.3.2 Sends a SETTINGS frame without ACK flag: acknowledged', async () => {
      const c = await open();
      await c.send(FRAME.SETTINGS, 0, 0, settings([S.ENABLE_PUSH, 0]));
      await acked(c, 2);
      await c.expectAccepted();
    });
  });

  describe('6.7 PING', () => {
    it('http2/6.7.1 Sends a PING frame: PING ACK with its payload', async () => {
      const c = await open();
      await c.ping(H2SPEC);
    });

    it('http2/6.7.2 Sends a PING frame with ACK: not answered (only the PING after it is)', async () => {
      const c = await open();
      await c.send(FRAME.PING, FLAG.ACK, 0, Buffer.from('invalid\0'));
      await c.ping(H2SPEC);
      expect(c.raw.of(FRAME.PING).map((f) => f.payload.toString('latin1')), c.log()).to.deep.equal(['h2spec\0\0']);
    });
  });

  describe('6.9 WINDOW_UPDATE', () => {
    it('http2/6.9.2 Sends a WINDOW_UPDATE frame with a flow control window increment of 0 on a stream: RST_STREAM PROTOCOL_ERROR', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(0));
      await c.expectStreamError(s, E.PROTOCOL_ERROR);
    });

    it('http2/6.9.1.1 Sends SETTINGS frame to set the initial window size to 1 and sends HEADERS frame: DATA of 1 byte, one more per WINDOW_UPDATE', async () => {
      const c = await open({ settings: [[S.INITIAL_WINDOW_SIZE, 1]], manualWindow: true });
      const s = await c.request('GET', PATH.healthz);
      await c.wait(() => dataLengths(c, s).length > 0, 5_000, 'DATA');
      await c.settle();
      expect(dataLengths(c, s), c.log()).to.deep.equal([1]);
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(1));
      await c.wait(() => dataLengths(c, s).length > 1, 5_000, 'the second byte');
      // The empty DATA that ends the stream MAY wait for a window (RFC 9113 6.9.1): one more byte of it.
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(1));
      await c.answered(s);
      expect({ lengths: dataLengths(c, s), body: c.body(s), ended: c.raw.ended(s) }, c.log()).to.deep.equal({ lengths: [1, 1], body: 'ok', ended: true });
    });

    it('http2/6.9.1.3 Sends multiple WINDOW_UPDATE frames increasing the flow control window to above 2^31-1 on a stream: RST_STREAM FLOW_CONTROL_ERROR', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(MAX_WINDOW));
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(MAX_WINDOW));
      await c.expectStreamError(s, E.FLOW_CONTROL_ERROR);
    });

    it('RFC 9113 6.9.2: a stream window of exactly 2^31-1 is allowed; a SETTINGS_INITIAL_WINDOW_SIZE that lifts it above: GOAWAY FLOW_CONTROL_ERROR', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(MAX_WINDOW - 65_535));
      await c.ping();
      expect({ rst: c.rstCodes(s), goaway: c.raw.goaway }, c.log()).to.deep.equal({ rst: [], goaway: undefined });
      await c.send(FRAME.SETTINGS, 0, 0, settings([S.INITIAL_WINDOW_SIZE, 65_536]));
      await c.expectConnectionError(E.FLOW_CONTROL_ERROR, s);
    });

    it('http2/6.9.2.1 Changes SETTINGS_INITIAL_WINDOW_SIZE after sending HEADERS frame: the new window applies to the open stream (DATA of 1 byte)', async () => {
      const c = await open({ settings: [[S.INITIAL_WINDOW_SIZE, 0]], manualWindow: true });
      const s = await c.request('GET', PATH.healthz);
      await c.wait(() => c.responses(s).length > 0, 5_000, 'the response HEADERS');
      await c.send(FRAME.SETTINGS, 0, 0, settings([S.INITIAL_WINDOW_SIZE, 1]));
      await c.wait(() => dataLengths(c, s).length > 0, 5_000, 'DATA');
      await c.settle();
      expect(dataLengths(c, s), c.log()).to.deep.equal([1]);
    });

    it('http2/6.9.2.2 Sends a SETTINGS frame for window size to be negative: the negative window counted (3 bytes, then 1 after +2)', async () => {
      const c = await open({ settings: [[S.INITIAL_WINDOW_SIZE, 3]], manualWindow: true });
      const s = await c.request('GET', '/version'); // a JSON body of some 200 bytes
      await c.wait(() => dataLengths(c, s).length > 0, 5_000, 'DATA');
      await c.settle();
      expect(dataLengths(c, s), c.log()).to.deep.equal([3]);
      // Window 3 - 3 = 0; the new initial size 2 takes it to -1; +2 leaves 1.
      await c.send(FRAME.SETTINGS, 0, 0, settings([S.INITIAL_WINDOW_SIZE, 2]));
      await acked(c, 2);
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(2));
      await c.wait(() => dataLengths(c, s).length > 1, 5_000, 'the next DATA');
      await c.settle();
      expect(dataLengths(c, s), c.log()).to.deep.equal([3, 1]);
    });
  });

  describe('7 Error Codes', () => {
    it('http2/7.1 Sends a GOAWAY frame with unknown error code: taken as any GOAWAY (the request before it answered, no error in return)', async () => {
      const c = await open();
      const s = await c.request('GET', PATH.healthz);
      // With a PING after it, in one write: acknowledged, or the connection closed once its stream is done.
      await c.raw.write(Buffer.concat([frame(FRAME.GOAWAY, 0, 0, Buffer.concat([u32(0), u32(0xff)])), frame(FRAME.PING, 0, 0, H2SPEC)]));
      await c.expectOk(s);
      await c.wait(() => c.pingAcks().some((p) => p.equals(H2SPEC)) || c.raw.closed, 3_000, 'the PING ACK or the close');
      expect(codeName(c.raw.goaway?.errorCode ?? 0), c.log()).to.equal('NO_ERROR');
    });

    it('http2/7.2 Sends a RST_STREAM frame with unknown error code: the stream closed, nothing else', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.RST_STREAM, 0, s, u32(0xff));
      await c.expectAccepted(s);
    });
  });
});
