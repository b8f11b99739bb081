/**
 * Certificates for client-certificate tests, shaped as a case needs: roots, intermediates and
 * leaves with any validity, extended key usage or subject (test-ca.ts makes the common ones).
 */
import { X509Certificate, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import forge from 'node-forge';
import { isIP } from 'node:net';

export interface Issued { certPem: string; keyPem: string; cert: X509Certificate }

export interface CertOptions {
  commonName?: string;
  organizations?: string[];
  /** A CA (basicConstraints cA, keyCertSign). */
  ca?: boolean;
  /** Extended key usages by name; undefined: clientAuth for a leaf, none for a CA; []: no extension. */
  extKeyUsage?: ('clientAuth' | 'serverAuth' | 'codeSigning' | 'any')[];
  notBefore?: Date;
  notAfter?: Date;
  /** Subject alternative names: DNS names, and IP addresses where the entry is one. */
  altNames?: string[];
}

const HOUR = 3600_000;
const ANY_EKU = '2.5.29.37.0';

function rsaKey(): { keyPem: string; priv: forge.pki.rsa.PrivateKey; pub: forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const priv = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { keyPem, priv, pub: forge.pki.setRsaPublicKey(priv.n, priv.e) };
}

/**
 * A certificate of `opts`, signed by `issuer` (self-signed without one). `signer` signs instead of
 * the issuer's key while the issuer's name stays: a forged certificate.
 */
export function issueCert(opts: CertOptions, issuer?: Issued, signer?: Issued): Issued {
  const k = rsaKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = k.pub;
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) || 1;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = opts.notBefore ?? new Date(Date.now() - HOUR);
  cert.validity.notAfter = opts.notAfter ?? new Date(Date.now() + 24 * HOUR);
  const subject: forge.pki.CertificateField[] = (opts.organizations ?? []).map((o) => ({ name: 'organizationName', value: o }));
  if (opts.commonName !== undefined) subject.push({ name: 'commonName', value: opts.commonName });
  cert.setSubject(subject);
  cert.setIssuer(issuer ? forge.pki.certificateFromPem(issuer.certPem).subject.attributes : subject);
  const extensions: object[] = opts.ca
    ? [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }]
    : [{ name: 'basicConstraints', cA: false, critical: true }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }];
  const eku = opts.extKeyUsage ?? (opts.ca ? [] : ['clientAuth']);
  if (eku.length) {
    const ext: Record<string, unknown> = { name: 'extKeyUsage' };
    for (const u of eku) if (u !== 'any') ext[u] = true;
    if (eku.includes('any')) ext[ANY_EKU] = true;
    extensions.push(ext);
  }
  if (opts.altNames?.length) {
    extensions.push({ name: 'subjectAltName', altNames: opts.altNames.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) });
  }
  cert.setExtensions(extensions);
  const signingKey = (signer ?? issuer) ? forge.pki.privateKeyFromPem((signer ?? issuer)!.keyPem) : k.priv;
  cert.sign(signingKey as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  return { certPem, keyPem: k.keyPem, cert: new X509Certificate(certPem) };
}

/** The first of `certs` as TLS hands it out: each certificate's issuerCertificate is the next one sent. */
function presented(certs: X509Certificate[]): X509Certificate | undefined {
  if (!certs.length) return undefined;
  const view = Object.create(certs[0]) as X509Certificate;
  Object.defineProperty(view, 'issuerCertificate', { value: presented(certs.slice(1)) });
  return view;
}

/**
 * A stand-in for a TLS socket whose peer sent `chain` (leaf first), answering getPeerCertificate
 * as Node does (the subject as an object, repeated attributes as arrays, issuerCertificate
 * links) and getPeerX509Certificate; `asked` counts the calls.
 */
export function socketPresenting(chain: Issued[]): TLSSocket & { asked: number } {
  const detailed = (i: number): DetailedPeerCertificate | Record<string, never> => {
    const c = chain[i];
    if (!c) return {};
    const subject: Record<string, string | string[]> = {};
    for (const line of c.cert.subject.split('\n')) {
      const eq = line.indexOf('=');
      const [k, v] = [line.slice(0, eq), line.slice(eq + 1)];
      const prev = subject[k];
      subject[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
    }
    return {
      raw: c.cert.raw, fingerprint256: c.cert.fingerprint256, subject, validTo: c.cert.validTo,
      issuerCertificate: i + 1 < chain.length ? detailed(i + 1) : undefined,
    } as unknown as DetailedPeerCertificate;
  };
  const socket = {
    asked: 0,
    getPeerCertificate: () => { socket.asked++; return detailed(0); },
    // As Node's: the certificates sent, each linked to the next by issuerCertificate.
    getPeerX509Certificate: () => { socket.asked++; return presented(chain.map((c) => c.cert)); },
  };
  return socket as unknown as TLSSocket & { asked: number };
}
