/**
 * HTTP/2 conformance, h2spec's "generic" cases (1-5): what a server must accept, sent as raw
 * frames over TLS to a real server (test/helpers/h2-conformance.ts), each asserting the answer a
 * client relies on: the request served (its status and body), a PING acknowledged, nothing reset.
 * Where h2spec sends a header nobody can observe, these send one the server answers with (the
 * Audit-ID it echoes, an Accept it negotiates), in the same HPACK representation.
 */
import { expect } from 'chai';
import { FRAME, frame } from '../helpers/raw-h2';
import { configMapJson, FLAG, H2Conn, IMPL, JSON_TYPE, padded, PATH, priority, settings, u32, useConformanceServer, WHOLE } from '../helpers/h2-conformance';
import type { Indexing } from '../helpers/hpack-encoder';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe(`HTTP/2 conformance: h2spec generic 1-5 (--http2-server=${IMPL})`, function () {
  this.timeout(20_000);
  const suite = useConformanceServer();
  const open = suite.open.bind(suite);
  /** A POST creating ConfigMap `name`, the stream left open for its body. */
  const post = (c: H2Conn, extra: Array<[string, string]> = []) => c.request('POST', PATH.configMaps, { end: false, extra: [JSON_TYPE, ...extra] });


  it('generic/1.1 Sends a client connection preface: the server\'s first frame is SETTINGS', async () => {
    const c = await open({ handshake: false });
    await c.wait(() => c.raw.frames.length > 0, 5_000, 'a frame');
    const f = c.raw.frames[0];
    expect({ type: f.type, ack: f.flags & FLAG.ACK, stream: f.streamId }, c.log()).to.deep.equal({ type: FRAME.SETTINGS, ack: 0, stream: 0 });
  });

  describe('2 Streams and Multiplexing', () => {
    it('generic/2.1 Sends a PRIORITY frame on idle stream: accepted, the stream can still be opened', async () => {
      const c = await open();
      await c.send(FRAME.PRIORITY, 0, 1, priority(0, 255));
      await c.expectAccepted(1); // its request goes out on stream 1
    });

    for (const [id, desc, withPriority] of [['2.2', 'a WINDOW_UPDATE frame', false], ['2.3', 'a PRIORITY frame', true]] as const) {
      it(`generic/${id} Sends ${desc} on half-closed (remote) stream: accepted, the window it opens is used (DATA of 1 byte)`, async () => {
        // The client's initial window 0 holds the response's 2 bytes back.
        const c = await open({ settings: [[0x4, 0]], manualWindow: true });
        const s = await c.request('GET', PATH.healthz);
        if (withPriority) await c.send(FRAME.PRIORITY, 0, s, priority(0, 255));
        await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(1));
        await c.wait(() => c.raw.of(FRAME.DATA, s).length > 0, 5_000, 'DATA');
        await c.settle();
        expect({ data: c.raw.of(FRAME.DATA, s).map((f) => f.length), rst: c.rstCodes(s) }, c.log()).to.deep.equal({ data: [1], rst: [] });
      });
    }

    it('generic/2.4 Sends a RST_STREAM frame on half-closed (remote) stream: accepted, not answered with a reset', async () => {
      const c = await open();
      const s = await c.request('GET', PATH.watch);
      await c.send(FRAME.RST_STREAM, 0, s, u32(0x8));
      await c.expectAccepted(s);
    });

    it('generic/2.5 Sends a PRIORITY frame on closed stream: accepted', async () => {
      const c = await open();
      const s = await c.request('GET', PATH.healthz);
      await c.expectOk(s);
      await c.send(FRAME.PRIORITY, 0, s, priority(0, 255));
      await c.expectAccepted(s);
    });
  });

  describe('3 Frame Definitions', () => {
    const cases: Array<[string, string, (c: H2Conn, s: number, body: Buffer) => Promise<unknown>]> = [
      ['3.1.1', 'a DATA frame', (c, s, body) => c.send(FRAME.DATA, FLAG.END_STREAM, s, body)],
      ['3.1.2', 'multiple DATA frames', async (c, s, body) => {
        await c.send(FRAME.DATA, 0, s, body.subarray(0, 10));
        await c.send(FRAME.DATA, FLAG.END_STREAM, s, body.subarray(10));
      }],
      ['3.1.3', 'a DATA frame with padding', (c, s, body) => c.send(FRAME.DATA, FLAG.END_STREAM | FLAG.PADDED, s, padded(5, body))],
    ];
    for (const [id, desc, sendBody] of cases) {
      it(`generic/${id} Sends ${desc}: the body is read whole (201 Created)`, async () => {
        const c = await open();
        const s = await post(c);
        const name = `generic-${id.replace(/\./g, '-')}`;
        await sendBody(c, s, configMapJson(name));
        await c.expectCreated(s, name);
      });
    }

    const headers: Array<[string, string, (c: H2Conn) => Promise<unknown>]> = [
      ['3.2.1', 'a HEADERS frame', (c) => c.headers(1, c.fields('GET', PATH.healthz))],
      ['3.2.2', 'a HEADERS frame with padding', (c) => c.send(FRAME.HEADERS, WHOLE | FLAG.PADDED, 1, padded(8, c.block(c.fields('GET', PATH.healthz))))],
      ['3.2.3', 'a HEADERS frame with priority', (c) => c.send(FRAME.HEADERS, WHOLE | FLAG.PRIORITY, 1, Buffer.concat([priority(0, 255), c.block(c.fields('GET', PATH.healthz))]))],
      ['3.3.1', 'a PRIORITY frame with priority 1', (c) => c.send(FRAME.PRIORITY, 0, 1, priority(0, 0)).then(() => c.headers(1, c.fields('GET', PATH.healthz)))],
      ['3.3.2', 'a PRIORITY frame with priority 256', (c) => c.send(FRAME.PRIORITY, 0, 1, priority(0, 255)).then(() => c.headers(1, c.fields('GET', PATH.healthz)))],
      ['3.3.3', 'a PRIORITY frame with stream dependency', (c) => c.send(FRAME.PRIORITY, 0, 3, priority(1, 0)).then(() => c.headers(1, c.fields('GET', PATH.healthz)))],
      ['3.3.4', 'a PRIORITY frame with exclusive', (c) => c.send(FRAME.PRIORITY, 0, 1, priority(0, 0, true)).then(() => c.headers(1, c.fields('GET', PATH.healthz)))],
      ['3.3.5', 'a PRIORITY frame for an idle stream, then send a HEADER frame for a lower stream ID',
        (c) => c.send(FRAME.PRIORITY, 0, 3, priority(0, 255)).then(() => c.headers(1, c.fields('GET', PATH.healthz)))],
      ['3.10.1', 'a CONTINUATION frame', async (c) => {
        const block = c.block(c.fields('GET', PATH.healthz));
        await c.send(FRAME.HEADERS, FLAG.END_STREAM, 1, block.subarray(0, 5));
        await c.send(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, block.subarray(5));
      }],
      ['3.10.2', 'multiple CONTINUATION frames', async (c) => {
        const block = c.block(c.fields('GET', PATH.healthz));
        await c.send(FRAME.HEADERS, FLAG.END_STREAM, 1, block.subarray(0, 5));
        await c.send(FRAME.CONTINUATION, 0, 1, block.subarray(5, 10));
        await c.send(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, block.subarray(10));
      }],
    ];
    for (const [id, desc, act] of headers) {
      // Stream 3 after it: a PRIORITY naming stream 3 did not open it, nor close it to the client.
      it(`generic/${id} Sends ${desc}: served (200 "ok"), and stream 3 can be opened after it`, async () => {
        const c = await open();
        await act(c);
        await c.expectOk(1);
        await c.served();
      });
    }

    it('generic/3.4.1 Sends a RST_STREAM frame: accepted (PING answered, nothing reset back)', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.RST_STREAM, 0, s, u32(0x8));
      await c.expectAccepted(s);
    });

    it('generic/3.5.1 Sends a SETTINGS frame: acknowledged', async () => {
      const c = await open();
      await c.send(FRAME.SETTINGS, 0, 0, settings([0x1, 4096], [0x2, 1], [0x3, 100], [0x4, 65535], [0x5, 16384], [0x6, 100]));
      await c.wait(() => c.settingsFrames(true).length === 2, 5_000, 'the second SETTINGS ACK');
      await c.expectAccepted();
    });

    it('generic/3.7.1 Sends a PING frame: PING ACK with its payload', async () => {
      const c = await open();
      await c.ping(Buffer.from('h2spec\0\0'));
    });

    it('generic/3.8.1 Sends a GOAWAY frame: the request before it is still answered, no error in return', async () => {
      const c = await open();
      const s = await c.request('GET', PATH.healthz);
      // With a PING after it, in one write: acknowledged, or the connection closed once its stream is done.
      const ping = Buffer.from('h2spec\0\0');
      await c.raw.write(Buffer.concat([frame(FRAME.GOAWAY, 0, 0, Buffer.concat([u32(0), u32(0), Buffer.from('h2spec')])), frame(FRAME.PING, 0, 0, ping)]));
      await c.expectOk(s);
      await c.wait(() => c.pingAcks().some((p) => p.equals(ping)) || c.raw.closed, 3_000, 'the PING ACK or the close');
      expect(c.raw.goaway?.errorCode ?? 0, c.log()).to.equal(0);
    });

    it('generic/3.9.1 Sends a WINDOW_UPDATE frame with stream ID 0: accepted', async () => {
      const c = await open();
      await c.send(FRAME.WINDOW_UPDATE, 0, 0, u32(1));
      await c.expectAccepted();
    });

    it('generic/3.9.2 Sends a WINDOW_UPDATE frame with stream ID 1: accepted, the request served', async () => {
      const c = await open();
      const s = await c.request('GET', PATH.healthz);
      await c.send(FRAME.WINDOW_UPDATE, 0, s, u32(1));
      await c.expectOk(s);
      await c.expectAccepted(s);
    });
  });

  describe('4 HTTP Message Exchanges', () => {
    it('generic/4.1 Sends a GET request: 200 "ok"', async () => {
      const c = await open();
      await c.expectOk(await c.request('GET', PATH.healthz));
    });

    it('generic/4.2 Sends a HEAD request: 200 without a body', async () => {
      const c = await open();
      const s = await c.request('HEAD', PATH.healthz);
      await c.answered(s);
      expect({ status: c.status(s), body: c.body(s), ended: c.raw.ended(s) }, c.log()).to.deep.equal({ status: 200, body: '', ended: true });
    });

    it('generic/4.3 Sends a POST request: its body read (201 Created)', async () => {
      const c = await open();
      const s = await post(c);
      await c.send(FRAME.DATA, FLAG.END_STREAM, s, configMapJson('generic-4-3'));
      await c.expectCreated(s, 'generic-4-3');
    });

    it('generic/4.4 Sends a POST request with trailers: the trailers end it (201 Created)', async () => {
      const c = await open();
      const s = await post(c, [['trailer', 'x-test']]);
      await c.send(FRAME.DATA, 0, s, configMapJson('generic-4-4'));
      await c.headers(s, [['x-test', 'ok']]);
      await c.expectCreated(s, 'generic-4-4');
    });
  });

  describe('5 HPACK', () => {
    it('generic/5.1 Sends a indexed header field representation: served', async () => {
      const c = await open();
      await c.headers(1, Buffer.concat([c.block(c.fields('GET', PATH.healthz)), c.hpack.indexed(58)])); // user-agent, empty
      await c.expectOk(1);
    });

    // The field under test: an Accept by the static table's name (the answer comes in protobuf),
    // or a new name, Audit-ID (echoed). Each is followed by a request whose :authority is in the
    // dynamic table, so a table the server changed wrongly fails it.
    const kinds: Array<[Indexing, string]> = [['incremental', 'with incremental indexing'], ['without', 'without indexing'], ['never', 'never indexed']];
    let n = 2;
    for (const [indexing, words] of kinds) {
      for (const newName of [false, true]) {
        for (const huffman of [false, true]) {
          const id = `5.${n++}`;
          it(`generic/${id} Sends a literal header field ${words} - ${newName ? 'new' : 'indexed'} name${huffman ? ' (with Huffman coding)' : ''}: decoded right`, async () => {
            const c = await open();
            if (newName) {
              const value = `h2spec-${id}`;
              await c.headers(1, Buffer.concat([c.block(c.fields('GET', PATH.healthz)), c.hpack.literal('audit-id', value, { indexing, huffman })]));
              await c.expectOk(1);
              expect(c.responses(1)[0]['audit-id'], c.log()).to.equal(value);
            } else {
              await c.headers(1, Buffer.concat([c.block(c.fields('GET', '/api/v1/namespaces/default')), c.hpack.literal(19, PROTOBUF, { indexing, huffman })]));
              await c.answered(1);
              expect({ status: c.status(1), type: c.responses(1)[0]?.['content-type'] }, c.log()).to.deep.equal({ status: 200, type: PROTOBUF });
            }
            await c.served();
          });
        }
      }
    }

    it('generic/5.14 Sends a dynamic table size update: served, the table in step after it', async () => {
      const c = await open();
      await c.headers(1, Buffer.concat([c.hpack.sizeUpdate(128), c.block(c.fields('GET', PATH.healthz))]));
      await c.expectOk(1);
      await c.served();
    });

    it('generic/5.15 Sends multiple dynamic table size update: served, the table in step after it', async () => {
      const c = await open();
      await c.headers(1, Buffer.concat([c.hpack.sizeUpdate(128), c.hpack.sizeUpdate(4096), c.block(c.fields('GET', PATH.healthz))]));
      await c.expectOk(1);
      await c.served();
    });
  });
});
