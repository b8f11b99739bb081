/**
 * The byte checks of a CertificateSigningRequest, with the words of Go's crypto/x509 that
 * kube-apiserver reports: spec.request must be a PEM CERTIFICATE REQUEST (PKCS#10) whose
 * signature verifies with its own public key, and status.certificate only CERTIFICATE blocks
 * without headers, each a parseable certificate. Requests of any key type (RSA, ECDSA, Ed25519)
 * are checked: the ASN.1 is read with node-forge and the signature verified with node:crypto.
 */
import { X509Certificate, createPublicKey, verify } from 'crypto';
import type * as Forge from 'node-forge';
import { forge } from '../../../lazy-packages';

/** One PEM block as Go's pem.Decode yields it. */
export interface PemBlock { type: string; headers: boolean; der: Buffer }

/** Every PEM block of `text`, in order; text outside blocks (and broken blocks) is skipped. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lines = m[2].split(/\r?\n/);
    const headerLines = lines.findIndex((l) => !l.includes(':'));
    const headers = headerLines > 0;
    const body = lines.slice(headers ? headerLines : 0).join('').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue;
    out.push({ type: m[1], headers, der: Buffer.from(body, 'base64') });
  }
  return out;
}

/** Signature algorithms of requests: OID -> node:crypto's digest (null: none, Ed25519) and key family. */
const SIGNATURE_ALGORITHMS: Record<string, { digest: string | null; family: 'rsa' | 'ec' | 'ed25519' }> = {
  '1.2.840.113549.1.1.5': { digest: 'sha1', family: 'rsa' },
  '1.2.840.113549.1.1.11': { digest: 'sha256', family: 'rsa' },
  '1.2.840.113549.1.1.12': { digest: 'sha384', family: 'rsa' },
  '1.2.840.113549.1.1.13': { digest: 'sha512', family: 'rsa' },
  '1.2.840.10045.4.1': { digest: 'sha1', family: 'ec' },
  '1.2.840.10045.4.3.2': { digest: 'sha256', family: 'ec' },
  '1.2.840.10045.4.3.3': { digest: 'sha384', family: 'ec' },
  '1.2.840.10045.4.3.4': { digest: 'sha512', family: 'ec' },
  '1.3.101.112': { digest: null, family: 'ed25519' },
};

const FAILURE: Record<string, string> = {
  rsa: 'crypto/rsa: verification error',
  ec: 'x509: ECDSA verification failure',
  ed25519: 'x509: Ed25519 verification failure',
};

const MALFORMED = 'x509: malformed certificate request';

/** The parts of a PKCS#10 request: the signed info, its public key, the algorithm and signature. */
function requestParts(der: Buffer): { info: Buffer; spki: Buffer; algorithm: string; signature: Buffer } {
  let root: Forge.asn1.Asn1;
  try {
    root = forge().asn1.fromDer(der.toString('latin1'), { strict: true, parseAllBytes: true, decodeBitStrings: false } as never);
  } catch {
    throw new Error(MALFORMED);
  }
  const [info, algorithm, signature] = Array.isArray(root.value) ? root.value : [];
  const infoParts = info && Array.isArray(info.value) ? info.value : [];
  const spki = infoParts[2];
  const oid = algorithm && Array.isArray(algorithm.value) ? algorithm.value[0] : undefined;
  if (!spki || !oid || typeof oid.value !== 'string' || !signature || typeof signature.value !== 'string') throw new Error(MALFORMED);
  // A BIT STRING's first byte counts the unused bits (always 0 for signatures).
  const bits = Buffer.from(signature.value, 'latin1');
  return {
    info: Buffer.from(forge().asn1.toDer(info).getBytes(), 'latin1'),
    spki: Buffer.from(forge().asn1.toDer(spki).getBytes(), 'latin1'),
    algorithm: forge().asn1.derToOid(oid.value),
    signature: bits.subarray(1),
  };
}

/**
 * Kubernetes' validateCSR: `request` (the decoded bytes of spec.request) holds a PEM
 * CERTIFICATE REQUEST whose signature verifies. Returns the reason it does not, or undefined.
 */
export function requestProblem(request: Buffer): string | undefined {
  const block = pemBlocks(request.toString('latin1'))[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  try {
    const parts = requestParts(block.der);
    const alg = SIGNATURE_ALGORITHMS[parts.algorithm];
    if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
    let key;
    try {
      key = createPublicKey({ key: parts.spki, format: 'der', type: 'spki' });
    } catch {
      return 'x509: unsupported public key type';
    }
    const family = key.asymmetricKeyType === 'rsa' ? 'rsa' : key.asymmetricKeyType === 'ec' ? 'ec' : key.asymmetricKeyType;
    if (family !== alg.family) return 'x509: signature algorithm specifies an ' + alg.family.toUpperCase() + ' public key, but have public key of type ' + (family ?? 'unknown');
    let ok = false;
    try {
      ok = verify(alg.digest, parts.info, key, parts.signature);
    } catch {
      ok = false;
    }
    return ok ? undefined : FAILURE[alg.family];
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Kubernetes' validateCertificate for status.certificate (decoded bytes): empty is fine;
 * otherwise only CERTIFICATE blocks, without headers, each holding a certificate.
 */
export function certificateProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = pemBlocks(pem.toString('latin1'));
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    if (block.der.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
    try {
      new X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks.length ? undefined : 'must contain at least one CERTIFICATE PEM block';
}
