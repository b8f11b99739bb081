/**
 * The server's own HTTP/1.1 side (lib/http1, --http1-server=own, the default) against a real
 * server on a real etcd, with a raw TLS client that writes request bytes itself and reads the
 * responses off the wire:
 *  - keep-alive and pipelining: requests sent in one write are answered in order on one
 *    connection; header names canonical (Go's); HEAD keeps the framing of the next response;
 *  - request bodies by Content-Length and chunked (extensions, trailers), Expect: 100-continue;
 *  - what is refused, with the store untouched and the connection closed after the answer:
 *    Content-Length with Transfer-Encoding, a repeated Content-Length, a coding other than
 *    chunked (request smuggling), malformed request lines and fields, a bad chunk, an
 *    expectation other than 100-continue (417), a chunked body over 3 MiB (413);
 *  - Connection: close from the client, HTTP/1.0 with and without keep-alive, a body the handler
 *    did not read (small: dropped and the connection kept; large: the connection closed);
 *  - a watch: chunked, and released when its client goes away; close-delimited over HTTP/1.0.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { expect } from 'chai';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { signClientCertificate } from '../../lib/server/pki';

const NS = 'h1own';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

interface Response {
  status: number;
  statusLine: string;
  /** Field names as sent, in order. */
  rawNames: string[];
  /** Lower-case names; repeated fields joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** A raw HTTP/1.1 connection over TLS: bytes in, responses parsed off the wire in order. */
class Raw1 {
  private buf = Buffer.alloc(0);
  closed = false;
  private waiters: Array<() => void> = [];

  private constructor(readonly sock: tls.TLSSocket) {
    sock.on('data', (d: Buffer) => { this.buf = Buffer.concat([this.buf, d]); this.wake(); });
    sock.on('close', () => { this.closed = true; this.wake(); });
    sock.on('error', () => undefined);
  }

