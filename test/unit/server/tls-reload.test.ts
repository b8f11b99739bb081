/**
 * ServingTls without a listening server: the poll alone (no fs.watch) notices replaced files,
 * and the secure context handed to the server carries the new pair and the configured options.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { CertificatePool } from '../../../lib/authn/cert-pool';
import { ServingTls } from '../../../lib/server/tls-reload';
import { issueCert } from '../../helpers/x509-certs';

describe('ServingTls (poll fallback)', () => {
  const ca = issueCert({ commonName: 'ca', ca: true });
  const one = issueCert({ commonName: 'one', extKeyUsage: ['serverAuth'] }, ca);
  const two = issueCert({ commonName: 'two', extKeyUsage: ['serverAuth'] }, ca);
  const clientCa2 = issueCert({ commonName: 'client-ca-2', ca: true });
  let dir: string;
  let serving: ServingTls | undefined;
  beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'orch-serving-tls-')); });
  afterEach(() => { serving?.close(); rmSync(dir, { recursive: true, force: true }); });

  it('reloads the pair and the client CA at the next poll and hands the server a context with the flags\' options', async () => {
    const certFile = path.join(dir, 'tls.crt'); const keyFile = path.join(dir, 'tls.key'); const caFile = path.join(dir, 'ca.crt');
    writeFileSync(certFile, one.certPem); writeFileSync(keyFile, one.keyPem); writeFileSync(caFile, ca.certPem);
    const warnings: string[] = [];
    serving = new ServingTls({
      certFile, keyFile, clientCaFile: caFile, clientCa: CertificatePool.fromPem(ca.certPem, 'test'),
      flags: { tlsMinVersion: 'VersionTLS13', tlsCipherSuites: [] }, log: { info: () => {}, warn: (m) => warnings.push(m) },
      pollMs: 50, watchFiles: false,
    });
    expect(serving.serial).to.equal(one.cert.serialNumber.toUpperCase());
    const contexts: tls.SecureContextOptions[] = [];
    const server = tls.createServer({ ...serving.contextOptions() });
    const original = server.setSecureContext.bind(server);
    server.setSecureContext = (o: tls.SecureContextOptions) => { contexts.push(o); original(o); };
    serving.watch(server);
    writeFileSync(certFile, two.certPem); writeFileSync(keyFile, two.keyPem); writeFileSync(caFile, clientCa2.certPem);
    for (let i = 0; i < 100 && serving.serial !== two.cert.serialNumber.toUpperCase(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(serving.serial).to.equal(two.cert.serialNumber.toUpperCase());
    expect(serving.clientCaPool.current.certificates[0].subject).to.contain('client-ca-2');
    expect(contexts.length).to.be.greaterThan(0);
    const last = contexts[contexts.length - 1];
    expect(String(last.cert)).to.equal(two.certPem);
    expect(last.minVersion).to.equal('TLSv1.3');
    expect(String(last.ca)).to.contain(clientCa2.certPem.trim());
    expect(warnings).to.deep.equal([]);
  });

  it('refuses to start on a key that does not match the certificate', () => {
    const certFile = path.join(dir, 'tls.crt'); const keyFile = path.join(dir, 'tls.key');
    writeFileSync(certFile, one.certPem); writeFileSync(keyFile, two.keyPem);
    expect(() => new ServingTls({
      certFile, keyFile, clientCa: CertificatePool.fromPem(ca.certPem, 'test'),
      flags: { tlsMinVersion: '', tlsCipherSuites: [] }, log: { info: () => {}, warn: () => {} },
    })).to.throw(`${keyFile} does not match the certificate in ${certFile}`);
  });
});
