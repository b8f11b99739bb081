import { expect } from 'chai';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'crypto';
import { promises as fsp, statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tls from 'tls';
import { ensureCertDirPair, ensurePki, Pki, signClientCertificate, writeKubeconfig } from '../../../lib/server/pki';
import { certificatePem, derChildren, name } from '../../../lib/server/x509';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const HOSTS = ['localhost', '127.0.0.1', '::1', '10.1.2.3', 'api.example.test'];

function mode(file: string): number {
  return statSync(file).mode & 0o777;
}

async function x509(file: string): Promise<X509Certificate> {
  return new X509Certificate(await fsp.readFile(file));
}

/** The DER inside the OCTET STRING of the certificate's extension 2.5.29.`arc` (short values only). */
function extensionValue(cert: X509Certificate, arc: number): Buffer {
  const oidDer = Buffer.from([0x06, 0x03, 0x55, 0x1d, arc]);
  const tbs = derChildren(derChildren(cert.raw)[0]);
  const extensions = derChildren(derChildren(tbs[tbs.length - 1])[0]);
  const ext = extensions.find((e) => derChildren(e)[0].equals(oidDer));
  if (!ext) throw new Error(`no extension 2.5.29.${arc}`);
  const value = derChildren(ext).at(-1)!;
  return value.subarray(2);
}

async function snapshot(pki: Pki): Promise<Record<string, string>> {
  const files = [pki.caCertFile, pki.caKeyFile, pki.serverCertFile, pki.serverKeyFile, pki.adminCertFile, pki.adminKeyFile];
  const out: Record<string, string> = {};
  for (const f of files) out[path.basename(f)] = await fsp.readFile(f, 'utf8');
  return out;
}

describe('ensurePki', () => {
  let dir: string;
  let pki: Pki;
  let ca: X509Certificate;

  before(async () => {
    dir = path.join(await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-pki-test-')), 'pki');
    pki = await ensurePki(dir, { serverHosts: HOSTS });
    ca = await x509(pki.caCertFile);
  });

  after(async () => {
    await fsp.rm(path.dirname(dir), { recursive: true, force: true });
  });

  it('creates the six files, keys readable by the owner only', () => {
    expect(pki.caCertFile).to.equal(path.join(dir, 'ca.crt'));
    expect(pki.serverCertFile).to.equal(path.join(dir, 'apiserver.crt'));
    expect(pki.adminKeyFile).to.equal(path.join(dir, 'admin.key'));
    for (const key of [pki.caKeyFile, pki.serverKeyFile, pki.adminKeyFile]) expect(mode(key), key).to.equal(0o600);
    for (const cert of [pki.caCertFile, pki.serverCertFile, pki.adminCertFile]) expect(mode(cert), cert).to.equal(0o644);
    expect(mode(dir)).to.equal(0o700);
  });

  it('creates a self-signed 10-year CA allowed to sign certificates', async () => {
    expect(pki.caCertPem).to.equal(await fsp.readFile(pki.caCertFile, 'utf8'));
    expect(ca.subject).to.equal('CN=orch-apiserver-ca');
    expect(ca.ca).to.equal(true);
    expect(ca.checkIssued(ca)).to.equal(true);
    expect(ca.verify(ca.publicKey)).to.equal(true);
    // ECDSA P-256: made at once (an RSA key costs a first start about 0.3 s of CPU).
    expect(ca.publicKey.asymmetricKeyType).to.equal('ec');
    expect(ca.publicKey.asymmetricKeyDetails?.namedCurve).to.equal('prime256v1');
    const years = (Date.parse(ca.validTo) - Date.now()) / (365 * 24 * 3600 * 1000);
    expect(years).to.be.within(9.9, 10.1);
    // digitalSignature, keyCertSign and cRLSign: bits 0, 5 and 6 (one unused bit).
    expect(extensionValue(ca, 15).toString('hex')).to.equal('030201' + '86');
  });

  it('issues a serving certificate from the CA covering every requested host', async () => {
    const server = await x509(pki.serverCertFile);
    expect(server.subject).to.equal('CN=orch-apiserver');
    // RSA 2048, as kube-apiserver's self-made serving key (clients limited to RSA cipher suites connect).
    expect(server.publicKey.asymmetricKeyDetails?.modulusLength).to.equal(2048);
    expect(server.checkPrivateKey(createPrivateKey(await fsp.readFile(pki.serverKeyFile)))).to.equal(true);
    expect(server.ca).to.equal(false);
    expect(server.checkIssued(ca)).to.equal(true);
    expect(server.verify(ca.publicKey)).to.equal(true);
    expect(server.keyUsage).to.deep.equal([SERVER_AUTH]);
    expect(server.checkHost('localhost', { subject: 'never' })).to.equal('localhost');
    expect(server.checkHost('api.example.test', { subject: 'never' })).to.equal('api.example.test');
    expect(server.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(server.checkIP('10.1.2.3')).to.equal('10.1.2.3');
    expect(server.checkIP('::1')).to.not.equal(undefined);
    expect(server.checkIP('10.9.9.9')).to.equal(undefined);
    // IPs must be IP SANs, not DNS SANs (clients check them as addresses)
    expect(server.subjectAltName).to.include('IP Address:127.0.0.1');
    expect(server.subjectAltName).to.not.include('DNS:127.0.0.1');
    const days = (Date.parse(server.validTo) - Date.now()) / (24 * 3600 * 1000);
    expect(days).to.be.within(364, 366);
  });

  it('issues an admin client certificate in system:masters', async () => {
    const admin = await x509(pki.adminCertFile);
    expect(admin.subject.split('\n')).to.have.members(['O=system:masters', 'CN=orch-admin']);
    expect(admin.keyUsage).to.deep.equal([CLIENT_AUTH]);
    expect(admin.checkIssued(ca)).to.equal(true);
    expect(admin.verify(ca.publicKey)).to.equal(true);
    expect(admin.publicKey.asymmetricKeyType).to.equal('ec');
    // authorityKeyIdentifier: the CA's subjectKeyIdentifier.
    const caKeyId = extensionValue(ca, 14).subarray(2);
    expect(extensionValue(admin, 35).subarray(4).toString('hex')).to.equal(caKeyId.toString('hex'));
  });

  it('uses positive, distinct serial numbers', async () => {
    const serials = [ca, await x509(pki.serverCertFile), await x509(pki.adminCertFile)].map((c) => c.serialNumber);
    for (const s of serials) {
      expect(parseInt(s.slice(0, 2), 16), s).to.be.within(1, 0x7f);
    }
    expect(new Set(serials).size).to.equal(3);
  });

  it('lets a TLS client holding the admin identity talk to a server holding the serving certificate', async () => {
    const server = tls.createServer({
      cert: await fsp.readFile(pki.serverCertFile),
      key: await fsp.readFile(pki.serverKeyFile),
      ca: pki.caCertPem,
      requestCert: true,
      rejectUnauthorized: true,
    });
    const seen = new Promise<string>((resolve) => {
      server.on('secureConnection', (s) => {
        resolve(String(s.getPeerCertificate().subject.CN));
        s.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const client = tls.connect({
        host: '127.0.0.1',
        port,
        ca: pki.caCertPem,
        cert: await fsp.readFile(pki.adminCertFile),
        key: await fsp.readFile(pki.adminKeyFile),
      });
      await new Promise<void>((resolve, reject) => {
        client.once('secureConnect', resolve);
        client.once('error', reject);
      });
      expect(client.authorized).to.equal(true);
      expect(await seen).to.equal('orch-admin');
      client.destroy();
    } finally {
      server.close();
    }
  });

  it('reuses every existing file on a second start', async () => {
    const before = await snapshot(pki);
    const again = await ensurePki(dir, { serverHosts: HOSTS });
    expect(again).to.deep.equal(pki);
    expect(await snapshot(again)).to.deep.equal(before);
  });

  it('re-issues only a missing serving certificate, keeping the CA and the admin identity', async () => {
    const before = await snapshot(pki);
    await fsp.rm(pki.serverCertFile);
    const again = await ensurePki(dir, { serverHosts: HOSTS });
    const after = await snapshot(again);
    expect(after['apiserver.crt']).to.not.equal(before['apiserver.crt']);
    for (const f of ['ca.crt', 'ca.key', 'admin.crt', 'admin.key']) expect(after[f], f).to.equal(before[f]);
    const server = await x509(again.serverCertFile);
    expect(server.verify(ca.publicKey)).to.equal(true);
    expect(server.checkIP('10.1.2.3')).to.equal('10.1.2.3');
  });

  it('re-issues the serving certificate when a requested host is not covered', async () => {
    const before = await snapshot(pki);
    const logs: string[] = [];
    await ensurePki(dir, { serverHosts: [...HOSTS, '192.0.2.7'], log: (m) => logs.push(m) });
    const after = await snapshot(pki);
    expect(after['apiserver.crt']).to.not.equal(before['apiserver.crt']);
    expect(after['ca.crt']).to.equal(before['ca.crt']);
    expect(after['admin.crt']).to.equal(before['admin.crt']);
    expect((await x509(pki.serverCertFile)).checkIP('192.0.2.7')).to.equal('192.0.2.7');
    expect(logs.join('\n')).to.include('192.0.2.7');
  });

  it("renews the leaves of an earlier release's RSA CA, signed with RSA", async () => {
    const other = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-pki-test-'));
    try {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const subject = name('orch-apiserver-ca');
      await fsp.writeFile(path.join(other, 'ca.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }));
      await fsp.writeFile(path.join(other, 'ca.crt'), certificatePem({
        serial: Buffer.from([1]), subject, issuer: subject, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000),
        publicKey, ca: true, keyUsage: ['keyCertSign'], signingKey: privateKey,
      }));
      const renewed = await ensurePki(other, { serverHosts: HOSTS });
      const rsaCa = await x509(renewed.caCertFile);
      for (const leaf of [await x509(renewed.serverCertFile), await x509(renewed.adminCertFile)]) {
        expect(leaf.checkIssued(rsaCa)).to.equal(true);
        expect(leaf.verify(rsaCa.publicKey)).to.equal(true);
      }
    } finally {
      await fsp.rm(other, { recursive: true, force: true });
    }
  });

  it('with servingLater, returns with the CA and admin identity in place and the serving pair following in Pki.serving', async () => {
    const other = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-pki-test-'));
    try {
      const later = await ensurePki(other, { serverHosts: HOSTS, servingLater: true });
      const laterCa = await x509(later.caCertFile);
      expect((await x509(later.adminCertFile)).verify(laterCa.publicKey)).to.equal(true);
      expect(later.serving).to.be.instanceOf(Promise);
      await later.serving;
      expect((await x509(later.serverCertFile)).verify(laterCa.publicKey)).to.equal(true);
      // Everything in place: nothing left to wait for.
      expect((await ensurePki(other, { serverHosts: HOSTS, servingLater: true })).serving).to.equal(undefined);
    } finally {
      await fsp.rm(other, { recursive: true, force: true });
    }
  });

  it('refuses a CA with its key missing instead of replacing it', async () => {
    const other = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-pki-test-'));
    try {
      await fsp.copyFile(pki.caCertFile, path.join(other, 'ca.crt'));
      let error: Error | undefined;
      await ensurePki(other, { serverHosts: HOSTS }).catch((e: Error) => { error = e; });
      expect(error?.message).to.match(/incomplete CA/);
      expect(await fsp.readFile(path.join(other, 'ca.crt'), 'utf8')).to.equal(pki.caCertPem);
    } finally {
      await fsp.rm(other, { recursive: true, force: true });
    }
  });
});

describe('signClientCertificate', () => {
  let dir: string;
  let pki: Pki;

  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-pki-test-'));
    pki = await ensurePki(dir, { serverHosts: ['localhost'] });
  });

  after(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('mints a client certificate with the given user and groups, signed by the CA', () => {
    const { certPem, keyPem } = signClientCertificate(pki, { commonName: 'alice', organizations: ['dev', 'ops'] });
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(pki.caCertPem);
    expect(cert.subject.split('\n')).to.have.members(['O=dev', 'O=ops', 'CN=alice']);
    expect(cert.keyUsage).to.deep.equal([CLIENT_AUTH]);
    expect(cert.checkIssued(ca)).to.equal(true);
    expect(cert.verify(ca.publicKey)).to.equal(true);
    expect(cert.checkPrivateKey(createPrivateKey(keyPem))).to.equal(true);
  });

  it('mints a user without groups', () => {
    const { certPem } = signClientCertificate(pki, { commonName: 'bob' });
    expect(new X509Certificate(certPem).subject).to.equal('CN=bob');
  });

  it('rejects an empty user name', () => {
    expect(() => signClientCertificate(pki, { commonName: '' })).to.throw(/commonName/);
  });
});

describe('writeKubeconfig', () => {
  let dir: string;

  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-kubeconfig-test-'));
  });

  after(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('writes a private kubeconfig with embedded base64 credentials', async () => {
    const file = path.join(dir, 'admin.kubeconfig');
    await writeKubeconfig(file, {
      server: 'https://127.0.0.1:6443', caCertPem: 'CA PEM', clientCertPem: 'CERT PEM', clientKeyPem: 'KEY PEM',
    });
    expect(mode(file)).to.equal(0o600);
    const config = JSON.parse(await fsp.readFile(file, 'utf8'));
    const decode = (s: string) => Buffer.from(s, 'base64').toString('utf8');
    expect(config).to.include({ apiVersion: 'v1', kind: 'Config', 'current-context': 'orch-admin' });
    expect(config.clusters).to.have.length(1);
    expect(config.clusters[0].name).to.equal('orch');
    expect(config.clusters[0].cluster.server).to.equal('https://127.0.0.1:6443');
    expect(decode(config.clusters[0].cluster['certificate-authority-data'])).to.equal('CA PEM');
    expect(config.users[0].name).to.equal('orch-admin');
    expect(decode(config.users[0].user['client-certificate-data'])).to.equal('CERT PEM');
    expect(decode(config.users[0].user['client-key-data'])).to.equal('KEY PEM');
    expect(config.contexts[0]).to.deep.equal({ name: 'orch-admin', context: { cluster: 'orch', user: 'orch-admin' } });
  });

  it('honours custom names and keeps mode 0600 when overwriting', async () => {
    const file = path.join(dir, 'alice.kubeconfig');
    await fsp.writeFile(file, 'old', { mode: 0o644 });
    await writeKubeconfig(file, {
      server: 'https://[::1]:6443', caCertPem: 'a', clientCertPem: 'b', clientKeyPem: 'c',
      user: 'alice', cluster: 'lab', context: 'alice@lab',
    });
    expect(mode(file)).to.equal(0o600);
    const config = JSON.parse(await fsp.readFile(file, 'utf8'));
    expect(config['current-context']).to.equal('alice@lab');
    expect(config.contexts[0].context).to.deep.equal({ cluster: 'lab', user: 'alice' });
    expect(config.users[0].name).to.equal('alice');
  });
});

describe('ensureCertDirPair (--cert-dir)', () => {
  let root: string;
  let pki: Pki;
  before(async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-certdir-test-'));
    pki = await ensurePki(path.join(root, 'pki'), { serverHosts: HOSTS });
  });
  after(async () => { await fsp.rm(root, { recursive: true, force: true }); });

  it('issues apiserver.crt / apiserver.key there by the server\'s CA when both are missing, then uses them as they are', async () => {
    const dir = path.join(root, 'certs');
    const pair = await ensureCertDirPair(dir, pki, ['localhost', '127.0.0.1']);
    expect(pair).to.deep.equal({ certFile: path.join(dir, 'apiserver.crt'), keyFile: path.join(dir, 'apiserver.key') });
    const cert = await x509(pair.certFile);
    expect(cert.verify((await x509(pki.caCertFile)).publicKey)).to.equal(true);
    expect(cert.checkHost('localhost')).to.equal('localhost');
    expect(cert.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(mode(pair.keyFile)).to.equal(0o600);
    const before = await fsp.readFile(pair.certFile, 'utf8');
    await ensureCertDirPair(dir, pki, ['another.example']);
    expect(await fsp.readFile(pair.certFile, 'utf8')).to.equal(before);
  });

  it('refuses a directory holding one half of the pair', async () => {
    const dir = path.join(root, 'half');
    await fsp.mkdir(dir);
    await fsp.writeFile(path.join(dir, 'apiserver.crt'), 'x');
    const err = await ensureCertDirPair(dir, pki, ['localhost']).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.match(/--cert-dir .*only .*apiserver\.crt exists/);
  });
});
