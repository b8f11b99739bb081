/**
 * The server's own HTTP/2 side (lib/http2, --http2-server=own) against a real server on a
 * real etcd, with node:http2's client and a raw client that writes frames itself
 * (test/helpers/raw-h2.ts):
 *  - flow control both ways: a request body larger than the stream window arrives whole (the
 *    server opens its windows as it reads); a response is cut to the client's window and
 *    resumes on each WINDOW_UPDATE; a body over 3 MiB gets 413 and the session serves on;
 *  - malformed requests (RFC 9113 8.2, 8.3) reset with PROTOCOL_ERROR, the session serving on;
 *  - connection errors end the session with GOAWAY and the code RFC 9113 names (COMPRESSION_ERROR,
 *    FRAME_SIZE_ERROR, PROTOCOL_ERROR), the server serving other clients;
 *  - PING answered with its payload; padded HEADERS and DATA, and request trailers, taken; a
 *    client that floods PINGs without reading the acknowledgements loses its session;
 *  - a response header block over the client's frame size goes out as HEADERS + CONTINUATION;
 *  - a header sent twice keeps both values (Impersonate-Group twice: two groups);
 *  - a watch the client resets is released by the server.
 */
import http2 from 'node:http2';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { FRAME, H2_ERROR, literalHeaderBlock, RawH2, requestHeaderBlock } from '../helpers/raw-h2';
import { HpackDecoder } from '../../lib/http2/hpack';

const NS = 'h2own';

