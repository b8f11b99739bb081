/**
 * The listener's limits (lib/server/listener-options.ts) against a real server on a real etcd,
 * with clients that misbehave on purpose (test/helpers/raw-h2.ts writes HTTP/2 frames itself):
 *  - HTTP/2 SETTINGS announce 1000 streams, a 1 MiB header list and 256 KiB stream windows (the
 *    connection's: 1000 times that); 1000 watches are served on one session, and stream 1001,
 *    past the acknowledged limit, ends that session while others are served;
 *  - headers over 1 MiB: 431 on HTTP/1.1, the stream reset on HTTP/2; under it, served; an
 *    HTTP/1.1 head that cannot be taken is answered (431, 400) before an orderly close, so a
 *    client still sending reads the answer rather than a reset;
 *  - a slow-header HTTP/1.1 client (nothing, or half a request head) is closed after the
 *    head timeout (shortened to 1 s here; 32 s by default);
 *  - idle connections: an HTTP/1.1 keep-alive connection and an HTTP/2 session without streams
 *    are closed after the idle timeout (2 s here; 90 s by default), a session with a watch is not;
 *  - the rapid-reset pattern (HEADERS + RST_STREAM, many thousands on one session): the server
 *    stays up and keeps answering other clients' /healthz; what happened to the attacking session
 *    and the figures are printed.
 * Both HTTP/2 server sides are held to these: ours (--http2-server=own, the default) and
 * node:http2's (--http2-server=node).
 */
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { FRAME, H2_ERROR, RawH2, requestHeaderBlock } from '../helpers/raw-h2';

const execFileAsync = promisify(execFile);
const NS = 'h2limits';
const HEADERS_TIMEOUT_MS = 1_000;
const IDLE_TIMEOUT_MS = 2_000;

