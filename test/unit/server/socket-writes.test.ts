/**
 * Socket writes of the server's own HTTP stacks (issue 45: a write is a TLS record and a system
 * call, and the density profile spent 11% of the server's CPU in them), on a real TLS socket pair
 * through the listener the server uses (own-listener.ts), counting the server socket's writes
 * (net.Socket's _writeGeneric: one call per write or writev handed to the TLS layer):
 *  - HTTP/2: a burst of watch events to one stream, and another stream's whole answer, written in
 *    one turn leave in one write (frame-queue.ts);
 *  - HTTP/1.1: a flushed head and the events written after it in the same turn leave in one write
 *    (the socket corked for the turn), and a whole response is one write;
 *  - back-pressure is unchanged on both: a producer whose client does not read sees write()
 *    answer false, waits for 'drain', and every byte arrives once the client reads.
 */
import { expect } from 'chai';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type tls from 'node:tls';
import { createOwnH2Listener } from '../../../lib/server/own-listener';
import { listenerLimits } from '../../../lib/server/listener-options';
import type { ServerRequest, ServerResponse } from '../../../lib/http/messages';
import { createTestCa } from '../../helpers/test-ca';

type Handler = (req: ServerRequest, res: ServerResponse) => void;

interface Harness {
  port: number;
  /** Writes the server's sockets have made so far. */
  writes(): number;
  /** The handler of the next requests. */
  handle(h: Handler): void;
  close(): void;
}

const ca = createTestCa('socket-writes');

