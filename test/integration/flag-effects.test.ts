/**
 * Flags set away from their defaults, each observed in effect on one server (real etcd):
 *  - --min-request-timeout=2: a watch without timeoutSeconds ends within [2 s, 4 s);
 *  - --service-account-jwks-uri: the issuer discovery document's jwks_uri is that URL;
 *  - --http2-max-streams-per-connection=5: SETTINGS_MAX_CONCURRENT_STREAMS is 5, and a sixth
 *    stream while five are open is refused (REFUSED_STREAM), the five going on;
 *  - --etcd-prefix: objects are kept under that prefix in etcd, and none under /registry;
 *  - --bind-address=127.0.0.2, --advertise-address, --external-hostname: the server listens on
 *    127.0.0.2 alone, and its generated serving certificate names all three;
 *  - --cluster-signing-cert-file / --cluster-signing-key-file: the built-in CSR signer signs with
 *    that CA, not the server's;
 *  - --shutdown-watch-termination-grace-period=1s: at shutdown, a watch whose client takes no
 *    data (a zero HTTP/2 window) is cut after about 1 s, not after the 10 s drain (last: it stops
 *    the server).
 * And on a server of its own, whose etcd is stopped: --livez-grace-period=1h keeps /livez passing
 * (its checks are not run) while /healthz fails.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { createTestCa, TestCa } from '../helpers/test-ca';
import { adminTarget, WatchClient } from '../helpers/watch-client';
import { FRAME, H2_ERROR, RawH2, requestHeaderBlock } from '../helpers/raw-h2';

const MIN_REQUEST_TIMEOUT_S = 2;
const JWKS_URI = 'https://keys.example.com/openid/v1/jwks';
const MAX_STREAMS = 5;
const WATCH_GRACE_MS = 1_000;
/** graceful-shutdown's drain timeout, which a grace period of 0 would leave the watch. */
const DRAIN_TIMEOUT_MS = 10_000;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const ETCD_PREFIX = '/flags-registry';
const BIND = '127.0.0.2';
const ADVERTISE = '10.11.12.13';
const EXTERNAL = 'api.flags.example';
const CSRS = '/apis/certificates.orch.io/v1/certificatesigningrequests';

/** The keys etcd holds under `prefix` (etcd's JSON gateway: keys are base64). */
async function etcdKeys(endpoint: string, prefix: string): Promise<string[]> {
  const b64 = (x: Buffer) => x.toString('base64');
  const end = Buffer.from(prefix);
  end[end.length - 1]++;
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST', body: JSON.stringify({ key: b64(Buffer.from(prefix)), range_end: b64(end), keys_only: true }),
  });
  const body = await res.json() as { kvs?: Array<{ key: string }> };
  return (body.kvs ?? []).map((kv) => Buffer.from(kv.key, 'base64').toString());
}