  static connect(port: number, creds: { ca: string; cert: string; key: string }): Promise<Raw1> {
    return new Promise((resolve, reject) => {
      const sock = tls.connect({ host: '127.0.0.1', port, ...creds, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => resolve(new Raw1(sock)));
      sock.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private async until(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; have ${JSON.stringify(this.buf.toString('latin1').slice(0, 300))}`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 50); });
    }
  }

  write(bytes: string | Buffer): void {
    this.sock.write(bytes);
  }

  /** Resolves once the server has closed the connection. */
  async closedByServer(ms = 5_000): Promise<void> {
    await this.until(() => this.closed, 'the server to close', ms);
  }

  /** All bytes the server sent that no response() took. */
  rest(): string {
    return this.buf.toString('latin1');
  }

  /**
   * The next response. `head`: the request was HEAD (no body whatever the length says);
   * `untilClose`: a body without length or chunking runs to the end of the connection.
   */
  async response(opts: { head?: boolean } = {}): Promise<Response> {
    await this.until(() => this.buf.indexOf('\r\n\r\n') >= 0 || this.closed, 'a response head');
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`connection closed without a response: ${JSON.stringify(this.rest())}`);
    const lines = this.buf.toString('latin1', 0, end).split('\r\n');
    this.buf = this.buf.subarray(end + 4);
    const statusLine = lines[0];
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    const rawNames: string[] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon);
      rawNames.push(name);
      const key = name.toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
    let body = Buffer.alloc(0);
    if (opts.head || status < 200 || status === 204 || status === 304) {
      // no body
    } else if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      await this.until(() => this.buf.length >= n || this.closed, 'a body');
      body = this.buf.subarray(0, n);
      this.buf = this.buf.subarray(n);
    } else if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        await this.until(() => this.buf.indexOf('\r\n') >= 0 || this.closed, 'a chunk size');
        const eol = this.buf.indexOf('\r\n');
        const size = parseInt(this.buf.toString('latin1', 0, eol), 16);
        await this.until(() => this.buf.length >= eol + 2 + size + 2 || this.closed, 'a chunk');
        parts.push(this.buf.subarray(eol + 2, eol + 2 + size));
        this.buf = this.buf.subarray(eol + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      await this.until(() => this.closed, 'the end of a close-delimited body');
      body = this.buf;
      this.buf = Buffer.alloc(0);
    }
    return { status, statusLine, rawNames, headers, body };
  }

  close(): void {
    this.sock.destroy();
  }
}

const configMap = (name: string, value = 'v') => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: value } });
const post = (name: string, extra = '') => {
  const body = configMap(name);
  return `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
};
const get = (p: string, extra = '') => `GET ${p} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

describe('HTTP/1.1 server side (--http1-server=own): keep-alive, pipelining, bodies, refusals, watches', function () {
  this.timeout(60_000);
  let etcd: TestEtcd;
  let server: RunningServer;
  let dataDir: string;
  let creds: { ca: string; cert: string; key: string };
  const connect = () => Raw1.connect(server.port, creds);

  /** Whether a ConfigMap exists (a fresh connection, so a refused request's connection is not needed). */
  const exists = async (name: string) => {
    const c = await connect();
    try {
      c.write(get(`${CM}/${name}`));
      return (await c.response()).status === 200;
    } finally {
      c.close();
    }
  };

  before(async () => {
    etcd = await startTestEtcd();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-h1own-'));
    server = await startServer(parseFlags([`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error']));
    expect(parseFlags([]).http1Server, 'the default').to.equal('own');
    creds = { ca: server.pki.caCertPem, cert: readFileSync(server.pki.adminCertFile, 'utf8'), key: readFileSync(server.pki.adminKeyFile, 'utf8') };
    const c = await connect();
    try {
      const ns = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      c.write(`POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${ns.length}\r\n\r\n${ns}`);
      expect((await c.response()).status).to.equal(201);
    } finally {
      c.close();
    }
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers pipelined requests in order on one keep-alive connection, with canonical header names', async () => {
    const c = await connect();
    try {
      // Four requests in one write: a create, a read of it, a HEAD and a 404; then one more later.
      c.write(post('pipe1') + get(`${CM}/pipe1`) + `HEAD ${CM}/pipe1 HTTP/1.1\r\nHost: x\r\n\r\n` + get(`${CM}/nope`));
      const created = await c.response();
      expect(created.status).to.equal(201);
      expect(created.statusLine).to.equal('HTTP/1.1 201 Created');
      // Go's canonical names, as kube-apiserver writes them; no Connection header on a kept connection.
      expect(created.rawNames).to.include.members(['Audit-Id', 'Content-Type', 'Content-Length', 'Date']);
      expect(created.headers.connection).to.equal(undefined);
      expect(JSON.parse(created.body.toString()).metadata.name).to.equal('pipe1');
      const got = await c.response();
      expect(got.status).to.equal(200);
      expect(JSON.parse(got.body.toString()).metadata.name).to.equal('pipe1');
      const head = await c.response({ head: true });
      expect(head.status).to.equal(200);
      expect(Number(head.headers['content-length'])).to.equal(got.body.length);
      const missing = await c.response();
      expect(missing.status).to.equal(404);
      expect(JSON.parse(missing.body.toString())).to.include({ kind: 'Status', reason: 'NotFound' });
      c.write(get('/healthz'));
      const later = await c.response();
      expect([later.status, later.body.toString()]).to.deep.equal([200, 'ok']);
      expect(c.closed).to.equal(false);
    } finally {
      c.close();
    }
  });

  it('takes chunked request bodies (extensions, trailers) and answers Expect: 100-continue before the body', async () => {
    const c = await connect();
    try {
      const body = configMap('chunked1', 'x'.repeat(5000));
      const half = body.length >> 1;
      c.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
        + `${half.toString(16)};name=value\r\n${body.slice(0, half)}\r\n`
        + `${(body.length - half).toString(16).toUpperCase()}\r\n${body.slice(half)}\r\n0\r\nX-Trailer: t\r\n\r\n`);
      const created = await c.response();
      expect(created.status, created.body.toString()).to.equal(201);
      expect(JSON.parse(created.body.toString()).data.v).to.have.length(5000);

      const body2 = configMap('continue1');
      c.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body2.length}\r\nExpect: 100-continue\r\n\r\n`);
      const interim = await c.response();
      expect(interim.statusLine).to.equal('HTTP/1.1 100 Continue');
      c.write(body2);
      expect((await c.response()).status).to.equal(201);
      expect(await exists('continue1')).to.equal(true);
    } finally {
      c.close();
    }
  });

  describe('refuses what it cannot take safely, leaving the store untouched and closing the connection', () => {
    const body = (name: string) => configMap(name);
    const cases: Array<[string, (name: string) => string, number]> = [
      ['Content-Length beside Transfer-Encoding', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n${body(n).length.toString(16)}\r\n${body(n)}\r\n0\r\n\r\n`, 400],
      ['Content-Length twice', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body(n).length}\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 400],
      ['a transfer coding other than chunked', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${body(n).length.toString(16)}\r\n${body(n)}\r\n0\r\n\r\n`, 400],
      ['a negative Content-Length', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n${body(n)}`, 400],
      ['whitespace before a colon', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type : application/json\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 400],
      ['a folded header line', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n  ;charset=utf-8\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 400],
      ['a control character in a value', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\nContent-Type: application/json\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 400],
      ['a bare LF line end', (n) => `POST ${CM} HTTP/1.1\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 400],
      ['an unknown HTTP version', (n) => `POST ${CM} HTTP/1.7\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 400],
      ['a chunk size that is not hex', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${body(n)}\r\n0\r\n\r\n`, 400],
      ['an expectation other than 100-continue', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: ${body(n).length}\r\n\r\n${body(n)}`, 417],
      ['chunk extensions over 16 KiB', (n) => `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body(n).length.toString(16)};x=${'e'.repeat(20_000)}\r\n${body(n)}\r\n0\r\n\r\n`, 413],
    ];
    cases.forEach(([what, request, status], i) => it(`${what}: ${status}`, async () => {
      const name = `refused${i}`;
      const c = await connect();
      try {
        c.write(request(name));
        const r = await c.response();
        expect(r.status).to.equal(status);
        expect(r.headers.connection).to.equal('close');
        await c.closedByServer();
      } finally {
        c.close();
      }
      expect(await exists(name), 'the store is untouched').to.equal(false);
    }));
  });

  it('answers a chunked body over 3 MiB with a 413 Status and closes the connection', async () => {
    const c = await connect();
    try {
      c.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const piece = 'a'.repeat(256 << 10);
      // The prefix of a ConfigMap, then 3.5 MiB more in 256 KiB chunks; the server answers before the end.
      const prefix = '{"kind":"ConfigMap","data":{"v":"';
      c.write(`${prefix.length.toString(16)}\r\n${prefix}\r\n`);
      for (let i = 0; i < 14 && !c.closed; i++) c.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      const r = await c.response();
      expect(r.status, r.body.toString()).to.equal(413);
      expect(JSON.parse(r.body.toString())).to.include({ kind: 'Status', reason: 'RequestEntityTooLarge' });
      expect(r.headers.connection).to.equal('close');
      await c.closedByServer();
    } finally {
      c.close();
    }
  });

  it('closes after the response on Connection: close, and keeps an HTTP/1.0 connection only on keep-alive', async () => {
    const c = await connect();
    c.write(get('/healthz', 'Connection: close\r\n') + get('/healthz'));
    const r = await c.response();
    expect([r.status, r.headers.connection]).to.deep.equal([200, 'close']);
    await c.closedByServer();
    expect(c.rest(), 'the request after Connection: close is not answered').to.equal('');

    const old = await connect();
    old.write('GET /healthz HTTP/1.0\r\n\r\n');
    const r10 = await old.response();
    expect([r10.statusLine, r10.headers.connection]).to.deep.equal(['HTTP/1.1 200 OK', 'close']);
    await old.closedByServer();

    const kept = await connect();
    try {
      kept.write('GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
      const first = await kept.response();
      expect([first.status, first.headers.connection]).to.deep.equal([200, 'keep-alive']);
      kept.write('GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
      expect((await kept.response()).status).to.equal(200);
    } finally {
      kept.close();
    }
  });

  it('reads a DELETE body (DeleteOptions, as kubectl sends it) and keeps the connection, after a refused precondition too', async () => {
    const c = await connect();
    try {
      c.write(post('del-body'));
      const created = await c.response();
      expect(created.status).to.equal(201);
      const rv = JSON.parse(created.body.toString('utf8')).metadata.resourceVersion as string;
      const del = (resourceVersion: string) => {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } });
        return `DELETE ${CM}/del-body HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      };
      c.write(del(`${rv}0`));
      const refused = await c.response();
      expect([refused.status, JSON.parse(refused.body.toString('utf8')).reason, refused.headers.connection]).to.deep.equal([409, 'Conflict', undefined]);
      expect(await exists('del-body'), 'a refused precondition leaves the object').to.equal(true);
      c.write(del(rv));
      const deleted = await c.response();
      expect([deleted.status, deleted.headers.connection]).to.deep.equal([200, undefined]);
      // The same connection serves the next request: the body was read, not left in the stream.
      c.write(get(`${CM}/del-body`));
      expect((await c.response()).status).to.equal(404);
      expect(c.closed).to.equal(false);
    } finally {
      c.close();
    }
  });

  it('drops a small request body the handler did not read and serves on; closes the connection for a large one', async () => {
    // A user without rights is refused before its body is read.
    const noRights = { ...creds, ...signedAs('h1-nobody') };
    const small = configMap('unread-small');
    const c = await Raw1.connect(server.port, noRights);
    try {
      c.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${small.length}\r\n\r\n`);
      const r = await c.response();
      expect(r.status).to.equal(403);
      expect(r.headers.connection).to.equal(undefined);
      // The body follows the answer: dropped, and the next request is read after it.
      c.write(small + get('/healthz'));
      expect((await c.response()).status).to.equal(200);
    } finally {
      c.close();
    }
    const big = await Raw1.connect(server.port, noRights);
    try {
      big.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${2 << 20}\r\n\r\n{`);
      const r = await big.response();
      expect([r.status, r.headers.connection]).to.deep.equal([403, 'close']);
      await big.closedByServer();
    } finally {
      big.close();
    }
    expect(await exists('unread-small')).to.equal(false);
  });

  it('streams a watch as chunks and releases it when the client goes away; over HTTP/1.0 the watch ends with the connection', async () => {
    const watchers = async () => {
      const c = await connect();
      try {
        c.write(get('/metrics'));
        const body = (await c.response()).body.toString();
        const line = body.split('\n').find((l) => l.startsWith('apiserver_longrunning_requests{') && l.includes('verb="WATCH"') && l.includes('resource="configmaps"'));
        return line ? Number(line.split(' ').pop()) : 0;
      } finally {
        c.close();
      }
    };
    const before = await watchers();
    const w = await connect();
    w.write(get(`${CM}?watch=1&resourceVersion=0`));
    // The head comes at once, before any event (flushHeaders).
    await eventually(async () => w.rest().includes('\r\n\r\n'), 5_000, 50);
    expect(w.rest()).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(w.rest()).to.include('Transfer-Encoding: chunked\r\n');
    const c = await connect();
    c.write(post('watched1'));
    expect((await c.response()).status).to.equal(201);
    c.close();
    await eventually(async () => w.rest().includes('"name":"watched1"'), 5_000, 50);
    await eventually(async () => (await watchers()) === before + 1, 10_000, 100);
    w.close();
    await eventually(async () => (await watchers()) === before, 10_000, 100);

    const old = await connect();
    try {
      old.write(`GET ${CM}?watch=1&resourceVersion=0 HTTP/1.0\r\n\r\n`);
      await eventually(async () => old.rest().includes('"name":"watched1"'), 5_000, 50);
      expect(old.rest()).to.not.include('Transfer-Encoding');
      expect(old.rest()).to.include('Connection: close\r\n');
    } finally {
      old.close();
    }
  });

  it('serves node:https clients (keep-alive agent, large chunked responses)', async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ...creds });
    try {
      const request = (method: string, p: string, body?: string) => new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
        const req = https.request(`${server.url}${p}`, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
        });
        req.on('error', reject);
        req.end(body);
      });
      for (let i = 0; i < 30; i++) expect((await request('POST', CM, configMap(`agent${i}`, 'z'.repeat(4000)))).status).to.equal(201);
      const list = await request('GET', `${CM}?limit=500`);
      expect(list.status).to.equal(200);
      expect(JSON.parse(list.body).items.filter((o: { metadata: { name: string } }) => o.metadata.name.startsWith('agent'))).to.have.length(30);
      const table = await request('GET', CM);
      expect(table.status).to.equal(200);
    } finally {
      agent.destroy();
    }
  });

  /** A client certificate for a user in no group with rights. */
  function signedAs(user: string): { cert: string; key: string } {
    const id = signClientCertificate(server.pki, { commonName: user, organizations: [] });
    return { cert: id.certPem, key: id.keyPem };
  }
});
