/**
 * Denial of service on the server's own HTTP/2 side (lib/http2/server-session.ts): floods of
 * resets and of control frames from one attacker, who comes back on a new connection whenever
 * the server ends one, for 2 s (bounded, loopback-only load). For each attack, while it runs:
 *  - /healthz on another connection (a prober in its own process, every 20 ms) is answered 200,
 *    within 1 s every time;
 *  - the server's RSS (it runs as a child process, test/helpers/dos-server.ts) grows by less than
 *    a stated bound;
 *  - the attacker's connection is bounded in time: the server ends it with the code nghttp2
 *    would use, or the limits bound what the attack costs and it ends within seconds.
 * One line per attack gives the figures (test/helpers/under-attack.ts).
 * Header-block and memory attacks are in h2-dos-memory.test.ts.
 */
import { expect } from 'chai';
import { startDosServer, type DosServer } from '../helpers/dos-server';
import { attackInRounds, CODE_NAMES, connectAttacker, ending, resets } from '../helpers/h2-attacker';
import { frame, FRAME, H2_ERROR, RawH2, requestHeaderBlock } from '../helpers/raw-h2';
import { expectBounded, underAttack } from '../helpers/under-attack';

/** The reset budget (reset-budget.ts, nghttp2's): 1000 at once, 33 more per second. */
const RESET_BURST = 1000;
const RESET_REFILL_PER_S = 33;

/**
 * Every attack's memory bounds. RSS at its peak counts what V8 has yet to collect (a connection
 * cut with 4 MiB of header block leaves it for a later GC), so it is bounded loosely, far below
 * what the attacks cost unbounded (a CONTINUATION flood: the 256 MiB a connection sends). What
 * the server holds after a full GC once the attack is over is bounded tightly: nothing is left.
 */
const BOUNDS = { rssMiB: 128, heldMiB: 8 };

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

