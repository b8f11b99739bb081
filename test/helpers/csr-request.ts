/**
 * PKCS#10 certificate signing requests for tests, for RSA and ECDSA keys: the ASN.1 is built
 * with node-forge and signed with node:crypto (fast key generation). `spec.request` wants the
 * PEM base64-encoded: see `requestField`.
 */
import { KeyObject, generateKeyPairSync, sign } from 'crypto';
import forge from 'node-forge';

const { asn1 } = forge;
const seq = (items: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
const oid = (dotted: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(dotted).getBytes());

function name(commonName: string, organizations: string[]): forge.asn1.Asn1 {
  const rdn = (type: string, value: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true,
    [seq([oid(type), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTF8, false, forge.util.encodeUtf8(value))])]);
  return seq([...organizations.map((o) => rdn('2.5.4.10', o)), rdn('2.5.4.3', commonName)]);
}

export interface CsrOptions {
  commonName?: string; organizations?: string[]; keyType?: 'rsa' | 'ec'; tamper?: boolean;
  /** The key to request a certificate for (of keyType), when the caller keeps it; else a new one. */
  keyPair?: { privateKey: KeyObject; publicKey: KeyObject };
}

/** A PEM CERTIFICATE REQUEST; `tamper` flips a byte of the signature so that it does not verify. */
export function makeCsrPem(opts: CsrOptions = {}): string {
  const ec = opts.keyType === 'ec';
  const { privateKey, publicKey } = opts.keyPair ?? (ec
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 }));
  const spki = asn1.fromDer((publicKey as KeyObject).export({ type: 'spki', format: 'der' }).toString('latin1'));
  const info = seq([
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, '\x00'),
    name(opts.commonName ?? 'tester', opts.organizations ?? []),
    spki,
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, []),
  ]);
  const infoDer = Buffer.from(asn1.toDer(info).getBytes(), 'latin1');
  const signature = sign(ec ? 'sha256' : 'sha256', infoDer, privateKey);
  if (opts.tamper) signature[signature.length - 1] ^= 0xff;
  const algorithm = ec ? seq([oid('1.2.840.10045.4.3.2')]) : seq([oid('1.2.840.113549.1.1.11'), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')]);
  const bits = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\x00${signature.toString('latin1')}`);
  const der = asn1.toDer(seq([info, algorithm, bits])).getBytes();
  return forge.pem.encode({ type: 'CERTIFICATE REQUEST', body: der });
}

/** The JSON form of spec.request: the PEM, base64. */
export const requestField = (pem: string): string => Buffer.from(pem).toString('base64');
