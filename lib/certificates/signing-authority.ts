/**
 * The CA of the built-in signers (Kubernetes' authority package with its permissive policy): a
 * certificate carries the request's subject, public key and subjectAltNames (DNS, email, IP, URI),
 * the key usage and extended key usage the request's usages name, basic constraints without the CA
 * bit, and the authority key identifier; every other extension the request asked for is dropped.
 * The certificate is assembled with node-forge's ASN.1 writer (so that any key type the request
 * holds can be certified) and signed by Node's crypto with the CA's RSA, ECDSA or Ed25519 key.
 */
import { createPrivateKey, KeyObject, randomBytes, sign, X509Certificate } from 'crypto';
import type * as Forge from 'node-forge';
import { forge } from '../lazy-packages';
import { derBuffer, firstPemBlock, fromDer, ParsedCsr } from '../registry/certificates/csr-parse';


/** Backdating of notBefore (clock skew), and below which lifetime notAfter is not backdated too. */
const BACKDATE_MS = 5 * 60_000;
const SHORT_MS = 8 * 3_600_000;
/** The shortest lifetime a request gets (twice the backdating). */
const MIN_TTL_MS = 10 * 60_000;

const KEY_USAGE_BITS: Record<string, number> = {
  'signing': 0, 'digital signature': 0, 'content commitment': 1, 'key encipherment': 2, 'data encipherment': 3,
  'key agreement': 4, 'cert sign': 5, 'crl sign': 6, 'encipher only': 7, 'decipher only': 8,
};

/** Extended key usages in Go's ExtKeyUsage order (the order they are written in). */
const EXT_KEY_USAGES: [string[], string][] = [
  [['any'], '2.5.29.37.0'], [['server auth'], '1.3.6.1.5.5.7.3.1'], [['client auth'], '1.3.6.1.5.5.7.3.2'],
  [['code signing'], '1.3.6.1.5.5.7.3.3'], [['email protection', 's/mime'], '1.3.6.1.5.5.7.3.4'],
  [['ipsec end system'], '1.3.6.1.5.5.7.3.5'], [['ipsec tunnel'], '1.3.6.1.5.5.7.3.6'], [['ipsec user'], '1.3.6.1.5.5.7.3.7'],
  [['timestamping'], '1.3.6.1.5.5.7.3.8'], [['ocsp signing'], '1.3.6.1.5.5.7.3.9'],
  [['microsoft sgc'], '1.3.6.1.4.1.311.10.3.3'], [['netscape sgc'], '2.16.840.1.113730.4.1'],
];

type Asn1Value = string | Forge.asn1.Asn1[];
/** forge's ASN.1 nodes (forge is loaded at the first certificate signed, not at start). */
const universal = (type: keyof typeof Forge.asn1.Type, constructed: boolean, value: Asn1Value): Forge.asn1.Asn1 =>
  forge().asn1.create(forge().asn1.Class.UNIVERSAL, forge().asn1.Type[type], constructed, value);
const contextSpecific = (tag: number, constructed: boolean, value: Asn1Value): Forge.asn1.Asn1 =>
  forge().asn1.create(forge().asn1.Class.CONTEXT_SPECIFIC, tag, constructed, value);
const seq = (items: Forge.asn1.Asn1[]): Forge.asn1.Asn1 => universal('SEQUENCE', true, items);
const oid = (dotted: string): Forge.asn1.Asn1 => universal('OID', false, forge().asn1.oidToDer(dotted).getBytes());
const octets = (bytes: string): Forge.asn1.Asn1 => universal('OCTETSTRING', false, bytes);
const bits = (bytes: string, unused = 0): Forge.asn1.Asn1 => universal('BITSTRING', false, String.fromCharCode(unused) + bytes);
const der = (node: Forge.asn1.Asn1): string => forge().asn1.toDer(node).getBytes();

function extension(id: string, critical: boolean, value: Forge.asn1.Asn1): Forge.asn1.Asn1 {
  const parts = [oid(id)];
  if (critical) parts.push(universal('BOOLEAN', false, String.fromCharCode(0xff)));
  parts.push(octets(der(value)));
  return seq(parts);
}

