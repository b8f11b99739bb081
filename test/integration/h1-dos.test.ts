/**
 * Denial of service on the server's own HTTP/1.1 side (lib/http1/connection.ts, the default
 * beside --http2-server=own): requests pipelined and never read, heads at and just over the 1 MiB
 * limit, heads dribbled a byte at a time (slowloris), a chunked body whose chunk extensions never
 * end. As in h2-dos.test.ts, for each attack /healthz on another connection (HTTP/1.1 keep-alive,
 * a prober in its own process) is answered within 1 s throughout, the server's RSS and what it
 * holds after a full GC grow by less than stated bounds, and the attacker's connection is ended
 * with the expected answer, or the limits bound what it holds.
 * The head timeout is 2 s here (32 s by default, not a flag), so that slowloris ends in seconds.
 */
import { expect } from 'chai';
import { createLargeList, LARGE_LIST_PATH, startDosServer, type DosServer } from '../helpers/dos-server';
import { RawH1 } from '../helpers/raw-h1';
import { expectBounded, repeatFor, tally, underAttack } from '../helpers/under-attack';

const MiB = 1 << 20;
const HEAD_TIMEOUT_MS = 2_000;
/** ListenerLimits.maxHeaderBytes: a request head up to this is taken. */
const MAX_HEAD = MiB;
/** How long each attack goes on. */
const ATTACK_MS = 2_000;
/** As in h2-dos.test.ts: RSS at its peak bounded loosely (it counts what V8 has yet to collect), what is held after a full GC tightly. */
const BOUNDS = { rssMiB: 128, heldMiB: 8 };

const sleep = (ms: number) => new Promise<'slept'>((r) => setTimeout(() => r('slept'), Math.max(0, ms)));

