/**
 * The few X.509 certificates the server makes for itself (its CA, serving and client leaves),
 * written as DER directly and signed by Node's crypto, so that the CA's key may be RSA or ECDSA
 * (node-forge writes RSA certificates only, and loading it costs a start about 100 ms).
 */
import { createHash, KeyObject, sign } from 'node:crypto';
import * as net from 'node:net';

type Der = Buffer;

function tlv(tag: number, content: Buffer): Der {
  const n = content.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...len]), content]);
}

const seq = (...items: Der[]): Der => tlv(0x30, Buffer.concat(items));
const set = (...items: Der[]): Der => tlv(0x31, Buffer.concat(items));
const octets = (b: Buffer): Der => tlv(0x04, b);
const bits = (b: Buffer, unused = 0): Der => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
const utf8 = (s: string): Der => tlv(0x0c, Buffer.from(s, 'utf8'));
const TRUE = tlv(0x01, Buffer.from([0xff]));

function oid(dotted: string): Der {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A non-negative INTEGER of big-endian `bytes` (a leading zero added when the high bit is set). */
function unsigned(bytes: Buffer): Der {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const b = bytes.subarray(i);
  return tlv(0x02, b[0] & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

/** UTCTime up to 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(date: Date): Der {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

/** The children of a DER SEQUENCE (or any constructed value), each as its whole encoding. */
export function derChildren(der: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let { start: pos, end } = header(der, 0);
  while (pos < end) {
    const h = header(der, pos);
    out.push(der.subarray(pos, h.end));
    pos = h.end;
  }
  return out;
}

function header(der: Buffer, at: number): { start: number; end: number } {
  let len = der[at + 1];
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at + 2 + i];
    start += n;
  }
  return { start, end: start + len };
}

/** The contents of a DER value (after its tag and length). */
const contents = (der: Buffer): Buffer => der.subarray(header(der, 0).start, header(der, 0).end);

/** An X.509 Name of `organizations` (O) then `commonName` (CN), as kube's certificates put them. */
export function name(commonName: string, organizations: string[] = []): Der {
  const rdn = (type: string, value: string) => set(seq(oid(type), utf8(value)));
  return seq(...organizations.map((o) => rdn('2.5.4.10', o)), rdn('2.5.4.3', commonName));
}

/** A certificate's subject Name, as it is encoded there (a leaf's issuer must match it byte for byte). */
export function subjectOf(certDer: Buffer): Der {
  const fields = derChildren(derChildren(certDer)[0]);
  const first = fields[0][0] === 0xa0 ? 1 : 0;
  return fields[first + 4];
}

/** RFC 5280's key identifier (method 1): the SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const [, key] = derChildren(publicKey.export({ type: 'spki', format: 'der' }));
  return createHash('sha1').update(contents(key).subarray(1)).digest();
}

/** KeyUsage's bit numbers (RFC 5280 4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 };
const EXT_KEY_USAGE = { serverAuth: '1.3.6.1.5.5.7.3.1', clientAuth: '1.3.6.1.5.5.7.3.2' };

export interface CertificateSpec {
  serial: Buffer;
  subject: Der;
  /** The issuer's subject; the certificate's own for a self-signed one. */
  issuer: Der;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  ca: boolean;
  keyUsage: Array<keyof typeof KEY_USAGE>;
  extKeyUsage?: Array<keyof typeof EXT_KEY_USAGE>;
  /** DNS names and IP addresses (subjectAltName). */
  hosts?: string[];
  /** The issuer's key identifier (authorityKeyIdentifier), absent on a self-signed one. */
  authorityKeyId?: Buffer;
  signingKey: KeyObject;
}

function extension(id: string, critical: boolean, value: Der): Der {
  return critical ? seq(oid(id), TRUE, octets(value)) : seq(oid(id), octets(value));
}

function keyUsageBits(usage: Array<keyof typeof KEY_USAGE>): Der {
  const bytes = [0, 0];
  for (const b of usage.map((u) => KEY_USAGE[u])) bytes[b >> 3] |= 0x80 >> (b & 7);
  const used = bytes[1] ? bytes : [bytes[0]];
  const last = used[used.length - 1];
  let unused = 0;
  while (unused < 7 && !(last & (1 << unused))) unused++;
  return bits(Buffer.from(used), unused);
}

function ipBytes(ip: string): Buffer {
  if (net.isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  const [head, tail = ''] = ip.split('::');
  const groups = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::') ? [...h, ...new Array(8 - h.length - t.length).fill(0), ...t] : h;
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

/** The signature algorithm of a CA key: its AlgorithmIdentifier (SHA-256 with RSA or ECDSA P-256). */
function signatureAlgorithm(key: KeyObject): Der {
  if (key.asymmetricKeyType === 'rsa') return seq(oid('1.2.840.113549.1.1.11'), tlv(0x05, Buffer.alloc(0)));
  if (key.asymmetricKeyType === 'ec') return seq(oid('1.2.840.10045.4.3.2'));
  throw new Error(`unsupported signing key type ${String(key.asymmetricKeyType)}`);
}

/** The certificate `spec` describes, signed, as PEM. */
export function certificatePem(spec: CertificateSpec): string {
  const algorithm = signatureAlgorithm(spec.signingKey);
  const extensions = [
    extension('2.5.29.19', true, spec.ca ? seq(TRUE) : seq()),
    extension('2.5.29.15', true, keyUsageBits(spec.keyUsage)),
    ...(spec.extKeyUsage?.length ? [extension('2.5.29.37', false, seq(...spec.extKeyUsage.map((u) => oid(EXT_KEY_USAGE[u]))))] : []),
    extension('2.5.29.14', false, octets(keyIdentifier(spec.publicKey))),
    ...(spec.authorityKeyId ? [extension('2.5.29.35', false, seq(tlv(0x80, spec.authorityKeyId)))] : []),
    ...(spec.hosts?.length
      ? [extension('2.5.29.17', false, seq(...spec.hosts.map((h) => (net.isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii'))))))]
      : []),
  ];
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    unsigned(spec.serial),
    algorithm,
    spec.issuer,
    seq(time(spec.notBefore), time(spec.notAfter)),
    spec.subject,
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, spec.signingKey);
  const der = seq(tbs, algorithm, bits(signature));
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}