describe('flags in effect, set away from their defaults on one server', function () {
  this.timeout(60_000);
  let t: TestServer;
  let creds: { ca: string; cert: string; key: string };
  let authority: string;
  let dir: string;
  let signingCa: TestCa;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-flag-effects-'));
    signingCa = createTestCa('flags signing CA');
    writeFileSync(path.join(dir, 'signing.crt'), signingCa.certPem);
    writeFileSync(path.join(dir, 'signing.key'), signingCa.keyPem);
    t = await startTestServer([
      `--min-request-timeout=${MIN_REQUEST_TIMEOUT_S}`, `--service-account-jwks-uri=${JWKS_URI}`,
      `--http2-max-streams-per-connection=${MAX_STREAMS}`, `--shutdown-watch-termination-grace-period=${WATCH_GRACE_MS}ms`,
      `--etcd-prefix=${ETCD_PREFIX}`, `--bind-address=${BIND}`, `--advertise-address=${ADVERTISE}`, `--external-hostname=${EXTERNAL}`,
      `--cluster-signing-cert-file=${path.join(dir, 'signing.crt')}`, `--cluster-signing-key-file=${path.join(dir, 'signing.key')}`,
    ]);
    creds = { ca: t.server.pki.caCertPem, cert: readFileSync(t.server.pki.adminCertFile, 'utf8'), key: readFileSync(t.server.pki.adminKeyFile, 'utf8') };
    authority = new URL(t.server.url).host;
  });
  after(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('--min-request-timeout=2: watches without timeoutSeconds end after a random time in [2 s, 4 s)', async () => {
    const watches = [1, 2, 3].map(() => new WatchClient(adminTarget(t.server), `${CONFIGMAPS}?watch=1`));
    try {
      for (const w of watches) expect((await w.response()).statusCode).to.equal(200);
      const endedAt = await Promise.all(watches.map(async (w) => { await w.waitEnded(2 * MIN_REQUEST_TIMEOUT_S * 1000 + 5_000); return Date.now(); }));
      watches.forEach((w, i) => {
        // The server's timer starts after the request was sent and before the response headers came.
        const atLeast = endedAt[i] - w.openedAt;
        const atMost = endedAt[i] - w.headersAt;
        expect(atLeast, `watch ${i}`).to.be.at.least(MIN_REQUEST_TIMEOUT_S * 1000);
        expect(atMost, `watch ${i}`).to.be.below(2 * MIN_REQUEST_TIMEOUT_S * 1000);
        expect(w.errorBody).to.equal(undefined);
        expect(w.junk).to.deep.equal([]);
      });
    } finally {
      for (const w of watches) w.close();
    }
  });

  it('--service-account-jwks-uri: the issuer discovery document points at that URL', async () => {
    const r = await t.get('/.well-known/openid-configuration');
    expect(r.status).to.equal(200);
    expect(r.body.jwks_uri).to.equal(JWKS_URI);
    // The keys are still served here too, for whoever fronts them at that URL.
    expect((await t.get('/openid/v1/jwks')).status).to.equal(200);
  });

  it('--http2-max-streams-per-connection=5: announces 5 streams and refuses a sixth while five are open', async () => {
    const c = await RawH2.connect(t.server.url, creds);
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      expect(c.serverSettings.get(0x3)).to.equal(MAX_STREAMS); // SETTINGS_MAX_CONCURRENT_STREAMS
      // timeoutSeconds keeps them open past --min-request-timeout.
      const watch = requestHeaderBlock('GET', `${CONFIGMAPS}?watch=1&timeoutSeconds=60`, authority);
      const ids = Array.from({ length: MAX_STREAMS }, () => c.streamId());
      await c.write(Buffer.concat(ids.map((id) => c.headersFrames(id, watch))));
      await c.until(() => new Set(c.of(FRAME.HEADERS).map((f) => f.streamId)).size >= MAX_STREAMS, 10_000, `${MAX_STREAMS} watch responses`);
      const extra = c.streamId();
      await c.write(c.headersFrames(extra, watch));
      await c.until(() => c.rstCode(extra) !== undefined, 10_000, 'the sixth stream refused');
      expect(c.rstCode(extra)).to.equal(H2_ERROR.REFUSED_STREAM);
      expect(c.of(FRAME.HEADERS, extra)).to.have.length(0);
      expect(ids.filter((id) => c.rstCode(id) !== undefined || c.ended(id))).to.deep.equal([]);
      expect(c.closed).to.equal(false);
    } finally {
      c.close();
    }
  });

  it('--etcd-prefix: objects are kept under that prefix in etcd, none under /registry', async () => {
    expect((await t.post(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'prefixed' } })).status).to.equal(201);
    expect(await etcdKeys(t.etcdEndpoint, `${ETCD_PREFIX}/configmaps/default/`)).to.include(`${ETCD_PREFIX}/configmaps/default/prefixed`);
    expect(await etcdKeys(t.etcdEndpoint, '/registry/')).to.deep.equal([]);
  });

  it('--bind-address, --advertise-address, --external-hostname: listens on 127.0.0.2 alone; the serving certificate names all three', async () => {
    const { hostname, port } = new URL(t.server.url);
    expect(hostname).to.equal(BIND);
    const refused = await new Promise<string>((resolve) => {
      const sock = net.connect(Number(port), '127.0.0.1', () => { sock.destroy(); resolve('connected'); });
      sock.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).to.equal('ECONNREFUSED');
    const san = await new Promise<string>((resolve, reject) => {
      const sock = tls.connect({ host: BIND, port: Number(port), ca: creds.ca, servername: EXTERNAL }, () => {
        resolve(sock.getPeerCertificate().subjectaltname ?? '');
        sock.destroy();
      });
      sock.on('error', reject);
    });
    expect(san.split(', ')).to.include.members([`IP Address:${BIND}`, `IP Address:${ADVERTISE}`, `DNS:${EXTERNAL}`]);
  });

  it('--cluster-signing-cert-file / --cluster-signing-key-file: the built-in signer signs with that CA', async () => {
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'alice.key'), '-out', path.join(dir, 'alice.csr'),
      '-subj', '/CN=alice'], { stdio: 'ignore' });
    const request = readFileSync(path.join(dir, 'alice.csr')).toString('base64');
    const created = await t.post(CSRS, {
      apiVersion: 'certificates.orch.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'alice' },
      spec: { request, signerName: 'orch.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'] },
    });
    expect(created.status, created.text).to.equal(201);
    const approval = created.body;
    approval.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] };
    expect((await t.put(`${CSRS}/alice/approval`, approval)).status).to.equal(200);
    const signed: string = await eventually(async () => (await t.get(`${CSRS}/alice`)).body.status?.certificate);
    const cert = new X509Certificate(Buffer.from(signed, 'base64'));
    expect(cert.checkIssued(new X509Certificate(signingCa.certPem))).to.equal(true);
    expect(cert.checkIssued(new X509Certificate(t.server.pki.caCertPem))).to.equal(false);
  });

  it('--shutdown-watch-termination-grace-period=1s: at shutdown, a watch that cannot reach its client is cut after 1 s', async () => {
    expect((await t.post(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'grace' } })).status).to.equal(201);
    // A zero stream window: the watch's first event (the ConfigMap's ADDED) and its end wait for a WINDOW_UPDATE never sent.
    const c = await RawH2.connect(t.server.url, creds, { settings: [[0x4, 0]], manualWindow: true });
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const id = c.streamId();
      await c.write(c.headersFrames(id, requestHeaderBlock('GET', `${CONFIGMAPS}?watch=1&timeoutSeconds=60`, authority)));
      await c.until(() => c.of(FRAME.HEADERS, id).length > 0, 10_000, 'the watch response');
      expect(c.of(FRAME.DATA, id)).to.have.length(0);
      const started = Date.now();
      const stopped = t.server.stop();
      await c.until(() => c.rstCode(id) !== undefined || c.closed, DRAIN_TIMEOUT_MS + 5_000, 'the watch cut');
      const cutAfter = Date.now() - started;
      expect(c.ended(id), 'the watch cannot have ended cleanly').to.equal(false);
      expect(cutAfter, `cut after ${cutAfter} ms`).to.be.at.least(WATCH_GRACE_MS - 50).and.below(DRAIN_TIMEOUT_MS / 2);
      c.close();
      await stopped;
    } finally {
      c.close();
    }
  });
});

describe('flags in effect: --livez-grace-period', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(['--livez-grace-period=1h']); });
  after(async () => { await t?.stop(); });

  it('--livez-grace-period=1h: with etcd gone, /livez passes (its checks are not run) while /healthz fails', async () => {
    await t.etcd.stop();
    const healthz = await t.get('/healthz?verbose');
    expect(healthz.status).to.equal(500);
    expect(healthz.text.split('\n')).to.include('[-]etcd failed: reason withheld');
    const livez = await t.get('/livez?verbose');
    expect(livez.status, livez.text).to.equal(200);
    expect(livez.text.split('\n')).to.include('[+]etcd ok');
  });
});