describe('HTTP/2 server side (--http2-server=own): flow control, request checks, protocol errors', function () {
  this.timeout(60_000);
  let etcd: TestEtcd;
  let server: RunningServer;
  let dataDir: string;
  let creds: { ca: string; cert: string; key: string };
  let authority: string;

  /** One request on a node:http2 session; resolves with status, headers and body. */
  const h2request = (s: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: Buffer | string) =>
    new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = s.request(headers);
      let h: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      req.on('response', (rh) => { h = rh; });
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve({ status: Number(h[':status']), headers: h, body: Buffer.concat(chunks) }));
      req.on('error', reject);
      req.end(body);
    });
  const h1healthz = () => new Promise<number>((resolve) => {
    const req = https.request(`${server.url}/healthz`, { ...creds, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
  const configMap = (name: string, value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: value } });
  const cmPath = `/api/v1/namespaces/${NS}/configmaps`;

  before(async () => {
    etcd = await startTestEtcd();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-h2own-'));
    server = await startServer(parseFlags([`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error', '--http2-server=own']));
    creds = { ca: server.pki.caCertPem, cert: readFileSync(server.pki.adminCertFile, 'utf8'), key: readFileSync(server.pki.adminKeyFile, 'utf8') };
    authority = new URL(server.url).host;
    const s = http2.connect(server.url, creds);
    try {
      const r = await h2request(s, { ':method': 'POST', ':path': '/api/v1/namespaces', 'content-type': 'application/json' },
        JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
      expect(r.status).to.equal(201);
    } finally {
      s.close();
    }
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes a request body larger than its windows whole, and answers a body over 3 MiB with 413, serving on', async () => {
    const s = http2.connect(server.url, creds);
    try {
      // 1 MiB: four times the 256 KiB stream window the server announces.
      const value = 'abcdefghij'.repeat(100 << 10);
      const created = await h2request(s, { ':method': 'POST', ':path': cmPath, 'content-type': 'application/json' }, configMap('big', value));
      expect(created.status, created.body.toString()).to.equal(201);
      const got = await h2request(s, { ':path': `${cmPath}/big` });
      expect(JSON.parse(got.body.toString()).data.v).to.equal(value);
      const tooLarge = await h2request(s, { ':method': 'POST', ':path': cmPath, 'content-type': 'application/json' }, configMap('huge', 'x'.repeat(3_500_000)));
      expect(tooLarge.status).to.equal(413);
      expect(JSON.parse(tooLarge.body.toString())).to.include({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
      const after = await h2request(s, { ':path': '/healthz' });
      expect(after.status).to.equal(200);
      const missing = await h2request(s, { ':path': `${cmPath}/huge` });
      expect(missing.status).to.equal(404);
    } finally {
      s.close();
    }
  });

  it('cuts a response to the client\'s window and resumes it on each WINDOW_UPDATE', async () => {
    const s = http2.connect(server.url, creds);
    try {
      for (let i = 0; i < 20; i++) {
        const r = await h2request(s, { ':method': 'POST', ':path': cmPath, 'content-type': 'application/json' }, configMap(`w${i}`, 'y'.repeat(4000)));
        expect(r.status).to.equal(201);
      }
    } finally {
      s.close();
    }
    // A client with a 1000-byte stream window that gives nothing back by itself.
    const c = await RawH2.connect(server.url, creds, { settings: [[0x4, 1000]], keepData: true, manualWindow: true });
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const id = c.streamId();
      await c.write(c.headersFrames(id, requestHeaderBlock('GET', cmPath, authority)));
      await c.until(() => c.body(id).length >= 1000, 10_000, 'the first 1000 bytes');
      await new Promise((r) => setTimeout(r, 300));
      expect(c.body(id).length, 'bytes past the window').to.equal(1000);
      expect(c.ended(id)).to.equal(false);
      // Open the stream's window in steps.
      const inc = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
      await c.send(FRAME.WINDOW_UPDATE, 0, id, inc(5000));
      await c.until(() => c.body(id).length >= 6000, 10_000, 'the next 5000 bytes');
      await new Promise((r) => setTimeout(r, 200));
      expect(c.body(id).length).to.equal(6000);
      // The list holds the 1 MiB ConfigMap of the first test too.
      await c.send(FRAME.WINDOW_UPDATE, 0, 0, inc(16 << 20));
      await c.send(FRAME.WINDOW_UPDATE, 0, id, inc(16 << 20));
      await c.until(() => c.ended(id), 10_000, 'the end of the list');
      const list = JSON.parse(c.body(id).toString());
      expect(list.items.filter((i: { metadata: { name: string } }) => i.metadata.name.startsWith('w'))).to.have.length(20);
    } finally {
      c.close();
    }
  });

  it('resets malformed requests with PROTOCOL_ERROR and serves the next stream', async () => {
    const c = await RawH2.connect(server.url, creds);
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const base: Array<[string, string]> = [[':method', 'GET'], [':scheme', 'https'], [':authority', authority]];
      const cases: Record<string, Array<[string, string]>> = {
        'no :path': base,
        'an upper-case name': [...base, [':path', '/healthz'], ['X-Upper', '1']],
        'a connection-specific field': [...base, [':path', '/healthz'], ['connection', 'keep-alive']],
        'a pseudo-header after a regular field': [[':method', 'GET'], ['accept', '*/*'], [':path', '/healthz'], [':scheme', 'https']],
        'an unknown pseudo-header': [...base, [':path', '/healthz'], [':protocol', 'x']],
        'a duplicate :path': [...base, [':path', '/healthz'], [':path', '/livez']],
        'te other than trailers': [...base, [':path', '/healthz'], ['te', 'gzip']],
      };
      const ids: Record<string, number> = {};
      for (const [name, fields] of Object.entries(cases)) {
        ids[name] = c.streamId();
        await c.write(c.headersFrames(ids[name], literalHeaderBlock(fields)));
      }
      const ok = c.streamId();
      await c.write(c.headersFrames(ok, requestHeaderBlock('GET', '/healthz', authority)));
      await c.until(() => c.ended(ok), 10_000, 'the valid request');
      const codes = Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, c.rstCode(id)]));
      expect(codes).to.deep.equal(Object.fromEntries(Object.keys(cases).map((n) => [n, H2_ERROR.PROTOCOL_ERROR])));
      for (const id of Object.values(ids)) expect(c.of(FRAME.HEADERS, id)).to.have.length(0);
      expect(c.of(FRAME.HEADERS, ok)[0].payload[0]).to.equal(0x88); // :status 200
      expect(c.goaway).to.equal(undefined);
    } finally {
      c.close();
    }
  });

  it('ends the session with GOAWAY and the RFC\'s error code on connection errors, serving other clients', async () => {
    const inc0 = Buffer.alloc(4);
    const cases: Array<{ name: string; code: number; act: (c: RawH2) => Promise<unknown> }> = [
      // Index 200: beyond the static table and the (empty) dynamic table.
      { name: 'an HPACK index beyond the table', code: H2_ERROR.COMPRESSION_ERROR, act: (c) => c.write(c.headersFrames(c.streamId(), Buffer.from([0xff, 0x49]))) },
      { name: 'a frame over SETTINGS_MAX_FRAME_SIZE', code: H2_ERROR.FRAME_SIZE_ERROR, act: (c) => c.send(FRAME.DATA, 0, 1, Buffer.alloc((256 << 10) + 1)) },
      { name: 'DATA on an idle stream', code: H2_ERROR.PROTOCOL_ERROR, act: (c) => c.send(FRAME.DATA, 0, 99, Buffer.from('x')) },
      { name: 'a connection WINDOW_UPDATE of 0', code: H2_ERROR.PROTOCOL_ERROR, act: (c) => c.send(FRAME.WINDOW_UPDATE, 0, 0, inc0) },
      { name: 'CONTINUATION without HEADERS', code: H2_ERROR.PROTOCOL_ERROR, act: (c) => c.send(FRAME.CONTINUATION, 0x4, 1, Buffer.from([0x82])) },
      { name: 'HEADERS on an even stream', code: H2_ERROR.PROTOCOL_ERROR, act: (c) => c.write(c.headersFrames(2, requestHeaderBlock('GET', '/healthz', authority))) },
      { name: 'a frame header announcing more than SETTINGS_MAX_FRAME_SIZE (no payload sent)', code: H2_ERROR.FRAME_SIZE_ERROR, act: (c) => {
        const head = Buffer.alloc(9);
        head.writeUIntBE(1 << 20, 0, 3); // a 1 MiB DATA frame on stream 1, of which only the header is sent
        head.writeUInt32BE(1, 5);
        return c.write(head);
      } },
      { name: 'a connection window over 2^31-1', code: H2_ERROR.FLOW_CONTROL_ERROR, act: (c) => { const b = Buffer.alloc(4); b.writeUInt32BE(0x7fffffff); return c.send(FRAME.WINDOW_UPDATE, 0, 0, b); } },
    ];
    const got: Record<string, number | undefined> = {};
    for (const t of cases) {
      const c = await RawH2.connect(server.url, creds);
      try {
        await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
        await t.act(c);
        await c.until(() => c.goaway !== undefined || c.closed, 10_000, t.name);
        got[t.name] = c.goaway?.errorCode;
      } finally {
        c.close();
      }
    }
    expect(got).to.deep.equal(Object.fromEntries(cases.map((t) => [t.name, t.code])));
    // Not HTTP/2 at all after ALPN h2: the connection is closed.
    const notH2 = await RawH2.connect(server.url, creds, { preface: Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n') });
    try {
      await notH2.until(() => notH2.closed, 10_000, 'a connection without the preface closed');
      expect(notH2.of(FRAME.HEADERS)).to.have.length(0);
    } finally {
      notH2.close();
    }
    expect(await h1healthz()).to.equal(200);
  });

  it('cuts a session whose client sends PINGs without reading the acknowledgements, serving others', async () => {
    const c = await RawH2.connect(server.url, creds);
    let sent = 0;
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      c.socket.pause(); // reads nothing from here on
      const ping = Buffer.concat(Array.from({ length: 10_000 }, () => Buffer.from('000008060000000000', 'hex')).flatMap((h) => [h, Buffer.alloc(8)]));
      // Up to 3 million PINGs (51 MB); the acknowledgements fill the socket buffers, then the
      // server's queue, and the session is cut past 10,000 queued control frames.
      const started = Date.now();
      while (sent < 3_000_000 && !c.socket.destroyed && Date.now() - started < 20_000) {
        if (!await c.write(ping)) break;
        sent += 10_000;
      }
      c.socket.resume();
      await c.until(() => c.closed, 15_000, 'the session cut');
      const acks = c.of(FRAME.PING).length;
      console.log(`      ${sent} PINGs written, ${acks} acknowledgements read before the cut`);
      expect(acks).to.be.below(sent);
    } finally {
      c.close();
    }
    expect(await h1healthz()).to.equal(200);
  });

  it('answers PING with its payload and takes padded HEADERS and DATA and request trailers', async () => {
    const c = await RawH2.connect(server.url, creds, { keepData: true });
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const payload = Buffer.from('8 bytes!');
      await c.send(FRAME.PING, 0, 0, payload);
      await c.until(() => c.of(FRAME.PING).some((f) => (f.flags & 0x1) !== 0), 5_000, 'the PING ACK');
      expect(c.of(FRAME.PING).find((f) => (f.flags & 0x1) !== 0)!.payload.equals(payload)).to.equal(true);

      const id = c.streamId();
      const block = requestHeaderBlock('POST', cmPath, authority, { 'content-type': 'application/json' });
      const pad = (n: number, body: Buffer) => Buffer.concat([Buffer.from([n]), body, Buffer.alloc(n)]);
      // HEADERS: PADDED (0x8) + END_HEADERS (0x4), no END_STREAM; the body in two padded DATA frames; trailers end it.
      await c.send(FRAME.HEADERS, 0x8 | 0x4, id, pad(7, block));
      const body = Buffer.from(configMap('padded', 'p'));
      await c.send(FRAME.DATA, 0x8, id, pad(3, body.subarray(0, 10)));
      await c.send(FRAME.DATA, 0x8, id, pad(200, body.subarray(10)));
      await c.send(FRAME.HEADERS, 0x4 | 0x1, id, literalHeaderBlock([['x-trailer', 'done']]));
      await c.until(() => c.ended(id), 10_000, 'the create');
      // :status 201: a literal with the static name index 8, length 3.
      expect(c.of(FRAME.HEADERS, id)[0].payload.subarray(0, 5).toString('latin1')).to.equal('\x08\x03201');
      expect(JSON.parse(c.body(id).toString()).metadata.name).to.equal('padded');
    } finally {
      c.close();
    }
  });

  it('splits a response header block larger than the client\'s frame size into CONTINUATION frames', async () => {
    // The server echoes a client's Audit-ID: 40,000 bytes of it make a block over 16,384 (the default frame size).
    const auditId = 'a1b2c3d4-'.repeat(4_000);
    const c = await RawH2.connect(server.url, creds);
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const id = c.streamId();
      await c.write(c.headersFrames(id, requestHeaderBlock('GET', '/healthz', authority, { 'audit-id': auditId })));
      await c.until(() => c.ended(id), 10_000, 'the response');
      const parts = c.frames.filter((f) => f.streamId === id && (f.type === FRAME.HEADERS || f.type === FRAME.CONTINUATION));
      expect(parts.map((f) => f.type)).to.deep.equal([FRAME.HEADERS, FRAME.CONTINUATION, FRAME.CONTINUATION]);
      expect(parts.map((f) => f.flags & 0x4)).to.deep.equal([0, 0, 0x4]); // END_HEADERS on the last only
      for (const f of parts) expect(f.payload.length).to.be.at.most(16_384);
      const fields = new HpackDecoder().fields(Buffer.concat(parts.map((f) => f.payload)));
      expect(fields[fields.indexOf('audit-id') + 1]).to.equal(auditId);
      expect(fields.slice(0, 2)).to.deep.equal([':status', '200']);
    } finally {
      c.close();
    }
  });

  it('keeps each value of a header sent twice (two Impersonate-Group fields: two groups)', async () => {
    const s = http2.connect(server.url, creds);
    try {
      const r = await h2request(s, {
        ':method': 'POST', ':path': `/apis/${server.naming.group('authentication')}/v1/selfsubjectreviews`, 'content-type': 'application/json',
        'impersonate-user': 'jane', 'impersonate-group': ['team-a', 'team-b'],
      }, JSON.stringify({ apiVersion: `${server.naming.group('authentication')}/v1`, kind: 'SelfSubjectReview' }));
      expect(r.status, r.body.toString()).to.equal(201);
      const user = JSON.parse(r.body.toString()).status.userInfo;
      expect(user.username).to.equal('jane');
      expect(user.groups).to.include.members(['team-a', 'team-b']);
    } finally {
      s.close();
    }
  });

  it('releases a watch the client resets', async () => {
    const watchers = async () => {
      const s = http2.connect(server.url, creds);
      try {
        const m = await h2request(s, { ':path': '/metrics' });
        const line = m.body.toString().split('\n').find((l) => l.startsWith('apiserver_longrunning_requests{') && l.includes('verb="WATCH"') && l.includes('resource="configmaps"'));
        return line ? Number(line.split(' ').pop()) : 0;
      } finally {
        s.close();
      }
    };
    const before = await watchers();
    const s = http2.connect(server.url, creds);
    try {
      const req = s.request({ ':path': `${cmPath}?watch=1` });
      await new Promise<void>((resolve, reject) => { req.on('response', () => resolve()); req.on('error', reject); });
      await eventually(async () => (await watchers()) === before + 1, 10_000, 100);
      req.close(http2.constants.NGHTTP2_CANCEL);
      await eventually(async () => (await watchers()) === before, 10_000, 100);
    } finally {
      s.close();
    }
  });
});