for (const impl of ['own', 'node'] as const) describe(`Listener limits (--http2-server=${impl}): HTTP/2 streams, header size, head and idle timeouts, rapid reset`, function () {
  this.timeout(180_000);
  let etcd: TestEtcd;
  let server: RunningServer;
  let dataDir: string;
  let creds: { ca: string; cert: string; key: string };
  let authority: string;

  /** An HTTP/1.1 request on a connection of its own; resolves with the status (or 0 when the connection failed). */
  const h1 = (urlPath: string, headers: Record<string, string> = {}) => new Promise<number>((resolve) => {
    const req = https.request(`${server.url}${urlPath}`, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });

  before(async () => {
    etcd = await startTestEtcd();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-h2limits-'));
    server = await startServer(parseFlags([`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error', `--http2-server=${impl}`]),
      { listener: { headersTimeoutMs: HEADERS_TIMEOUT_MS, idleTimeoutMs: IDLE_TIMEOUT_MS } });
    creds = { ca: server.pki.caCertPem, cert: readFileSync(server.pki.adminCertFile, 'utf8'), key: readFileSync(server.pki.adminKeyFile, 'utf8') };
    authority = new URL(server.url).host;
    const s = http2.connect(server.url, creds);
    await new Promise<void>((resolve, reject) => {
      const req = s.request({ ':method': 'POST', ':path': '/api/v1/namespaces', 'content-type': 'application/json' });
      req.on('response', (h) => { if (h[':status'] !== 201) reject(new Error(`namespace: ${h[':status']}`)); });
      req.on('end', resolve);
      req.resume();
      req.end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
    });
    s.close();
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it(`announces 1000 streams, a 1 MiB header list and 256 KiB windows, serves 1000 open watches on one session, and ${impl === 'own' ? 'refuses a stream past them' : 'ends a session that opens one more'}`, async () => {
    const c = await RawH2.connect(server.url, creds);
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      expect(c.serverSettings.get(0x3)).to.equal(1000); // SETTINGS_MAX_CONCURRENT_STREAMS
      expect(c.serverSettings.get(0x6)).to.equal(1 << 20); // SETTINGS_MAX_HEADER_LIST_SIZE
      expect(c.serverSettings.get(0x5)).to.equal(256 << 10); // SETTINGS_MAX_FRAME_SIZE
      // kube's upload buffers: 256 KiB per stream, and that times the stream limit per connection.
      expect(c.serverSettings.get(0x4)).to.equal(256 << 10); // SETTINGS_INITIAL_WINDOW_SIZE
      await c.until(() => c.of(FRAME.WINDOW_UPDATE, 0).length > 0, 5_000, 'the connection WINDOW_UPDATE');
      const connectionWindow = 65_535 + c.of(FRAME.WINDOW_UPDATE, 0).reduce((sum, f) => sum + (f.payload.readUInt32BE(0) & 0x7fffffff), 0);
      expect(connectionWindow).to.equal(1000 * (256 << 10));
      const watch = requestHeaderBlock('GET', `/api/v1/namespaces/${NS}/configmaps?watch=1`, authority);
      const ids = Array.from({ length: 1000 }, () => c.streamId());
      await c.write(Buffer.concat(ids.map((id) => c.headersFrames(id, watch))));
      // The 1000 watches are answered (200 HEADERS each) and none is reset.
      await c.until(() => new Set(c.of(FRAME.HEADERS).map((f) => f.streamId)).size >= 1000, 60_000, '1000 watch responses');
      expect(ids.filter((id) => c.rstCode(id) !== undefined)).to.deep.equal([]);
      const extra = c.streamId();
      await c.write(c.headersFrames(extra, watch));
      if (impl === 'own') {
        // Past the limit: a stream error (RFC 9113 5.1.2), REFUSED_STREAM so that the client may retry it; the 1000 watches go on.
        await c.until(() => c.rstCode(extra) !== undefined, 10_000, 'stream 1001 refused');
        expect(c.rstCode(extra)).to.equal(H2_ERROR.REFUSED_STREAM);
        expect(c.closed).to.equal(false);
        expect(c.goaway).to.equal(undefined);
      } else {
        // nghttp2 makes it a connection error once its SETTINGS are acknowledged: the session ends.
        await c.until(() => c.closed || c.goaway !== undefined, 10_000, 'the session ended');
      }
      expect(c.of(FRAME.HEADERS, extra)).to.have.length(0);
      console.log(`      stream 1001: GOAWAY ${JSON.stringify(c.goaway)}, RST_STREAM codes ${[...new Set(c.of(FRAME.RST_STREAM).map((f) => f.payload.readUInt32BE(0)))]}`);
    } finally {
      c.close();
    }
    // Other clients are served, and a well-behaved client with more requests than streams waits for a free one.
    expect(await h1('/healthz')).to.equal(200);
    const s = http2.connect(server.url, creds);
    try {
      const statuses = await Promise.all(Array.from({ length: 1100 }, () => new Promise<number>((resolve) => {
        const req = s.request({ ':path': '/healthz' });
        let code = 0;
        req.on('response', (h) => { code = Number(h[':status']); });
        req.on('end', () => resolve(code));
        req.on('error', () => resolve(-1));
        req.resume();
        req.end();
      })));
      expect(statuses.filter((x) => x !== 200)).to.deep.equal([]);
    } finally {
      s.close();
    }
  });

  it('answers headers over 1 MiB with 431 on HTTP/1.1 and a reset stream on HTTP/2, and serves them under it', async () => {
    expect(await h1('/healthz', { 'x-big': 'a'.repeat(512 << 10) })).to.equal(200);
    expect(await h1('/healthz', { 'x-big': 'a'.repeat(2 << 20) })).to.equal(431);

    // HTTP/2: 32 KiB fields (nghttp2 takes at most 64 KiB per field), 16 of them = 512 KiB, 64 = 2 MiB.
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-big-${i}`, 'a'.repeat(32 << 10)]));
    const c = await RawH2.connect(server.url, creds);
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const ok = c.streamId();
      await c.write(c.headersFrames(ok, requestHeaderBlock('GET', '/healthz', authority, fields(16))));
      await c.until(() => c.of(FRAME.HEADERS, ok).length > 0 || c.rstCode(ok) !== undefined || c.closed, 10_000, 'the 512 KiB request');
      expect(c.rstCode(ok)).to.equal(undefined);
      expect(c.of(FRAME.HEADERS, ok)[0].payload[0]).to.equal(0x88); // :status 200 (static index 8)
      const tooBig = c.streamId();
      await c.write(c.headersFrames(tooBig, requestHeaderBlock('GET', '/healthz', authority, fields(64))));
      await c.until(() => c.rstCode(tooBig) !== undefined || c.goaway !== undefined || c.closed, 10_000, 'the 2 MiB request refused');
      expect(c.of(FRAME.HEADERS, tooBig)).to.have.length(0);
      expect(c.rstCode(tooBig)).to.equal(H2_ERROR.ENHANCE_YOUR_CALM);
      // The session serves on.
      const after = c.streamId();
      await c.write(c.headersFrames(after, requestHeaderBlock('GET', '/healthz', authority)));
      await c.until(() => c.of(FRAME.HEADERS, after).length > 0 || c.closed, 10_000, 'a request after the refusal');
      expect(c.of(FRAME.HEADERS, after)).to.have.length(1);
    } finally {
      c.close();
    }
    // One field over 64 KiB: nghttp2's header decoder fails the whole session (COMPRESSION_ERROR);
    // ours takes it (the limit is on the list, as Go's); either way the server serves on.
    const single = await RawH2.connect(server.url, creds);
    try {
      await single.until(() => single.serverSettings.size > 0, 5_000, 'server SETTINGS');
      await single.write(single.headersFrames(single.streamId(), requestHeaderBlock('GET', '/healthz', authority, { 'x-big': 'a'.repeat(100 << 10) })));
      await single.until(() => single.goaway !== undefined || single.closed, 10_000, 'the session ended');
      console.log(`      HTTP/2 single 100 KiB header field: GOAWAY ${JSON.stringify(single.goaway)}`);
    } finally {
      single.close();
    }
    expect(await h1('/healthz')).to.equal(200);
  });

  it('answers an HTTP/1.1 head it cannot take (431, 400) and closes in order, so a client still sending reads the answer', async () => {
    // The client runs in a process of its own: in this one, the server's event loop would pace it.
    // Each request is a raw head on a new connection; the answer's first line is printed, or the error.
    const client = `
      const tls = require('node:tls');
      const [port, ca, cert, key] = [Number(process.env.PORT), process.env.CA, process.env.CERT, process.env.KEY];
      const send = (bytes) => new Promise((resolve) => {
        let received = '';
        const sock = tls.connect({ host: '127.0.0.1', port, ca, cert, key, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => sock.write(bytes, () => {}));
        sock.on('data', (d) => { received += d.toString('latin1'); });
        sock.on('error', (e) => { received += '[' + e.code + ']'; });
        sock.on('close', () => resolve(received.split('\\r\\n')[0] + (received.includes('[') ? ' ' + received.slice(received.indexOf('[')) : '')));
      });
      (async () => {
        const big = Buffer.from('GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nX-Big: ' + 'a'.repeat(2 << 20) + '\\r\\n\\r\\n');
        const bad = Buffer.concat([Buffer.from('GET /healthz HTTP/1.1\\r\\nNot a header line\\r\\n\\r\\n'), Buffer.alloc(2 << 20, 0x61)]);
        const out = [];
        for (let i = 0; i < 5; i++) out.push(await send(big), await send(bad));
        console.log(JSON.stringify(out));
      })();`;
    const { stdout } = await execFileAsync(process.execPath, ['-e', client], {
      env: { ...process.env, PORT: String(server.port), CA: creds.ca, CERT: creds.cert, KEY: creds.key }, maxBuffer: 1 << 20,
    });
    const answers = JSON.parse(stdout) as string[];
    // Before the orderly close, 86-90 in 100 of the 431s were lost to a reset (ECONNRESET).
    expect(answers).to.deep.equal(Array(5).fill(['HTTP/1.1 431 Request Header Fields Too Large', 'HTTP/1.1 400 Bad Request']).flat());
    expect(await h1('/healthz')).to.equal(200);
  });

  /** A TLS connection speaking HTTP/1.1 that sends `bytes` and then nothing; resolves with what came back and when it closed. */
  const slowClient = (bytes: string) => new Promise<{ closedAfterMs: number; received: string }>((resolve, reject) => {
    const started = Date.now();
    let received = '';
    const sock = tls.connect({ host: '127.0.0.1', port: server.port, ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => {
      if (bytes) sock.write(bytes);
    });
    sock.on('data', (d) => { received += d.toString('latin1'); });
    sock.on('close', () => resolve({ closedAfterMs: Date.now() - started, received }));
    sock.on('error', () => undefined);
    setTimeout(() => { sock.destroy(); reject(new Error('the server kept a slow-header connection for 20 s')); }, 20_000).unref();
  });

  it('closes an HTTP/1.1 connection whose request head is not complete within the head timeout', async () => {
    const silent = await slowClient('');
    const half = await slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    console.log(`      slow-header clients closed after ${silent.closedAfterMs} ms (nothing sent) and ${half.closedAfterMs} ms (half a head); limit ${HEADERS_TIMEOUT_MS} ms`);
    for (const c of [silent, half]) expect(c.closedAfterMs).to.be.within(HEADERS_TIMEOUT_MS - 100, 10_000);
    expect(silent.received).to.equal('');
    // Closed by the first-request timer (nothing written) or by Node's head timeout (408 first).
    expect(half.received).to.match(/^(HTTP\/1\.1 408 |)$/m);
  });

  it('closes idle connections: HTTP/1.1 keep-alive between requests, HTTP/2 sessions without a stream', async () => {
    // HTTP/1.1: one request, then silence.
    const h1Idle = await slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(h1Idle.received).to.match(/^HTTP\/1\.1 200 /);
    expect(h1Idle.closedAfterMs).to.be.within(IDLE_TIMEOUT_MS - 100, 15_000);

    // HTTP/2: no stream at all -> GOAWAY; a session holding a watch is kept until it ends.
    const started = Date.now();
    const idle = await RawH2.connect(server.url, creds);
    const busy = await RawH2.connect(server.url, creds);
    try {
      const w = busy.streamId();
      await busy.write(busy.headersFrames(w, requestHeaderBlock('GET', `/api/v1/namespaces/${NS}/configmaps?watch=1`, authority)));
      await idle.until(() => idle.goaway !== undefined || idle.closed, 15_000, 'GOAWAY to an idle session');
      const idleClosedMs = Date.now() - started;
      expect(idle.goaway?.errorCode).to.equal(H2_ERROR.NO_ERROR);
      expect(idleClosedMs).to.be.within(IDLE_TIMEOUT_MS - 100, 15_000);
      await new Promise((r) => setTimeout(r, IDLE_TIMEOUT_MS));
      expect(busy.goaway, 'a session with an open watch is not idle').to.equal(undefined);
      await busy.write(busy.rstFrame(w));
      await busy.until(() => busy.goaway !== undefined || busy.closed, 15_000, 'GOAWAY once the watch ended');
      console.log(`      idle HTTP/1.1 closed after ${h1Idle.closedAfterMs} ms, idle HTTP/2 session GOAWAY after ${idleClosedMs} ms (limit ${IDLE_TIMEOUT_MS} ms)`);
    } finally {
      idle.close();
      busy.close();
    }
  });

  it('survives a rapid-reset flood on one session and keeps answering other clients', async () => {
    const probe = http2.connect(server.url, creds);
    const latencies: number[] = [];
    const failures: string[] = [];
    let probing = true;
    const probes = (async () => {
      while (probing) {
        const started = performance.now();
        await new Promise<void>((resolve) => {
          const req = probe.request({ ':path': '/healthz' });
          req.on('response', (h) => { if (h[':status'] !== 200) failures.push(String(h[':status'])); });
          req.on('error', (e) => { failures.push(e.message); resolve(); });
          req.on('end', () => resolve());
          req.resume();
          req.end();
        });
        latencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    const attacker = await RawH2.connect(server.url, creds);
    await attacker.until(() => attacker.serverSettings.size > 0, 5_000, 'server SETTINGS');
    const block = requestHeaderBlock('GET', `/api/v1/namespaces/${NS}/configmaps`, authority);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let sent = 0;
    const TOTAL = 20_000;
    while (sent < TOTAL && !attacker.closed) {
      const batch: Buffer[] = [];
      for (let i = 0; i < 500 && sent < TOTAL; i++, sent++) {
        const id = attacker.streamId();
        batch.push(attacker.headersFrames(id, block), attacker.rstFrame(id));
      }
      if (!await attacker.write(Buffer.concat(batch))) break;
    }
    await attacker.until(() => attacker.closed || attacker.goaway !== undefined, 5_000, 'end of the flood').catch(() => undefined);
    const floodMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    await new Promise((r) => setTimeout(r, 500));
    probing = false;
    await probes;
    probe.close();
    attacker.close();

    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);
    const answered = new Set(attacker.of(FRAME.HEADERS).map((f) => f.streamId)).size;
    console.log(`      rapid reset: ${sent} HEADERS+RST_STREAM pairs written in ${floodMs.toFixed(0)} ms; `
      + `GOAWAY ${attacker.goaway ? `code ${attacker.goaway.errorCode} last stream ${attacker.goaway.lastStreamId}` : 'none'}, `
      + `session closed ${attacker.closed}, responses started ${answered}; process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms; `
      + `other client's /healthz: ${latencies.length} probes, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, failures ${failures.length}`);
    // Safe: the other client was always answered, and the server serves afterwards.
    expect(failures).to.deep.equal([]);
    expect(latencies.length).to.be.at.least(1);
    expect(await h1('/healthz')).to.equal(200);
    // The attacker either lost its session or had its streams cancelled: it did not get thousands of lists.
    expect(answered).to.be.below(sent);
  });
});