describe('HTTP/2 (own side) under reset and control-frame floods: other clients are served, the attacker is bounded', function () {
  this.timeout(60_000);
  let server: DosServer;

  before(async () => {
    server = await startDosServer('h2', ['--log-level=warn']);
  });
  after(async () => {
    await server?.stop();
  });

  const healthz = () => requestHeaderBlock('GET', '/healthz', server.authority);
  const attack = (name: string, what: string, attackOne: (c: RawH2) => Promise<number>) => attackInRounds(server, name, what, attackOne);

  /** Resets the attack may cause on one connection before the budget ends it: the burst, what refilled meanwhile, a margin. */
  const budgetAfter = (ms: number) => RESET_BURST + Math.ceil((RESET_REFILL_PER_S * ms) / 1000) + 50;

  it('rapid reset: HEADERS+RST_STREAM pairs end each connection with ENHANCE_YOUR_CALM once its reset budget is spent, starting next to no request', async () => {
    const block = requestHeaderBlock('GET', '/api/v1/namespaces/default/configmaps', server.authority);
    const f = await attack('rapid reset', 'HEADERS+RST_STREAM pairs', (c) => c.flood(20_000, (i) => {
      const id = 2 * i + 1;
      return Buffer.concat([frame(FRAME.HEADERS, 0x5, id, block), c.rstFrame(id)]);
    }));
    expectBounded('rapid reset', f, BOUNDS);
    for (const r of f.rounds) {
      expect(r.ending).to.equal('GOAWAY ENHANCE_YOUR_CALM');
      // A client may reset the burst's worth; the connection ends soon after, not at the flood's end.
      expect(r.c.goaway!.lastStreamId).to.be.within(2 * RESET_BURST - 1, 2 * budgetAfter(r.ms));
      // Streams reset in the chunk that opened them never reach a handler (only pairs split across reads may).
      expect(r.c.count(FRAME.HEADERS)).to.be.below(50);
    }
  });

  // DATA past a stream's window is not among them: the server opens a stream's window as its
  // handler takes the body, and a handler that answers before reading resets the stream itself
  // (NO_ERROR) and drops what follows, so on this server the overrun is not the client's error.
  for (const provoke of [
    { what: 'WINDOW_UPDATE of 0 on the stream', code: H2_ERROR.PROTOCOL_ERROR, frame: (id: number) => frame(FRAME.WINDOW_UPDATE, 0, id, u32(0)) },
    { what: 'DATA after END_STREAM', code: H2_ERROR.STREAM_CLOSED, frame: (id: number) => frame(FRAME.DATA, 0, id, Buffer.from('x')) },
  ]) {
    it(`server-provoked resets (MadeYouReset): requests each followed by a ${provoke.what} spend the same budget and end with ENHANCE_YOUR_CALM`, async () => {
      const block = healthz();
      const f = await attack(`provoked reset: ${provoke.what}`, `HEADERS each followed by a ${provoke.what}`,
        (c) => c.flood(20_000, (i) => Buffer.concat([frame(FRAME.HEADERS, 0x5, 2 * i + 1, block), provoke.frame(2 * i + 1)])));
      expectBounded(`provoked reset: ${provoke.what}`, f, BOUNDS);
      for (const r of f.rounds) {
        expect(r.ending).to.equal('GOAWAY ENHANCE_YOUR_CALM');
        // The server reset each stream with the error it provoked, up to the budget, and no more.
        expect(resets(r.c)[CODE_NAMES[provoke.code]]).to.be.within(RESET_BURST - 50, budgetAfter(r.ms));
      }
    });
  }

  it('CONTINUATION flood: a header block of endless 256 KiB CONTINUATION frames ends with ENHANCE_YOUR_CALM (at 4 MiB)', async () => {
    const fragment = Buffer.alloc(256 << 10, 0x61);
    // Up to 1000 frames a connection: 256 MiB, had the server held them.
    const f = await attack('CONTINUATION flood, 256 KiB frames', 'CONTINUATION frames of 256 KiB', async (c) => {
      await c.write(frame(FRAME.HEADERS, 0x1, 1, healthz()));
      return c.flood(1000, () => frame(FRAME.CONTINUATION, 0, 1, fragment));
    });
    // Each cut connection leaves up to 4 MiB of copied fragments for V8 to collect, lazily: dozens of
    // them in 2 s have taken RSS ~110 MiB up. Unbounded, a connection would hold the 256 MiB it sends.
    expectBounded('CONTINUATION flood, 256 KiB frames', f, { ...BOUNDS, rssMiB: 192 });
    for (const r of f.rounds) {
      expect(r.ending).to.equal('GOAWAY ENHANCE_YOUR_CALM');
      expect(r.c.count(FRAME.HEADERS)).to.equal(0);
    }
  });

  it('CONTINUATION flood: one-byte CONTINUATION frames that never end the header block get ENHANCE_YOUR_CALM (after 64)', async () => {
    const one = frame(FRAME.CONTINUATION, 0, 1, Buffer.from([0x82]));
    const f = await attack('CONTINUATION flood, 1-byte frames', 'CONTINUATION frames of 1 byte', async (c) => {
      await c.write(frame(FRAME.HEADERS, 0x1, 1, healthz()));
      return c.flood(100_000, () => one);
    });
    expectBounded('CONTINUATION flood, 1-byte frames', f, BOUNDS);
    for (const r of f.rounds) {
      expect(r.ending).to.equal('GOAWAY ENHANCE_YOUR_CALM');
      expect(r.c.count(FRAME.HEADERS)).to.equal(0);
    }
  });

  it('SETTINGS flood: a SETTINGS frame of 1000 entries ends the connection with ENHANCE_YOUR_CALM', async () => {
    const entries = Buffer.alloc(6 * 1000);
    for (let i = 0; i < 1000; i++) {
      entries.writeUInt16BE(0x1, 6 * i); // SETTINGS_HEADER_TABLE_SIZE
      entries.writeUInt32BE(4096, 6 * i + 2);
    }
    const f = await attack('SETTINGS of 1000 entries', 'SETTINGS frames of 1000 entries', async (c) => {
      await c.write(frame(FRAME.SETTINGS, 0, 0, entries));
      return 1;
    });
    expectBounded('SETTINGS of 1000 entries', f, BOUNDS);
    for (const r of f.rounds) expect(r.ending).to.equal('GOAWAY ENHANCE_YOUR_CALM');
  });

  for (const kind of [
    { name: 'SETTINGS', total: 50_000, frame: frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 1, 0, 0, 0x10, 0])), acked: (c: RawH2) => c.count(FRAME.SETTINGS) - 2 },
    { name: 'PING', total: 100_000, frame: frame(FRAME.PING, 0, 0, Buffer.alloc(8)), acked: (c: RawH2) => c.count(FRAME.PING) },
  ]) {
    // A client that reads the answers costs the server only their bytes. It may have up to about
    // 1000 unanswered in flight (nghttp2's max_outbound_ack; node:http2 cuts at the same point).
    it(`${kind.name} flood, acknowledgements read (500 in flight): ${kind.total} frames are all acknowledged and the connection serves on`, async () => {
      const c = await connectAttacker(server);
      try {
        const f = await underAttack(server, `${kind.name} flood, read`, async () => {
          const batch = Buffer.concat(Array(500).fill(kind.frame));
          let sent = 0;
          while (sent < kind.total && !c.closed) {
            await c.write(batch);
            sent += 500;
            await c.until(() => kind.acked(c) >= sent || c.closed, 5_000, 'the acknowledgements of a batch');
          }
          return { sent: `${sent} ${kind.name} frames, 500 at a time`, answer: `${kind.acked(c)} acknowledged, connection ${ending(c)}` };
        });
        expectBounded(`${kind.name} flood, read`, f, BOUNDS);
        expect(kind.acked(c)).to.equal(kind.total);
        await c.write(c.headersFrames(c.streamId(), healthz()));
        await c.until(() => c.count(FRAME.HEADERS) > 0 || c.closed, 5_000, 'a request after the flood');
        expect(c.of(FRAME.HEADERS)[0].payload[0], ':status 200').to.equal(0x88);
      } finally {
        c.close();
      }
    });

    it(`${kind.name} flood, acknowledgements never read: the server cuts the connection rather than queue them`, async () => {
      // Up to ~40 MiB a connection, several times what the socket buffers between the two can hold.
      const total = Math.floor((40 << 20) / kind.frame.length);
      const f = await attack(`${kind.name} flood, unread`, `${kind.name} frames, no answer read`, (c) => {
        c.socket.pause();
        return c.flood(total, () => kind.frame);
      });
      expectBounded(`${kind.name} flood, unread`, f, BOUNDS);
      for (const r of f.rounds) {
        expect(r.ending).to.equal('cut');
        expect(r.sent).to.be.below(total);
      }
    });
  }
});
