/**
 * Certificate authorities of a test's own (e.g. an authenticating proxy's CA, apart from the
 * server's) and the client certificates they issue; plus a stand-in for a TLS socket that
 * presents such a certificate, for unit tests of request authenticators.
 */
import { X509Certificate, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';

export interface TestCa { certPem: string; keyPem: string; name: string }
export interface TestCert { certPem: string; keyPem: string }

const DAY = 24 * 3600_000;

function keyPair(): { keyPem: string; priv: forge.pki.rsa.PrivateKey; pub: forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const priv = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { keyPem, priv, pub: forge.pki.setRsaPublicKey(priv.n, priv.e) };
}

function serial(): string {
  const b = randomBytes(16);
  b[0] = (b[0] & 0x7f) || 1;
  return b.toString('hex');
}

/** A self-signed CA named `name`. */
export function createTestCa(name: string): TestCa {
  const k = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = k.pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * DAY);
  const subject = [{ name: 'commonName', value: name }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
  ]);
  cert.sign(k.priv, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: k.keyPem, name };
}

/** A client certificate (extKeyUsage clientAuth) issued by `ca`; without `commonName` the subject has only O. */
export function issueTestCert(ca: TestCa, opts: { commonName?: string; organizations?: string[]; notBefore?: Date; notAfter?: Date }): TestCert {
  const k = keyPair();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = k.pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = opts.notBefore ?? new Date(Date.now() - 3600_000);
  cert.validity.notAfter = opts.notAfter ?? new Date(Date.now() + 30 * DAY);
  const subject: forge.pki.CertificateField[] = (opts.organizations ?? []).map((o) => ({ name: 'organizationName', value: o }));
  if (opts.commonName !== undefined) subject.push({ name: 'commonName', value: opts.commonName });
  cert.setSubject(subject);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: k.keyPem };
}

/** What Node's TLS socket answers for a peer that presented `certPem` (the one method authenticators use). */
export function fakeTlsSocket(certPem?: string): TLSSocket {
  const peer = () => {
    if (!certPem) return {};
    const x = new X509Certificate(certPem);
    const subject: Record<string, string | string[]> = {};
    for (const line of x.subject.split('\n')) {
      const eq = line.indexOf('=');
      const k = line.slice(0, eq);
      const v = line.slice(eq + 1);
      const prev = subject[k];
      subject[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
    }
    return { raw: x.raw, fingerprint256: x.fingerprint256, subject, validTo: x.validTo };
  };
  return { getPeerCertificate: () => peer(), getPeerX509Certificate: () => (certPem ? new X509Certificate(certPem) : undefined) } as unknown as TLSSocket;
}