describe('HTTP/1.1 (own side) under pipelining, huge heads, slowloris and endless chunk extensions: other clients are served, the attacker is bounded', function () {
  this.timeout(60_000);
  let server: DosServer;
  let listBytes: number;

  before(async () => {
    server = await startDosServer('h1', ['--log-level=warn'], { listener: { headersTimeoutMs: HEAD_TIMEOUT_MS } });
    listBytes = await createLargeList(server);
  });
  after(async () => {
    await server?.stop();
  });

  const connect = () => RawH1.connect(server.creds.url, server.creds);
  const attack = <T extends { sent: string; answer: string }>(name: string, run: () => Promise<T>) => underAttack(server, name, run, 'http/1.1');

  it('pipelined requests never read: each connection answers one at a time and stops reading, so 10 connections pipelining GETs of a large list leave the server holding little', async () => {
    const head = `GET ${LARGE_LIST_PATH} HTTP/1.1\r\nHost: ${server.authority}\r\n\r\n`;
    const batch = Buffer.from(head.repeat(Math.floor((64 << 10) / head.length)), 'latin1');
    const offered = 16 * MiB;
    let conns: RawH1[] = [];
    try {
      const f = await attack('HTTP/1.1 pipelining, answers unread', async () => {
        conns = await Promise.all(Array.from({ length: 10 }, connect));
        const deadline = performance.now() + ATTACK_MS;
        // Each connection writes up to 16 MiB of requests (~190,000) for ATTACK_MS, reading nothing.
        const taken = await Promise.all(conns.map(async (c) => {
          c.socket.pause();
          let bytes = 0;
          while (bytes < offered && !c.closed) {
            if (await Promise.race([c.write(batch), sleep(deadline - performance.now())]) !== true) break;
            bytes += batch.length;
          }
          return bytes;
        }));
        const total = taken.reduce((a, b) => a + b, 0);
        return {
          taken,
          sent: `10 connections offering ${offered / MiB} MiB of GETs of a ${(listBytes / 1024).toFixed(0)} KiB list each, no answer read`,
          answer: `took ${(total / MiB).toFixed(1)} MiB of them (${Math.round(total / head.length)} requests), then stopped reading; connections ${tally(conns.map((c) => (c.closed ? 'closed' : 'open')))}`,
        };
      });
      // Measured with the 10 connections open: one answer in flight and ~1 MiB of requests each, at most.
      expectBounded('HTTP/1.1 pipelining, answers unread', f, { rssMiB: 128, heldMiB: 48 });
      for (const bytes of f.taken) expect(bytes, 'request bytes a connection could hand over').to.be.below(offered);
    } finally {
      for (const c of conns) c.close();
    }
  });

  it(`heads: one of exactly 1 MiB is answered 200, one a byte longer 431 and the connection closed`, async () => {
    /** A head whose bytes before the blank line are `bytes` long. */
    const headOf = (bytes: number) => {
      const start = `GET /healthz HTTP/1.1\r\nHost: ${server.authority}\r\nX-Big: `;
      return Buffer.from(`${start}${'a'.repeat(bytes - start.length)}\r\n\r\n`, 'latin1');
    };
    const atLimit = headOf(MAX_HEAD);
    const over = headOf(MAX_HEAD + 1);
    const f = await attack('HTTP/1.1 heads of 1 MiB and 1 MiB + 1', async () => {
      const rounds = await repeatFor(ATTACK_MS, async () => {
        const [a, b] = await Promise.all([connect(), connect()]);
        try {
          await Promise.all([a.write(atLimit), b.write(over)]);
          await a.until(() => a.status !== 0 || a.closed, 5_000, 'the answer to a 1 MiB head');
          await b.until(() => b.closed, 5_000, 'the connection closed after a head over 1 MiB');
          return { atLimit: a.status, over: b.status };
        } finally {
          a.close();
          b.close();
        }
      });
      return { rounds, sent: `${rounds.length} heads of 1 MiB and as many of 1 MiB + 1 byte`, answer: tally(rounds.map((r) => `${r.atLimit} and ${r.over}, closed`)) };
    });
    expectBounded('HTTP/1.1 heads of 1 MiB and 1 MiB + 1', f, BOUNDS);
    for (const r of f.rounds) expect(r).to.deep.equal({ atLimit: 200, over: 431 });
  });

  it(`slowloris: heads sent a byte every 100 ms are cut at the ${HEAD_TIMEOUT_MS} ms head timeout, a later request's with 408`, async () => {
    /** Writes a head a byte every 100 ms until the server closes; resolves with ms from the first byte to the close. */
    const dribble = async (c: RawH1) => {
      const head = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${server.authority}\r\nX-Slow: ${'a'.repeat(1000)}`, 'latin1');
      const started = performance.now();
      for (let i = 0; i < head.length && !c.closed; i++) {
        await c.write(head.subarray(i, i + 1));
        await c.until(() => c.closed, 100, 'closed').catch(() => undefined);
      }
      return c.closedAt - started;
    };
    let conns: RawH1[] = [];
    try {
      const f = await attack('HTTP/1.1 slowloris', async () => {
        // 20 dribble a second head, after a request answered (the head timer's case); 20 their first
        // head (a connection with no request yet is also cut by the listener's first-request timer).
        const later = await Promise.all(Array.from({ length: 20 }, connect));
        await Promise.all(later.map(async (c) => {
          await c.write(`GET /healthz HTTP/1.1\r\nHost: ${server.authority}\r\n\r\n`);
          await c.until(() => c.status === 200, 5_000, 'the first answer');
          c.received = '';
        }));
        // A first head's timer starts on the server's side of the connection (before the TLS handshake
        // ends for the client): its time is counted from just before the connection was asked for.
        const asked: number[] = [];
        const first = await Promise.all(Array.from({ length: 20 }, (_, i) => { asked[i] = performance.now(); return connect(); }));
        conns = [...first, ...later];
        const [firstMs, laterMs] = await Promise.all([Promise.all(first.map((c, i) => dribble(c).then(() => c.closedAt - asked[i]))),
          Promise.all(later.map(dribble))]);
        const all = [...firstMs, ...laterMs];
        return {
          firstMs, laterMs,
          sent: '40 connections writing a head a byte every 100 ms (20 of them after a first request)',
          answer: `cut ${Math.min(...all).toFixed(0)}-${Math.max(...all).toFixed(0)} ms after the start; `
            + `first heads: ${tally(first.map((c) => c.received.split('\r\n')[0] || 'nothing'))}; later heads: ${tally(later.map((c) => c.received.split('\r\n')[0] || 'nothing'))}`,
        };
      });
      expectBounded('HTTP/1.1 slowloris', f, BOUNDS);
      for (const ms of [...f.firstMs, ...f.laterMs]) expect(ms, 'ms to the close').to.be.within(HEAD_TIMEOUT_MS - 100, HEAD_TIMEOUT_MS + 1_500);
      // A connection that never completed a head is closed without a word (as Go's server does) or with 408; a later head gets 408.
      for (const c of conns.slice(0, 20)) expect(c.received === '' || c.status === 408, `answer to a first head: ${c.received.slice(0, 40)}`).to.equal(true);
      for (const c of conns.slice(20)) expect(c.status).to.equal(408);
    } finally {
      for (const c of conns) c.close();
    }
  });

  it('a chunked body whose chunk extension never ends is answered 413 and the connection closed', async () => {
    const head = `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: ${server.authority}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1`;
    const extension = Buffer.from(';a=b'.repeat(16 << 10), 'latin1');
    const offered = 16 * MiB;
    const f = await attack('HTTP/1.1 endless chunk extension', async () => {
      const rounds = await repeatFor(ATTACK_MS, async () => {
        const c = await connect();
        try {
          await c.write(head);
          // 64 KiB of extension a write, up to 16 MiB, until the server has closed the connection.
          let bytes = 0;
          while (bytes < offered && await c.write(extension)) bytes += extension.length;
          await c.until(() => c.closed, 5_000, 'the connection closed');
          return { status: c.status, bytes };
        } finally {
          c.close();
        }
      });
      const bytes = rounds.reduce((n, r) => n + r.bytes, 0);
      return { rounds, sent: `${rounds.length} connections, ${(bytes / MiB).toFixed(0)} MiB of one chunk extension`, answer: tally(rounds.map((r) => `${r.status}, closed`)) };
    });
    expectBounded('HTTP/1.1 endless chunk extension', f, BOUNDS);
    for (const r of f.rounds) {
      expect(r.status).to.equal(413);
      expect(r.bytes, 'bytes written before the close').to.be.below(offered);
    }
  });
});
