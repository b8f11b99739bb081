/**
 * The serving certificate and the client CA replaced on disk while the server runs: new
 * connections get the new ones within seconds, open HTTP/2 sessions keep working, a removed CA's
 * certificates stop authenticating, and a bad or mismatched file leaves the material in use.
 */
import { expect } from 'chai';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { captureLog, LogCapture } from '../helpers/log-capture';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { issueCert, Issued } from '../helpers/x509-certs';

const ADMIN_GROUPS = ['system:masters'];

/** The serial of the certificate a NEW connection is served (hex, upper case as Node gives it). */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const serial = sock.getPeerCertificate().serialNumber;
      sock.end();
      resolve(serial);
    });
    sock.once('error', reject);
  });
}

/** Status of GET `p` on a NEW HTTP/2 session presenting `client`. */
async function statusAs(port: number, client: Issued, p = '/api/v1/namespaces'): Promise<number> {
  const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, cert: client.certPem, key: client.keyPem });
  try {
    return await get(session, p);
  } finally {
    session.close();
  }
}

/** Body of GET `p` on a NEW HTTP/2 session presenting `client` (the serving certificate is not checked). */
function bodyAs(port: number, client: Issued, p: string): Promise<string> {
  const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, cert: client.certPem, key: client.keyPem });
  return new Promise<string>((resolve, reject) => {
    const req = session.request({ ':path': p, accept: 'application/json' });
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { text += c; });
    req.on('end', () => resolve(text));
    req.on('error', reject);
    req.end();
  }).finally(() => session.close());
}

function get(session: http2.ClientHttp2Session, p: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': p, accept: 'application/json' });
    req.on('response', (h) => { req.resume(); req.on('end', () => resolve(Number(h[':status']))); });
    req.on('error', reject);
    req.end();
  });
}

/** Writes `content` to `file` as rotation tools do: a temp file renamed over it. */
function replaceFile(file: string, content: string): void {
  writeFileSync(`${file}.tmp`, content);
  renameSync(`${file}.tmp`, file);
}

const serialOf = (c: Issued) => c.cert.serialNumber.toUpperCase();