async function startListener(): Promise<Harness> {
  const { server, sessions } = createOwnH2Listener({ cert: ca.certPem, key: ca.keyPem }, listenerLimits({ http2MaxStreamsPerConnection: 0 }));
  let writes = 0;
  let handler: Handler = (_req, res) => res.end('ok');
  server.on('request', (req: ServerRequest, res: ServerResponse) => handler(req, res));
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    // Counted on the instance, after the stack's own listener has taken the socket.
    const write = (socket as unknown as { _writeGeneric: (...a: unknown[]) => unknown })._writeGeneric;
    Object.assign(socket, { _writeGeneric(...args: unknown[]) { writes++; return write.apply(socket, args); } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    writes: () => writes,
    handle: (h) => { handler = h; },
    close: () => { for (const s of sessions) s.destroy(); server.close(); },
  };
}

const EVENT = (i: number) => Buffer.from(`{"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"cm-${i}"}}}\n`);
const BURST = 50;
const burstBytes = () => Buffer.concat(Array.from({ length: BURST }, (_, i) => EVENT(i)));

/** Resolves once `stream` has delivered `n` bytes in all (its bytes so far are in `got`). */
function bytesArrived(stream: NodeJS.ReadableStream, got: Buffer[], n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let have = got.reduce((a, b) => a + b.length, 0);
    if (have >= n) return resolve();
    const onData = (d: Buffer) => {
      have += d.length;
      if (have >= n) {
        stream.off('data', onData);
        resolve();
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
  });
}

/** Resolves once `value()` has stayed the same over five looks 20 ms apart (a wait, not a measurement). */
async function settled(value: () => number): Promise<void> {
  let last = -1;
  for (let same = 0; same < 5;) {
    await new Promise((r) => setTimeout(r, 20));
    const v = value();
    same = v === last ? same + 1 : 0;
    last = v;
  }
}

describe('socket writes of the server\'s HTTP stacks (real TLS sockets)', function () {
  this.timeout(20_000);
  let h: Harness;
  const cleanups: Array<() => void> = [];
  beforeEach(async () => { h = await startListener(); });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
    h.close();
  });

  describe('HTTP/2', () => {
    async function connect(settings: http2.Settings = {}): Promise<http2.ClientHttp2Session> {
      const client = http2.connect(`https://127.0.0.1:${h.port}`, { rejectUnauthorized: false, settings });
      cleanups.push(() => client.destroy());
      client.on('error', () => undefined);
      // One exchange first: the SETTINGS both ways and their acknowledgements are behind us.
      const warm = client.request({ ':path': '/warm' });
      warm.resume();
      await new Promise((resolve) => warm.on('end', resolve));
      return client;
    }

    it('writes a burst of watch events to one stream, and another stream\'s answer, made in one turn, as one socket write', async () => {
      const client = await connect();
      const open = new Map<string, ServerResponse>();
      h.handle((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        open.set(req.url, res);
      });
      const watch = client.request({ ':path': '/watch' });
      const other = client.request({ ':path': '/get' });
      const got: Buffer[] = [];
      const otherGot: Buffer[] = [];
      watch.on('data', (d: Buffer) => got.push(d));
      other.on('data', (d: Buffer) => otherGot.push(d));
      await Promise.all([new Promise((r) => watch.once('response', r)), new Promise((r) => other.once('response', r))]);
      await new Promise((r) => setImmediate(r));
      const watchRes = open.get('/watch')!;
      const otherRes = open.get('/get')!;
      const before = h.writes();
      for (let i = 0; i < BURST; i++) watchRes.write(EVENT(i));
      otherRes.end('{"kind":"ConfigMap"}');
      await Promise.all([bytesArrived(watch, got, burstBytes().length), new Promise((r) => other.once('end', r))]);
      expect(h.writes() - before).to.equal(1);
      expect(Buffer.concat(got).equals(burstBytes())).to.equal(true);
      expect(Buffer.concat(otherGot).toString()).to.equal('{"kind":"ConfigMap"}');
      watchRes.end();
    });

    it('still pauses a producer whose client does not read (write() false), and resumes it on \'drain\'', async () => {
      // A 16 KiB stream window: the client's window fills before the server's queue does.
      const client = await connect({ initialWindowSize: 16 * 1024 });
      const chunk = Buffer.alloc(8 * 1024, 0x61);
      let written = 0;
      let paused!: () => void;
      const pausedAt = new Promise<void>((r) => { paused = r; });
      let res!: ServerResponse;
      h.handle((_req, r) => {
        res = r;
        res.writeHead(200);
        // Writes until write() says to wait; the client reads nothing meanwhile.
        while (res.write(chunk)) written += chunk.length;
        written += chunk.length;
        paused();
      });
      const stream = client.request({ ':path': '/big' });
      stream.pause();
      await pausedAt;
      expect(res.writableLength).to.be.greaterThan(64 * 1024);
      // Nothing more is taken from the client's side until it reads: 'drain' comes only after that.
      let drained = false;
      const drain = new Promise<void>((r) => res.once('drain', () => { drained = true; r(); }));
      await new Promise((r) => setImmediate(r));
      expect(drained).to.equal(false);
      const got: Buffer[] = [];
      stream.on('data', (d: Buffer) => got.push(d));
      stream.resume();
      await drain;
      res.end(chunk);
      written += chunk.length;
      await new Promise((r) => stream.on('end', r));
      expect(Buffer.concat(got).length).to.equal(written);
    });
  });

  describe('HTTP/1.1', () => {
    const agent = () => {
      const a = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] } as https.AgentOptions);
      cleanups.push(() => a.destroy());
      return a;
    };
    const get = (a: https.Agent, path: string) => new Promise<IncomingMessage>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: h.port, path, agent: a }, resolve).on('error', reject);
    });

    it('writes a whole response as one socket write', async () => {
      const a = agent();
      (await get(a, '/warm')).resume();
      h.handle((_req, res) => res.end('{"kind":"ConfigMap"}'));
      const before = h.writes();
      const res = await get(a, '/get');
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      await new Promise((r) => res.on('end', r));
      expect(body).to.equal('{"kind":"ConfigMap"}');
      expect(h.writes() - before).to.equal(1);
    });

    it('writes a flushed head and a burst of watch events made in the same turn as one socket write', async () => {
      const a = agent();
      (await get(a, '/warm')).resume();
      let res!: ServerResponse;
      let before = 0;
      h.handle((_req, r) => {
        res = r;
        before = h.writes();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        for (let i = 0; i < BURST; i++) res.write(EVENT(i));
      });
      const msg = await get(a, '/watch');
      const got: Buffer[] = [];
      msg.on('data', (d: Buffer) => got.push(d));
      await bytesArrived(msg, got, burstBytes().length);
      expect(h.writes() - before).to.equal(1);
      expect(Buffer.concat(got).equals(burstBytes())).to.equal(true);
      // An event of a later turn and the end of the response after it: one write, at once.
      const next = h.writes();
      res.write(EVENT(BURST));
      res.end();
      await new Promise((r) => msg.on('end', r));
      expect(h.writes() - next).to.equal(1);
      expect(Buffer.concat(got).toString()).to.equal(burstBytes().toString() + EVENT(BURST).toString());
    });

    it('still pauses a producer whose client does not read (write() false), and resumes it on \'drain\'', async () => {
      const a = agent();
      (await get(a, '/warm')).resume();
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      let res!: ServerResponse;
      let written = 0;
      let turns = 0;
      let wroteAll!: () => void;
      const done = new Promise<void>((r) => { wroteAll = r; });
      // More than loopback's socket buffers hold.
      const TOTAL = 48 << 20;
      h.handle((_req, r) => {
        res = r;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const produce = () => {
          turns++;
          while (written < TOTAL) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', produce);
          }
          res.end();
          wroteAll();
        };
        produce();
      });
      const msg = await get(a, '/big');
      msg.pause();
      // With the client not reading, the producer stops short of the body once the socket buffers are full.
      await settled(() => written);
      expect(written).to.be.lessThan(TOTAL);
      let got = 0;
      msg.on('data', (d: Buffer) => { got += d.length; });
      msg.resume();
      await done;
      await new Promise((r) => msg.on('end', r));
      expect(got).to.equal(TOTAL);
      expect(turns).to.be.greaterThan(1);
    });
  });
});