/** A positive INTEGER of `bytes` random bytes (Go: a random serial below 2^128). */
function serialNumber(): Forge.asn1.Asn1 {
  let raw = randomBytes(16);
  let i = 0;
  while (i < raw.length - 1 && raw[i] === 0) i++;
  raw = raw.subarray(i);
  if (raw[0] & 0x80) raw = Buffer.concat([Buffer.from([0]), raw]);
  return universal('INTEGER', false, raw.toString('latin1'));
}

/** UTCTime up to 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(date: Date): Forge.asn1.Asn1 {
  const whole = new Date(Math.floor(date.getTime() / 1000) * 1000);
  return whole.getUTCFullYear() < 2050
    ? universal('UTCTIME', false, forge().asn1.dateToUtcTime(whole))
    : universal('GENERALIZEDTIME', false, forge().asn1.dateToGeneralizedTime(whole));
}

function keyUsageExtension(usages: readonly string[]): Forge.asn1.Asn1 | undefined {
  let mask = 0;
  for (const u of usages) if (u in KEY_USAGE_BITS) mask |= 1 << KEY_USAGE_BITS[u];
  if (!mask) return undefined;
  const bytes = [0, 0];
  for (let b = 0; b < 9; b++) if (mask & (1 << b)) bytes[b >> 3] |= 0x80 >> (b & 7);
  const used = bytes[1] ? bytes : [bytes[0]];
  const last = used[used.length - 1];
  let unused = 0;
  while (unused < 8 && !(last & (1 << unused))) unused++;
  return extension('2.5.29.15', true, bits(String.fromCharCode(...used), unused));
}

function extKeyUsageExtension(usages: readonly string[]): Forge.asn1.Asn1 | undefined {
  const ids = EXT_KEY_USAGES.filter(([names]) => names.some((n) => usages.includes(n))).map(([, id]) => oid(id));
  return ids.length ? extension('2.5.29.37', false, seq(ids)) : undefined;
}

function ipBytes(ip: string): string {
  if (!ip.includes(':')) return String.fromCharCode(...ip.split('.').map(Number));
  return ip.split(':').map((g) => { const n = parseInt(g, 16); return String.fromCharCode(n >> 8, n & 0xff); }).join('');
}

function subjectAltNameExtension(csr: ParsedCsr): Forge.asn1.Asn1 | undefined {
  const names = [
    ...csr.dnsNames.map((n) => contextSpecific(2, false, n)),
    ...csr.emailAddresses.map((n) => contextSpecific(1, false, n)),
    ...csr.ipAddresses.map((n) => contextSpecific(7, false, ipBytes(n))),
    ...csr.uris.map((n) => contextSpecific(6, false, n)),
  ];
  // A certificate with an empty subject names its holder only here: the extension is then critical.
  return names.length ? extension('2.5.29.17', csr.subjectEmpty, seq(names)) : undefined;
}

/** The signing algorithm of a CA key: its AlgorithmIdentifier and the hash Node signs with. */
function signatureAlgorithm(key: KeyObject): { id: Forge.asn1.Asn1; hash: string | null } {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return { id: seq([oid('1.2.840.113549.1.1.11'), universal('NULL', false, '')]), hash: 'sha256' };
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      const [id, hash] = curve === 'secp384r1' ? ['1.2.840.10045.4.3.3', 'sha384'] : curve === 'secp521r1' ? ['1.2.840.10045.4.3.4', 'sha512'] : ['1.2.840.10045.4.3.2', 'sha256'];
      return { id: seq([oid(id)]), hash };
    }
    case 'ed25519':
      return { id: seq([oid('1.3.101.112')]), hash: null };
    default:
      throw new Error(`unsupported signing key type ${String(key.asymmetricKeyType)}`);
  }
}

/** The lifetime a request gets (Kubernetes' signer.duration). */
export function certificateTtlMs(maxTtlMs: number, expirationSeconds: unknown): number {
  if (typeof expirationSeconds !== 'number') return maxTtlMs;
  const requested = expirationSeconds * 1000;
  if (requested > maxTtlMs) return maxTtlMs;
  return Math.max(requested, MIN_TTL_MS);
}

