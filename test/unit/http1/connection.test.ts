/**
 * The HTTP/1.1 connection's parser (lib/http1/connection.ts) on a socket stand-in: the same
 * pipelined requests (a Content-Length body, a chunked body with extensions and trailers, a
 * request without a body), cut into two reads at every byte and into one read per byte, give the
 * same requests, bodies and responses; a head that grows over many small reads is searched and
 * copied a bounded number of times (linear work, not a copy and a scan per read); a handler that
 * throws costs its connection, not the server; a malformed request (issue 37's smuggling repro,
 * each strictness rule) is answered once (400, 405 for CONNECT, 413) and nothing pipelined after
 * it reaches the handler.
 */
import { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';
import { expect } from 'chai';
import { H1Connection } from '../../../lib/http1/connection';
import { canonicalName } from '../../../lib/http1/response-head';
import { REFUSAL_ANSWERS } from '../../../lib/http1/protocol-error';
import type { ServerRequest, ServerResponse } from '../../../lib/http/messages';
import { listenerLimits } from '../../../lib/server/listener-options';

/** Enough of a TLS socket for the connection: reads are emitted as 'data', writes are collected. */
class FakeSocket extends EventEmitter {
  written: Buffer[] = [];
  writableLength = 0;
  writableEnded = false;
  destroyed = false;
  write(b: Buffer | string, cb?: () => void): boolean {
    this.written.push(Buffer.from(b));
    if (cb) process.nextTick(cb);
    return true;
  }
  end(b?: string): void {
    if (b) this.written.push(Buffer.from(b));
    this.writableEnded = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  pause(): void {}
  resume(): void {}
  cork(): void {}
  uncork(): void {}
  text(): string {
    return Buffer.concat(this.written).toString('latin1');
  }
}

interface Seen { method: string; url: string; headers: Record<string, unknown>; rawHeaders: string[]; body: string }

/** A connection whose handler echoes each request's body length; resolves the requests seen once `count` responses are written. */
function serve(reads: Buffer[], count: number): Promise<{ seen: Seen[]; out: string }> {
  const sock = new FakeSocket();
  const seen: Seen[] = [];
  let answered = 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${answered} of ${count} answered; wrote ${JSON.stringify(sock.text())}`)), 2_000);
    new H1Connection(sock as unknown as TLSSocket, listenerLimits({ http2MaxStreamsPerConnection: 0 }), (req: ServerRequest, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        seen.push({ method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders, body });
        res.setHeader('content-type', 'text/plain');
        res.setHeader('x-kubernetes-pf-flowschema-uid', 'u');
        res.end(`got ${body.length}`);
        res.on('finish', () => {
          if (++answered === count) {
            clearTimeout(timer);
            // Let the connection move to the next request before looking.
            setImmediate(() => resolve({ seen, out: sock.text().replace(/Date: [^\r]*\r\n/g, '') }));
          }
        });
      });
    });
    let i = 0;
    const feed = () => {
      // One read per turn, as a socket delivers them.
      if (i < reads.length) {
        sock.emit('data', reads[i++]);
        setImmediate(feed);
      }
    };
    feed();
  });
}

/** Feeds `bytes` in one read and looks once the connection has settled: the URLs the handler saw, what was written, whether the connection ended. */
async function settle(bytes: Buffer): Promise<{ urls: string[]; out: string; ended: boolean }> {
  const sock = new FakeSocket();
  const urls: string[] = [];
  new H1Connection(sock as unknown as TLSSocket, listenerLimits({ http2MaxStreamsPerConnection: 0 }), (req: ServerRequest, res: ServerResponse) => {
    urls.push(req.url);
    req.on('data', () => undefined);
    req.on('end', () => res.end('ok'));
  });
  sock.emit('data', bytes);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return { urls, out: sock.text(), ended: sock.writableEnded };
}

const BODY = '{"kind":"ConfigMap"}';
const PIPELINE = Buffer.from(
  `POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: ${BODY.length}\r\nX-Dup: 1\r\nx-dup: 2\r\nCookie: a=1\r\nCookie: b=2\r\nAuthorization: first\r\nAuthorization: second\r\n\r\n${BODY}`
  + 'PUT /b?q=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n'
  + 'GET /c HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');

describe('HTTP/1.1 connection parser (lib/http1)', () => {
  let expected: { seen: Seen[]; out: string };

  before(async () => {
    expected = await serve([PIPELINE], 3);
  });

  it('parses pipelined requests into Node\'s shapes and answers them in order with canonical names', () => {
    const { seen, out } = expected;
    expect(seen.map((s) => [s.method, s.url, s.body])).to.deep.equal([['POST', '/a', BODY], ['PUT', '/b?q=1', 'hello world'], ['GET', '/c', '']]);
    // Repeated fields joined, cookies with "; ", Authorization kept once (node:http's rules); rawHeaders as sent.
    expect(seen[0].headers).to.include({ 'x-dup': '1, 2', cookie: 'a=1; b=2', authorization: 'first', host: 'x' });
    expect(seen[0].rawHeaders.slice(0, 4)).to.deep.equal(['Host', 'x', 'Content-Length', String(BODY.length)]);
    const answer = (n: number) => `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Kubernetes-Pf-Flowschema-Uid: u\r\nContent-Length: ${`got ${n}`.length}\r\n\r\ngot ${n}`;
    expect(out).to.equal(answer(BODY.length) + answer(11) + answer(0));
  });

  it('gives the same requests and responses however the bytes are cut into reads', async function () {
    this.timeout(120_000);
    for (let cut = 1; cut < PIPELINE.length; cut++) {
      const got = await serve([PIPELINE.subarray(0, cut), PIPELINE.subarray(cut)], 3);
      expect(got.seen.map((s) => [s.method, s.url, s.body]), `cut at ${cut}`).to.deep.equal(expected.seen.map((s) => [s.method, s.url, s.body]));
      expect(got.out, `cut at ${cut}`).to.equal(expected.out);
    }
    const bytewise = await serve(Array.from(PIPELINE, (b) => Buffer.from([b])), 3);
    expect(bytewise.out).to.equal(expected.out);
  });

  it('gathers a head of ~1 MiB sent in 1,000-byte reads with linear work (bytes searched and copied)', async () => {
    const head = Buffer.from(`GET /big HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1_000_000)}\r\n\r\n`);
    const reads: Buffer[] = [];
    for (let i = 0; i < head.length; i += 1000) reads.push(head.subarray(i, i + 1000));
    // Count the bytes searched (indexOf from its offset) and copied while the connection gathers the head.
    const proto = Buffer.prototype as unknown as { indexOf: (...a: unknown[]) => number; copy: (...a: unknown[]) => number };
    const { indexOf, copy } = proto;
    let searched = 0;
    let copied = 0;
    proto.indexOf = function (this: Buffer, ...a: unknown[]) { searched += this.length - (typeof a[1] === 'number' ? a[1] : 0); return indexOf.apply(this, a); };
    proto.copy = function (this: Buffer, ...a: unknown[]) { const n = copy.apply(this, a); copied += n; return n; };
    let got: { seen: Seen[] };
    try {
      got = await serve(reads, 1);
    } finally {
      proto.indexOf = indexOf;
      proto.copy = copy;
    }
    expect(got.seen[0].url).to.equal('/big');
    expect((got.seen[0].headers['x-big'] as string).length).to.equal(1_000_000);
    // A copy and a search of everything so far per read would be ~500 MB each.
    console.log(`      1 MiB head in ${reads.length} reads: ${(searched / 1e6).toFixed(1)} MB searched, ${(copied / 1e6).toFixed(1)} MB copied`);
    expect(searched).to.be.below(3 * head.length);
    expect(copied).to.be.below(4 * head.length);
  });

  it('cuts the connection and reports a handler that throws, instead of letting the error escape', () => {
    const sock = new FakeSocket();
    const reported: Error[] = [];
    new H1Connection(sock as unknown as TLSSocket, listenerLimits({ http2MaxStreamsPerConnection: 0 }), () => { throw new Error('a bug'); }, (err) => reported.push(err));
    expect(() => sock.emit('data', Buffer.from('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'))).to.not.throw();
    expect(sock.destroyed).to.equal(true);
    expect(reported.map((e) => e.message)).to.deep.equal(['a bug']);
  });

  it('closes a kept connection the idle timeout after its last request, not after its first idle period began', async () => {
    const IDLE_MS = 400;
    const sock = new FakeSocket();
    let endedAt = 0;
    const end = sock.end.bind(sock);
    sock.end = (b?: string) => { endedAt ||= Date.now(); end(b); };
    new H1Connection(sock as unknown as TLSSocket, listenerLimits({ http2MaxStreamsPerConnection: 0 }, { idleTimeoutMs: IDLE_MS }), (_req: ServerRequest, res: ServerResponse) => {
      res.setHeader('content-length', '2');
      res.end('ok');
    });
    const request = () => sock.emit('data', Buffer.from('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'));
    request();
    await new Promise((r) => setTimeout(r, 250));
    request();
    // The answer's write callback runs on the next tick: the connection is idle again from then.
    await new Promise((r) => setImmediate(r));
    const lastIdle = Date.now();
    await new Promise((r) => setTimeout(r, IDLE_MS + 1_200));
    expect((sock.text().match(/HTTP\/1\.1 200 /g) ?? []).length).to.equal(2);
    expect(endedAt, 'closed for idleness').to.be.above(0);
    expect(endedAt - lastIdle).to.be.within(IDLE_MS - 20, IDLE_MS + 1_000);
  });

  it('skips empty lines (CRLF or a bare LF) before a request line, as llhttp does', async () => {
    const got = await serve([Buffer.from('\r\n\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n\n\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n')], 2);
    expect(got.seen.map((s) => s.url)).to.deep.equal(['/a', '/b']);
  });

  describe('answers a malformed request once, closes, and serves nothing pipelined after it', () => {
    const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
    const chunked = (body: string) => `POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`;
    const post = (fields: string, body = 'hello') => `POST /healthz HTTP/1.1\r\nHost: x\r\n${fields}\r\n${body}`;
    const rows: Array<[string, string, 400 | 413]> = [
      ['a bare LF in a chunk extension (issue 37)', chunked('5;a\nx\r\nhello\r\n0\r\n\r\n'), 400],
      ['a bare CR in a chunk extension', chunked('5;a\rx\r\nhello\r\n0\r\n\r\n'), 400],
      ['whitespace after a chunk size', chunked('5 \r\nhello\r\n0\r\n\r\n'), 400],
      ['whitespace in a chunk extension', chunked('5; a=b\r\nhello\r\n0\r\n\r\n'), 400],
      ['an unterminated quoted chunk extension', chunked('5;a="b\r\nhello\r\n0\r\n\r\n'), 400],
      ['a chunk not followed by CRLF', chunked('5\r\nhello\n0\r\n\r\n'), 400],
      ['a trailer line without a colon', chunked('5\r\nhello\r\n0\r\nX t\r\n\r\n'), 400],
      ['a folded trailer line', chunked('5\r\nhello\r\n0\r\nX: t\r\n u\r\n\r\n'), 400],
      ['Content-Length as a trailer field', chunked('5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n'), 400],
      ['over 16 KiB of chunk extensions on a line', chunked(`5;a=${'b'.repeat(16_384)}\r\nhello\r\n0\r\n\r\n`), 413],
      ['an unknown method', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['a lower-case method', 'get / HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['a non-ASCII byte in the target', 'GET /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['a control character in the target', 'GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['"*" for a method other than OPTIONS', 'GET * HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['an HTTP/0.9 request line', 'GET /\r\n\r\n', 400],
      ['a bare CR before a request line', '\rGET / HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['HTTP/2.0 in a request line', 'GET / HTTP/2.0\r\nHost: x\r\n\r\n', 400],
      ['HTTP/1.1 without Host', 'GET / HTTP/1.1\r\n\r\n', 400],
      ['two Host lines', 'GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n', 400],
      ['whitespace before a colon', 'GET / HTTP/1.1\r\nHost : x\r\n\r\n', 400],
      ['a folded header line', 'GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n', 400],
      ['a bare LF ending a field line', 'GET / HTTP/1.1\r\nHost: x\nX: y\r\n\r\n', 400],
      ['a vertical tab in a value', 'GET / HTTP/1.1\r\nHost: x\r\nX: a\x0bb\r\n\r\n', 400],
      ['Content-Length "5, 5"', post('Content-Length: 5, 5\r\n'), 400],
      ['Content-Length "+5"', post('Content-Length: +5\r\n'), 400],
      ['Content-Length twice', post('Content-Length: 5\r\nContent-Length: 5\r\n'), 400],
      ['Transfer-Encoding with Content-Length', post('Content-Length: 10\r\nTransfer-Encoding: chunked\r\n', '5\r\nhello\r\n0\r\n\r\n'), 400],
      ['Transfer-Encoding "chunked, chunked"', post('Transfer-Encoding: chunked, chunked\r\n', '5\r\nhello\r\n0\r\n\r\n'), 400],
      ['Transfer-Encoding "chunked" then a tab', post('Transfer-Encoding: chunked\t\r\n', '5\r\nhello\r\n0\r\n\r\n'), 400],
      ['Transfer-Encoding in HTTP/1.0', 'POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n', 400],
    ];
    rows.forEach(([what, bytes, status]) => it(`${what}: ${status}`, async () => {
      const got = await settle(Buffer.from(bytes + SMUGGLED, 'latin1'));
      expect(got.urls, 'requests the handler saw').to.not.include('/smuggled');
      expect(got.out).to.equal(REFUSAL_ANSWERS[status]);
      expect(got.ended, 'closed').to.equal(true);
    }));

    it('CONNECT: 405 with a Status body, never the handler', async () => {
      const got = await settle(Buffer.from(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n${SMUGGLED}`, 'latin1'));
      expect(got.urls).to.deep.equal([]);
      const [head, body] = got.out.split('\r\n\r\n');
      expect(head).to.equal(`HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close`);
      expect(JSON.parse(body)).to.deep.equal({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource',
        reason: 'MethodNotAllowed', details: {}, code: 405,
      });
      expect(got.ended).to.equal(true);
    });
  });

  it('writes field names as Go canonicalizes them', () => {
    expect(['content-type', 'audit-id', 'x-kubernetes-pf-prioritylevel-uid', 'WWW-AUTHENTICATE', 'warning'].map(canonicalName))
      .to.deep.equal(['Content-Type', 'Audit-Id', 'X-Kubernetes-Pf-Prioritylevel-Uid', 'Www-Authenticate', 'Warning']);
  });
});
