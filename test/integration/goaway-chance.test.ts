/**
 * --goaway-chance (kube-apiserver's WithProbabilisticGoaway) on both HTTP/2 server sides: at
 * 0.02, a client sending requests one after another on one HTTP/2 session is sent GOAWAY
 * (NO_ERROR) within 1,000 of them (0.98^1000 ≈ 2e-9 that it is not), every request up to the
 * GOAWAY's last stream is answered, and a watch open on that session goes on delivering events;
 * HTTP/1.1 keep-alive connections are never closed for it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { expect } from 'chai';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { FRAME, H2_ERROR, RawH2, requestHeaderBlock } from '../helpers/raw-h2';

const NS = 'default';

for (const impl of ['own', 'node'] as const) describe(`--goaway-chance (--http2-server=${impl})`, function () {
  this.timeout(60_000);
  let etcd: TestEtcd;
  let server: RunningServer;
  let dataDir: string;
  let creds: { ca: string; cert: string; key: string };

  before(async () => {
    etcd = await startTestEtcd();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-goaway-'));
    server = await startServer(parseFlags([`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error',
      '--goaway-chance=0.02', `--http2-server=${impl}`]));
    creds = { ca: server.pki.caCertPem, cert: readFileSync(server.pki.adminCertFile, 'utf8'), key: readFileSync(server.pki.adminKeyFile, 'utf8') };
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends an HTTP/2 client GOAWAY (NO_ERROR) at random; requests up to it are answered and an open watch goes on', async () => {
    const authority = new URL(server.url).host;
    const c = await RawH2.connect(server.url, creds, { keepData: true });
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const watch = c.streamId();
      await c.write(c.headersFrames(watch, requestHeaderBlock('GET', `/api/v1/namespaces/${NS}/configmaps?watch=1&resourceVersion=0`, authority)));
      await c.until(() => c.of(FRAME.HEADERS, watch).length > 0, 5_000, 'the watch response');
      const ids: number[] = [];
      while (c.goaway === undefined && ids.length < 1000 && !c.closed) {
        const id = c.streamId();
        ids.push(id);
        await c.write(c.headersFrames(id, requestHeaderBlock('GET', '/healthz', authority)));
        await c.until(() => c.ended(id) || c.goaway !== undefined || c.closed, 5_000, `request ${ids.length}`);
      }
      console.log(`      GOAWAY after ${ids.length} requests: ${JSON.stringify(c.goaway)}`);
      expect(c.goaway, 'GOAWAY within 1000 requests').to.not.equal(undefined);
      expect(c.goaway!.errorCode).to.equal(H2_ERROR.NO_ERROR);
      for (const id of ids.filter((i) => i <= c.goaway!.lastStreamId)) {
        await c.until(() => c.ended(id), 5_000, `stream ${id} answered`);
        expect(c.rstCode(id)).to.equal(undefined);
        expect(c.of(FRAME.HEADERS, id)[0].payload[0], `stream ${id}: 200`).to.equal(0x88);
      }
      // The watch is still served on the session that got GOAWAY.
      await new Promise<void>((resolve, reject) => {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `after-goaway-${impl}` } });
        const req = https.request(`${server.url}/api/v1/namespaces/${NS}/configmaps`, { method: 'POST', ...creds, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`create: ${res.statusCode}`))));
        });
        req.on('error', reject);
        req.end(body);
      });
      await c.until(() => c.body(watch).toString().includes(`after-goaway-${impl}`), 5_000, 'the event on the watch after GOAWAY');
      expect(c.ended(watch)).to.equal(false);
    } finally {
      c.close();
    }
  });

  it('never closes an HTTP/1.1 keep-alive connection for it', async () => {
    const count = 300;
    const sock = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: server.port, ...creds, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => resolve(s));
      s.once('error', reject);
    });
    try {
      let received = '';
      let closed = false;
      sock.on('data', (d: Buffer) => { received += d.toString('latin1'); });
      sock.on('close', () => { closed = true; });
      sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(count));
      const deadline = Date.now() + 20_000;
      while ((received.match(/HTTP\/1\.1 200 OK/g) ?? []).length < count && !closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect((received.match(/HTTP\/1\.1 200 OK/g) ?? []).length).to.equal(count);
      expect(received.toLowerCase()).to.not.include('connection: close');
      expect(closed).to.equal(false);
    } finally {
      sock.destroy();
    }
  });
});