/** A loaded signing CA. */
export class SigningAuthority {
  private readonly key: KeyObject;
  /** The CA certificate's DER (binary string), read for its issuer and key id at the first signing. */
  private readonly caDer: string;
  private issuerFields?: { issuer: Forge.asn1.Asn1; subjectKeyId?: string };
  /** The CA certificate's end of validity: no certificate outlives it. */
  readonly notAfter: Date;

  /** Throws when the certificate or key cannot be read (a start-up error). */
  constructor(caCertPem: string, caKeyPem: string) {
    const block = firstPemBlock(caCertPem);
    if (!block || block.type !== 'CERTIFICATE') throw new Error('the signing certificate file holds no PEM CERTIFICATE');
    this.notAfter = new Date(new X509Certificate(Buffer.from(block.der, 'latin1')).validTo);
    this.key = createPrivateKey(caKeyPem);
    this.caDer = block.der;
  }

  /** The CA's subject (each certificate's issuer) and subjectKeyIdentifier, as the CA certificate encodes them. */
  private ca(): { issuer: Forge.asn1.Asn1; subjectKeyId?: string } {
    if (this.issuerFields) return this.issuerFields;
    const { Class } = forge().asn1;
    const tbs = (fromDer(this.caDer).value as Forge.asn1.Asn1[])[0];
    const fields = tbs.value as Forge.asn1.Asn1[];
    const first = fields[0].tagClass === Class.CONTEXT_SPECIFIC && fields[0].type === 0 ? 1 : 0;
    const found: { issuer: Forge.asn1.Asn1; subjectKeyId?: string } = { issuer: fields[first + 4] };
    const extensions = fields.find((f) => f.tagClass === Class.CONTEXT_SPECIFIC && f.type === 3);
    for (const ext of extensions ? (extensions.value as Forge.asn1.Asn1[])[0].value as Forge.asn1.Asn1[] : []) {
      const parts = ext.value as Forge.asn1.Asn1[];
      if (forge().asn1.derToOid(parts[0].value as string) !== '2.5.29.14') continue;
      found.subjectKeyId = forge().asn1.fromDer(parts[parts.length - 1].value as string).value as string;
    }
    return (this.issuerFields = found);
  }

  /**
   * Issues a certificate for a request whose signer rules passed (PEM). Throws with Kubernetes'
   * words when the request's signature does not verify or the CA has expired.
   */
  sign(csr: ParsedCsr, usages: readonly string[], ttlMs: number, now = new Date()): string {
    try {
      csr.checkSignature();
    } catch (err) {
      throw new Error(`unable to verify certificate request signature: ${(err as Error).message}`);
    }
    const notBefore = new Date(now.getTime() - BACKDATE_MS);
    let notAfter = new Date(now.getTime() + (ttlMs < SHORT_MS ? ttlMs : ttlMs - BACKDATE_MS));
    if (notAfter >= this.notAfter) notAfter = this.notAfter;
    const caEnd = this.notAfter.toISOString();
    if (notBefore >= this.notAfter) throw new Error(`the signer has expired: NotAfter=${caEnd}`);
    if (now >= this.notAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${caEnd}`);

    const alg = signatureAlgorithm(this.key);
    const { issuer, subjectKeyId } = this.ca();
    const extensions = [
      keyUsageExtension(usages),
      extKeyUsageExtension(usages),
      extension('2.5.29.19', true, seq([])),
      subjectKeyId ? extension('2.5.29.35', false, seq([contextSpecific(0, false, subjectKeyId)])) : undefined,
      subjectAltNameExtension(csr),
    ].filter((e): e is Forge.asn1.Asn1 => e !== undefined);
    const tbs = seq([
      contextSpecific(0, true, [universal('INTEGER', false, String.fromCharCode(2))]),
      serialNumber(),
      alg.id,
      issuer,
      seq([time(notBefore), time(notAfter)]),
      csr.subject,
      csr.publicKeyInfo,
      contextSpecific(3, true, [seq(extensions)]),
    ]);
    const tbsDer = derBuffer(tbs);
    const signature = sign(alg.hash, tbsDer, this.key);
    const cert = seq([tbs, alg.id, bits(signature.toString('latin1'))]);
    const body = forge().util.encode64(der(cert)).replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
    return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
  }
}
