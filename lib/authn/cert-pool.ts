/**
 * A set of trusted certificate authorities (a PEM bundle, e.g. --client-ca-file holding several
 * CAs) and the chain check Kubernetes' x509 authenticators make: the client's certificate, through
 * the intermediates it sent, leads to one of the pool's certificates; every certificate on the way
 * is valid now; the leaf may be used for client authentication.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
/** Longest chain followed from the leaf (Go's limit is far larger; real chains are 2-4). */
const MAX_CHAIN = 8;

export class CertificatePool {
  private constructor(readonly certificates: X509Certificate[], readonly pem: string) {}

  /** Every CERTIFICATE block of `pem`; throws when there is none or one does not parse. */
  static fromPem(pem: string, source: string): CertificatePool {
    const blocks = pem.match(PEM_CERTIFICATE) ?? [];
    if (!blocks.length) throw new Error(`${source}: no PEM certificate found`);
    const certs = blocks.map((b, i) => {
      try {
        return new X509Certificate(b);
      } catch (err) {
        throw new Error(`${source}: certificate ${i + 1} does not parse: ${(err as Error).message}`);
      }
    });
    return new CertificatePool(certs, blocks.join('\n') + '\n');
  }

  /** The bundle of a file; errors name `source` (the flag) and the file, on one line. */
  static fromFile(file: string, source: string): CertificatePool {
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${source} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return CertificatePool.fromPem(pem, `${source} ${file}`);
  }

  /** Both pools' certificates (the TLS layer asks clients for a certificate of either). */
  static union(...pools: (CertificatePool | undefined)[]): CertificatePool {
    const present = pools.filter((p): p is CertificatePool => !!p);
    return new CertificatePool(present.flatMap((p) => p.certificates), present.map((p) => p.pem).join(''));
  }

  /**
   * Undefined when `chain` (leaf first, then the intermediates the client sent) verifies for
   * client authentication at `now`; otherwise the reason, in Go's x509 words.
   */
  verify(chain: X509Certificate[], now: Date): string | undefined {
    const leaf = chain[0];
    if (!leaf) return 'no client certificate';
    const incompatible = 'x509: certificate specifies an incompatible key usage';
    let current = leaf;
    for (let depth = 0; depth < MAX_CHAIN; depth++) {
      if (!validAt(current, now)) return 'x509: certificate has expired or is not yet valid';
      // Go checks the extended key usage of every certificate of the chain, the root's too.
      if (!allowsClientAuth(current)) return incompatible;
      if (this.certificates.some((ca) => ca.fingerprint256 === current.fingerprint256)) return undefined;
      const root = this.certificates.find((ca) => issued(ca, current) && validAt(ca, now));
      if (root) return allowsClientAuth(root) ? undefined : incompatible;
      const next = chain.find((c) => c !== current && c.ca && issued(c, current));
      if (!next) return 'x509: certificate signed by unknown authority';
      current = next;
    }
    return 'x509: certificate chain too long';
  }
}

/**
 * The pool in effect, which a reload of the file (lib/server/tls-reload.ts) may replace while the
 * server runs; readers take `current` at each use.
 */
export class CertificatePoolHolder {
  constructor(public current: CertificatePool) {}
}

/** No extended key usage at all, or one naming client authentication or any usage. */
function allowsClientAuth(cert: X509Certificate): boolean {
  const eku = cert.keyUsage;
  return !eku?.length || eku.includes(CLIENT_AUTH) || eku.includes(ANY_EXTENDED_KEY_USAGE);
}

function issued(issuer: X509Certificate, cert: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

function validAt(cert: X509Certificate, now: Date): boolean {
  const t = now.getTime();
  return Date.parse(cert.validFrom) <= t && t <= Date.parse(cert.validTo);
}

/**
 * The client's certificate and the intermediates of its chain, leaf first; empty without one.
 * Through getPeerX509Certificate: ~0.3 ms on a connection's first call (Node copies the chain's
 * certificates, which OpenSSL 3.0 parses again, mostly in its key decoders), microseconds after;
 * no certificate is parsed here again.
 */
export function peerChain(socket: TLSSocket): X509Certificate[] {
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return [];
  const chain = [leaf];
  const seen = new Set([leaf.fingerprint256]);
  for (let c = leaf.issuerCertificate; c && chain.length < MAX_CHAIN && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    chain.push(c);
  }
  return chain;
}
