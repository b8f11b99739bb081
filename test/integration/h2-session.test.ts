/**
 * The etcd client's HTTP/2 transport (lib/http2/client-session.ts) against another
 * implementation: node:http2's server (nghttp2), whose encoder Huffman-codes and indexes what
 * it sends, and which enforces the protocol on what it receives; and raw sockets for a peer that
 * breaks the protocol. etcd itself is the peer in the storage suites.
 */
import { expect } from 'chai';
import http2 from 'node:http2';
import net from 'node:net';
import { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { H2Session, H2Stream, H2StreamHandler } from '../../lib/http2/client-session';
import { H2Headers, encodeHeaderBlock } from '../../lib/http2/hpack';
import {
  CANCEL, COMPRESSION_ERROR, CONTINUATION, ENHANCE_YOUR_CALM, FRAME_HEADER, GOAWAY, HEADERS, PREFACE, PROTOCOL_ERROR, PUSH_PROMISE,
  REFUSED_STREAM, frameOf, settingsFrame,
} from '../../lib/http2/frames';

interface Answer { headers: H2Headers[]; body: Buffer; stream: H2Stream }

/** A handler collecting a stream's answer; resolves at onClose. */
function collect(): { handler: H2StreamHandler; done: Promise<Answer> } {
  const headers: H2Headers[] = [];
  const chunks: Buffer[] = [];
  let resolve!: (a: Answer) => void;
  const done = new Promise<Answer>((r) => { resolve = r; });
  const handler: H2StreamHandler = {
    onHeaders: (_s, h) => { headers.push(h); },
    onData: (_s, d) => { chunks.push(Buffer.from(d)); },
    onClose: (s) => resolve({ headers, body: Buffer.concat(chunks), stream: s }),
  };
  return { handler, done };
}

const block = (path: string, extra: Array<[string, string]> = []) => encodeHeaderBlock([
  [':method', 'POST'], [':scheme', 'http'], [':path', path], [':authority', 'test'], ...extra,
]);

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function connected(port: number): Promise<H2Session> {
  const s = new H2Session({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    s.once('remoteSettings', resolve);
    s.once('close', () => reject(s.error ?? new Error('closed')));
  });
  return s;
}

function request(s: H2Session, path: string, body?: Buffer, extra?: Array<[string, string]>): Promise<Answer> {
  const { handler, done } = collect();
  s.request(block(path, extra), handler, body, true);
  return done;
}

const printable = (n: number) => randomBytes(n).toString('base64').slice(0, n);

describe('HTTP/2 transport of the etcd client (against node:http2 and raw peers)', function () {
  this.timeout(30_000);
  const cleanups: Array<() => void> = [];
  afterEach(() => { for (const c of cleanups.splice(0)) c(); });

  /** The sessions of each server started, in order. */
  const servers: Array<Set<http2.ServerHttp2Session>> = [];
  let lastServer: http2.Http2Server | undefined;

  function h2server(options: http2.ServerOptions, onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void): Promise<number> {
    const server = http2.createServer(options);
    lastServer = server;
    const sessions = new Set<http2.ServerHttp2Session>();
    servers.push(sessions);
    server.on('session', (s) => { sessions.add(s); s.on('error', () => undefined); });
    server.on('stream', (stream, headers) => { stream.on('error', () => undefined); onStream(stream, headers); });
    cleanups.push(() => { for (const s of sessions) s.destroy(); server.close(); });
    return listen(server);
  }

  it('reads 300 answers\' headers and trailers as nghttp2 sent them (Huffman, its dynamic table, evictions)', async () => {
    const sent = new Map<string, { headers: Record<string, string>; trailers: Record<string, string> }>();
    const port = await h2server({}, (stream, headers) => {
      const want = sent.get(headers[':path'] as string)!;
      stream.respond({ ':status': 200, ...want.headers }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(want.trailers));
      stream.end('ok');
    });
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    for (let batch = 0; batch < 30; batch++) {
      const answers = Array.from({ length: 10 }, (_, i) => {
        const path = `/r${batch}-${i}`;
        // Repeated names and values (indexed), new ones (inserted, evicting older ones), long ones.
        const headers = { 'x-shared': `v${batch % 3}`, [`x-new-${batch}-${i}`]: printable(20 + ((batch * 7 + i) % 180)), 'content-type': 'application/grpc' };
        const trailers = { 'grpc-status': String(i % 3), 'grpc-message': printable(i * 5) };
        sent.set(path, { headers, trailers });
        return request(s, path).then((a) => ({ a, headers, trailers }));
      });
      for (const { a, headers, trailers } of await Promise.all(answers)) {
        expect(a.headers).to.have.length(2);
        expect(a.headers[0]).to.include({ ':status': '200', ...headers });
        expect(a.headers[1]).to.deep.equal(trailers);
        expect(a.body.toString()).to.equal('ok');
        expect(a.stream.ended).to.equal(true);
      }
    }
  });

  it('sends a body larger than the peer\'s windows and frames in pieces it allows, and takes a 4 MiB answer', async () => {
    const port = await h2server({ settings: { initialWindowSize: 1000 } }, (stream) => {
      const hash = createHash('sha256');
      let n = 0;
      stream.on('data', (d: Buffer) => { hash.update(d); n += d.length; });
      stream.on('end', () => {
        stream.respond({ ':status': 200, 'x-length': String(n), 'x-sha': hash.digest('hex') });
        stream.end(Buffer.alloc(4 << 20, 0x61));
      });
    });
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    const body = randomBytes(300_000);
    const answers = await Promise.all([request(s, '/a', body), request(s, '/b', body.subarray(0, 70_000))]);
    expect(answers[0].headers[0]).to.include({ 'x-length': '300000', 'x-sha': createHash('sha256').update(body).digest('hex') });
    expect(answers[1].headers[0]).to.include({ 'x-length': '70000' });
    for (const a of answers) expect(a.body.equals(Buffer.alloc(4 << 20, 0x61))).to.equal(true);
  });

  it('requests over the peer\'s stream limit wait their turn', async () => {
    let open = 0;
    let most = 0;
    const port = await h2server({ settings: { maxConcurrentStreams: 2 } }, (stream) => {
      most = Math.max(most, ++open);
      stream.on('close', () => { open--; });
      setTimeout(() => { stream.respond({ ':status': 200 }); stream.end('x'); }, 20);
    });
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => request(s, `/${i}`, Buffer.from('body'))));
    expect(answers.map((a) => a.body.toString())).to.deep.equal(Array(12).fill('x'));
    expect(most).to.equal(2);
  });

  it('a stream the peer resets closes with its code; an answer without a body (trailers only) ends it; the session carries on', async () => {
    const port = await h2server({}, (stream, headers) => {
      if (headers[':path'] === '/reset') stream.close(http2.constants.NGHTTP2_CANCEL);
      else stream.respond({ ':status': 200, 'grpc-status': '14', 'grpc-message': 'etcdserver: no leader' }, { endStream: true });
    });
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    const reset = await request(s, '/reset', Buffer.from('x'));
    expect(reset.stream.rstCode).to.equal(CANCEL);
    expect(reset.stream.ended).to.equal(false);
    const only = await request(s, '/trailers-only', Buffer.from('x'));
    expect(only.headers).to.have.length(1);
    expect(only.headers[0]).to.include({ 'grpc-status': '14', 'grpc-message': 'etcdserver: no leader' });
    expect(only.stream.ended).to.equal(true);
    expect(s.destroyed).to.equal(false);
  });

  it('GOAWAY: a stream the peer did not take is refused, the one it took finishes, new requests throw', async () => {
    let first: http2.ServerHttp2Stream | undefined;
    const port = await h2server({}, (stream) => {
      if (first) return;
      first = stream;
      stream.session!.goaway(http2.constants.NGHTTP2_NO_ERROR, stream.id!);
      setTimeout(() => { stream.respond({ ':status': 200 }); stream.end('done'); }, 50);
    });
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    const goaway = new Promise<number>((resolve) => s.once('goaway', (_code: number, last: number) => resolve(last)));
    const a = request(s, '/a', Buffer.from('x'));
    const b = request(s, '/b', Buffer.from('x'));
    expect(await goaway).to.equal(1);
    const refused = await b;
    expect(refused.stream.rstCode).to.equal(REFUSED_STREAM);
    expect(() => s.request(block('/c'), collect().handler, undefined, true)).to.throw(/closing/);
    expect((await a).body.toString()).to.equal('done');
  });

  it('header blocks over 16 KiB both ways (CONTINUATION frames), and padded frames', async () => {
    const big = printable(40_000);
    const port = await h2server({ paddingStrategy: http2.constants.PADDING_STRATEGY_MAX }, (stream, headers) => {
      stream.respond({ ':status': 200, 'x-echo-length': String((headers['x-big'] as string).length), 'x-big-answer': big });
      stream.end('padded');
    });
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    const a = await request(s, '/big', undefined, [['x-big', big]]);
    expect(a.headers[0]['x-echo-length']).to.equal('40000');
    expect(a.headers[0]['x-big-answer']).to.equal(big);
    expect(a.body.toString()).to.equal('padded');
  });

  it('answers the peer\'s PING', async () => {
    const port = await h2server({}, () => undefined);
    const s = await connected(port);
    cleanups.push(() => s.destroy());
    const [serverSession] = [...servers.at(-1)!];
    const ms = await new Promise<number>((resolve, reject) => {
      serverSession.ping((err, duration) => (err ? reject(err) : resolve(duration)));
    });
    expect(ms).to.be.a('number');
    expect(s.destroyed).to.equal(false);
  });

  it('a dropped connection closes open streams, the session destroyed', async () => {
    const sockets: net.Socket[] = [];
    const port = await h2server({}, () => { for (const socket of sockets) socket.destroy(); });
    lastServer!.on('connection', (socket: net.Socket) => sockets.push(socket));
    const s = await connected(port);
    const closed = new Promise<void>((resolve) => s.once('close', resolve));
    const a = await request(s, '/a', Buffer.from('x'));
    expect(a.stream.ended).to.equal(false);
    expect(s.destroyed).to.equal(true);
    await closed;
  });

  it('with a bounded stream window, a paused stream holds the peer back until resume()', async () => {
    const port = await h2server({}, (stream) => {
      stream.respond({ ':status': 200 });
      stream.end(Buffer.alloc(1 << 20, 0x62));
    });
    const s = new H2Session({ host: '127.0.0.1', port, streamWindow: 65_536 });
    cleanups.push(() => s.destroy());
    let received = 0;
    let closed!: () => void;
    const done = new Promise<void>((r) => { closed = r; });
    const stream = s.request(block('/big'), {
      onHeaders: (st) => st.pause(),
      onData: (_st, d) => { received += d.length; },
      onClose: () => closed(),
    }, undefined, true);
    await new Promise((r) => setTimeout(r, 300));
    expect(received).to.be.at.most(65_536);
    stream.resume();
    await done;
    expect(received).to.equal(1 << 20);
    expect(stream.ended).to.equal(true);
  });

  describe('a peer that breaks the protocol', () => {
    /** A raw peer: reads the preface, then writes `frames`; resolves with the frames it got back. */
    async function rawPeer(frames: Buffer[]): Promise<{ port: number; received: Promise<Buffer> }> {
      let resolve!: (b: Buffer) => void;
      const received = new Promise<Buffer>((r) => { resolve = r; });
      const server = net.createServer((socket) => {
        const chunks: Buffer[] = [];
        let wrote = false;
        socket.on('data', (d) => {
          chunks.push(d);
          if (!wrote && Buffer.concat(chunks).length >= PREFACE.length) {
            wrote = true;
            socket.write(Buffer.concat(frames));
          }
        });
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        socket.on('error', () => undefined);
      });
      cleanups.push(() => server.close());
      return { port: await listen(server), received };
    }

    /** The GOAWAY frames in what the client sent: their error codes. */
    function goawayCodes(bytes: Buffer): number[] {
      const codes: number[] = [];
      for (let pos = PREFACE.length; pos + FRAME_HEADER <= bytes.length;) {
        const length = bytes.readUIntBE(pos, 3);
        if (bytes[pos + 3] === GOAWAY) codes.push(bytes.readUInt32BE(pos + FRAME_HEADER + 4));
        pos += FRAME_HEADER + length;
      }
      return codes;
    }

    it('a header list over maxHeaderListSize resets its stream with the reason; the session goes on', async () => {
      const big = encodeHeaderBlock([[':status', '200'], ['x-big', 'a'.repeat(20_000)]]);
      const small = encodeHeaderBlock([[':status', '200']]);
      const peer = await rawPeer([settingsFrame([]), frameOf(HEADERS, 0x4, 1, big), frameOf(HEADERS, 0x5, 3, small)]);
      const s = new H2Session({ host: '127.0.0.1', port: peer.port, maxHeaderListSize: 8192 });
      cleanups.push(() => s.destroy());
      const first = collect();
      const second = collect();
      s.request(block('/big'), first.handler, Buffer.from('x'), true);
      s.request(block('/small'), second.handler, Buffer.from('x'), true);
      const a = await first.done;
      expect(a.stream.rstCode).to.equal(CANCEL);
      expect(a.stream.cutReason).to.equal('a header list larger than 8192 bytes');
      expect(a.headers).to.deep.equal([]);
      const b = await second.done;
      expect(b.headers[0]).to.include({ ':status': '200' });
      expect(b.stream.ended).to.equal(true);
      expect(s.destroyed).to.equal(false);
    });

    for (const [name, frame, code, message] of [
      ['a PUSH_PROMISE, push being disabled', frameOf(PUSH_PROMISE, 0x4, 1, Buffer.from('0000000282', 'hex')), PROTOCOL_ERROR, /PUSH_PROMISE/],
      ['a header block that cannot be decoded', frameOf(HEADERS, 0x5, 1, Buffer.from('ff7f', 'hex')), COMPRESSION_ERROR, /undecodable header block/],
      ['a CONTINUATION flood', Buffer.concat([frameOf(HEADERS, 0x1, 1, Buffer.from('88', 'hex')), ...Array.from({ length: 100 }, () => frameOf(CONTINUATION, 0, 1, Buffer.alloc(8, 0x40)))]), ENHANCE_YOUR_CALM, /a header block too large/],
    ] as Array<[string, Buffer, number, RegExp]>) {
      it(`${name}: GOAWAY with the error code, the session destroyed with the reason`, async () => {
        const peer = await rawPeer([settingsFrame([]), frame]);
        const s = new H2Session({ host: '127.0.0.1', port: peer.port });
        const { handler, done } = collect();
        s.request(block('/x'), handler, Buffer.from('x'), true);
        const answer = await done;
        expect(answer.stream.session.destroyed).to.equal(true);
        expect(s.error?.message).to.match(message);
        expect(goawayCodes(await peer.received)).to.deep.equal([code]);
      });
    }
  });
});