describe('TLS material reloaded from disk', function () {
  let dir: string;
  let t: TestServer;
  let log: LogCapture;
  const servingCa = issueCert({ commonName: 'serving-ca', ca: true });
  const serving1 = issueCert({ commonName: 'serving-1', extKeyUsage: ['serverAuth'] }, servingCa);
  const serving2 = issueCert({ commonName: 'serving-2', extKeyUsage: ['serverAuth'] }, servingCa);
  const serving3 = issueCert({ commonName: 'serving-3', extKeyUsage: ['serverAuth'] }, servingCa);
  const caA = issueCert({ commonName: 'client-ca-a', ca: true });
  const caB = issueCert({ commonName: 'client-ca-b', ca: true });
  const userA = issueCert({ commonName: 'alice', organizations: ADMIN_GROUPS }, caA);
  const userB = issueCert({ commonName: 'bob', organizations: ADMIN_GROUPS }, caB);
  let certFile: string; let keyFile: string; let caFile: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-tls-reload-'));
    certFile = path.join(dir, 'serving.crt');
    keyFile = path.join(dir, 'serving.key');
    caFile = path.join(dir, 'client-ca.crt');
    writeFileSync(certFile, serving1.certPem);
    writeFileSync(keyFile, serving1.keyPem);
    writeFileSync(caFile, caA.certPem);
    log = captureLog();
    t = await startTestServer([
      `--tls-cert-file=${certFile}`, `--tls-private-key-file=${keyFile}`, `--client-ca-file=${caFile}`, '--log-level=info',
    ]);
  });
  after(async () => {
    await t?.stop();
    log?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a replaced certificate to new connections within seconds, while an open HTTP/2 session keeps working', async () => {
    const port = t.server.port;
    expect(await servedSerial(port)).to.equal(serialOf(serving1));
    const old = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, cert: userA.certPem, key: userA.keyPem });
    try {
      expect(await get(old, '/api/v1/namespaces')).to.equal(200);
      const started = performance.now();
      // The key first, then the certificate: in between the pair does not match and is not taken.
      replaceFile(keyFile, serving2.keyPem);
      replaceFile(certFile, serving2.certPem);
      await eventually(async () => (await servedSerial(port)) === serialOf(serving2), 10_000, 50);
      console.log(`      new certificate served after ${(performance.now() - started).toFixed(0)} ms`);
      expect(await get(old, '/api/v1/namespaces')).to.equal(200);
      expect((old.socket as tls.TLSSocket).getPeerCertificate().serialNumber).to.equal(serialOf(serving1));
    } finally {
      old.close();
    }
  });

  it('keeps the certificate in use when the new key does not match it, and takes the pair once it does', async () => {
    const port = t.server.port;
    replaceFile(certFile, serving3.certPem); // the key on disk is still serving2's
    await eventually(async () => log.lines.some((l) => l.includes('TLS reload: serving certificate not loaded')), 10_000, 50);
    const warning = log.records().find((r) => String(r.message).includes('serving certificate not loaded'))!;
    expect(warning.error).to.equal(`${keyFile} does not match the certificate in ${certFile}`);
    expect(await servedSerial(port)).to.equal(serialOf(serving2));
    expect(await statusAs(port, userA)).to.equal(200);
    replaceFile(keyFile, serving3.keyPem);
    await eventually(async () => (await servedSerial(port)) === serialOf(serving3), 10_000, 50);
    // No key material in the log, whatever happened.
    const keyBody = serving3.keyPem.split('\n')[1];
    expect(log.lines.some((l) => l.includes(keyBody) || l.includes('PRIVATE KEY'))).to.equal(false);
  });

  it('authenticates certificates of a replaced client CA and answers 401 to the old CA\'s, on new and open connections', async () => {
    const port = t.server.port;
    expect(await statusAs(port, userA)).to.equal(200);
    expect(await statusAs(port, userB)).to.equal(401);
    const openA = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, cert: userA.certPem, key: userA.keyPem });
    try {
      expect(await get(openA, '/api/v1/namespaces')).to.equal(200);
      const started = performance.now();
      replaceFile(caFile, caB.certPem);
      await eventually(async () => (await statusAs(port, userB)) === 200, 10_000, 50);
      console.log(`      new client CA in effect after ${(performance.now() - started).toFixed(0)} ms`);
      expect(await statusAs(port, userA)).to.equal(401);
      // The connection opened under the old CA is judged again against the new pool.
      expect(await get(openA, '/api/v1/namespaces')).to.equal(401);
      // Extension API servers read the client CA from this ConfigMap: it gets the new CA too.
      const cm = `/api/v1/namespaces/${t.server.naming.systemNamespace}/configmaps/extension-apiserver-authentication`;
      await eventually(async () => {
        const body = await bodyAs(port, userB, cm);
        return String(JSON.parse(body).data?.['client-ca-file']).includes(caB.certPem.split(/\r?\n/)[1]);
      }, 10_000, 100);
    } finally {
      openA.close();
    }
  });

  it('keeps the client CA in use when the file is replaced by something that is not a certificate', async () => {
    const port = t.server.port;
    replaceFile(caFile, 'not a certificate\n');
    await eventually(async () => log.lines.some((l) => l.includes('TLS reload: client CA not loaded')), 10_000, 50);
    expect(await statusAs(port, userB)).to.equal(200);
    expect(await statusAs(port, userA)).to.equal(401);
    // Both CAs in one bundle: both users are in.
    replaceFile(caFile, caA.certPem + caB.certPem);
    await eventually(async () => (await statusAs(port, userA)) === 200, 10_000, 50);
    expect(await statusAs(port, userB)).to.equal(200);
  });
});
