/**
 * Kubernetes' certificates.ParseCSR for the signers, the approver (lib/certificates) and
 * certificates/v1beta1's signerName defaulting: the first PEM block of `spec.request` must be a
 * CERTIFICATE REQUEST; its PKCS#10 structure is read with node-forge's ASN.1 reader (any key
 * type: RSA, ECDSA, Ed25519), keeping the subject and public key as encoded so that a
 * certificate repeats them byte for byte.
 */
import { createPublicKey, verify } from 'crypto';
import type * as Forge from 'node-forge';
import { forge } from '../../lazy-packages';

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SAN = '2.5.29.17';

/** The parts of a certificate request the signers read. */
export interface ParsedCsr {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  emailAddresses: string[];
  /** Dotted or colon form, as Go prints net.IP. */
  ipAddresses: string[];
  uris: string[];
  /** The subject Name and SubjectPublicKeyInfo as encoded in the request. */
  subject: Forge.asn1.Asn1;
  publicKeyInfo: Forge.asn1.Asn1;
  /** The subject has no attribute at all (the SAN extension is then critical). */
  subjectEmpty: boolean;
  /** Checks the request's self-signature (Go's CheckSignature); throws when it does not verify. */
  checkSignature(): void;
}

/** The first PEM block of `text` (Go's pem.Decode): type and DER, or undefined. */
export function firstPemBlock(text: string): { type: string; der: string } | undefined {
  const m = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  const body = m[2].split(/\r?\n/).filter((l) => !l.includes(':')).join('');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return { type: m[1], der: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('latin1') };
}

/**
 * forge's DER reader with its options (the typings know only `strict`): bit strings are kept as
 * they are (a signature must not be read as nested ASN.1, and re-encoding must repeat the bytes).
 */
export const fromDer = (der: string): Forge.asn1.Asn1 =>
  (forge().asn1.fromDer as unknown as (d: string, o: object) => Forge.asn1.Asn1)(der, { strict: true, decodeBitStrings: false });

const children = (node: Forge.asn1.Asn1): Forge.asn1.Asn1[] => (Array.isArray(node.value) ? node.value : []);
const oidOf = (node: Forge.asn1.Asn1): string => forge().asn1.derToOid(node.value as string);

/** `spec.request` as JSON carries it (base64 of PEM), or the PEM itself. */
export function parseCsr(request: unknown): ParsedCsr {
  const pem = typeof request === 'string' ? Buffer.from(request, 'base64').toString('latin1') : '';
  const block = firstPemBlock(pem);
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  try {
    return readCsr(block.der);
  } catch (err) {
    throw new Error(`x509: malformed certificate request${err instanceof Error && err.message ? `: ${err.message}` : ''}`);
  }
}

function readCsr(der: string): ParsedCsr {
  const root = fromDer(der);
  const [info, sigAlg, sigBits] = children(root);
  const [, subject, publicKeyInfo, attributes] = children(info);
  if (!subject || !publicKeyInfo || !sigAlg || !sigBits) throw new Error('truncated');
  const out: ParsedCsr = {
    commonName: '', organizations: [], dnsNames: [], emailAddresses: [], ipAddresses: [], uris: [],
    subject, publicKeyInfo, subjectEmpty: children(subject).length === 0,
    checkSignature: () => checkSignature(info, publicKeyInfo, sigAlg, sigBits),
  };
  for (const rdn of children(subject)) {
    for (const atv of children(rdn)) {
      const [oid, value] = children(atv);
      const text = forge().util.decodeUtf8(value.value as string);
      if (oidOf(oid) === OID_CN) out.commonName = text;
      else if (oidOf(oid) === OID_O) out.organizations.push(text);
    }
  }
  for (const attr of attributes ? children(attributes) : []) {
    const [oid, values] = children(attr);
    if (oidOf(oid) !== OID_EXTENSION_REQUEST) continue;
    for (const exts of children(values)) {
      for (const ext of children(exts)) {
        const parts = children(ext);
        if (oidOf(parts[0]) !== OID_SAN) continue;
        readSans(fromDer(parts[parts.length - 1].value as string), out);
      }
    }
  }
  return out;
}

function readSans(names: Forge.asn1.Asn1, out: ParsedCsr): void {
  for (const name of children(names)) {
    if (name.tagClass !== forge().asn1.Class.CONTEXT_SPECIFIC) continue;
    const raw = name.value as string;
    switch (name.type) {
      case 1: out.emailAddresses.push(raw); break;
      case 2: out.dnsNames.push(raw); break;
      case 6: out.uris.push(raw); break;
      case 7: out.ipAddresses.push(ipText(raw)); break;
      default: break;
    }
  }
}

function ipText(raw: string): string {
  const bytes = [...raw].map((c) => c.charCodeAt(0));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.length !== 16) throw new Error('invalid IP address in subjectAltName');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(':');
}

/** Hash of each signature algorithm a request may be signed with (null: the key's own, Ed25519). */
const SIGNATURE_HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1', '1.2.840.113549.1.1.11': 'sha256', '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512', '1.2.840.10045.4.1': 'sha1', '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384', '1.2.840.10045.4.3.4': 'sha512', '1.3.101.112': null,
};

function checkSignature(info: Forge.asn1.Asn1, spki: Forge.asn1.Asn1, sigAlg: Forge.asn1.Asn1, sigBits: Forge.asn1.Asn1): void {
  const alg = oidOf(children(sigAlg)[0]);
  if (!(alg in SIGNATURE_HASHES)) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  const key = createPublicKey({ key: derBuffer(spki), format: 'der', type: 'spki' });
  const bits = sigBits.value as string;
  if (sigBits.type !== forge().asn1.Type.BITSTRING || bits.charCodeAt(0) !== 0) throw new Error('x509: malformed signature');
  const ok = verify(SIGNATURE_HASHES[alg], derBuffer(info), key, Buffer.from(bits.slice(1), 'latin1'));
  if (!ok) throw new Error('x509: signature verification failure');
}

/** The DER bytes of an ASN.1 node. */
export const derBuffer = (node: Forge.asn1.Asn1): Buffer => Buffer.from(forge().asn1.toDer(node).getBytes(), 'latin1');
