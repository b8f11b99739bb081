/**
 * First-start PKI: a private CA, the serving certificate and the admin client identity under
 * `<data-dir>/pki`, plus the kubeconfig that points stock clients at the server.
 *
 * Keys come from Node's native RSA generator, the keys a start needs made together off the main
 * thread (RSA key generation is most of a first start), and are handed to node-forge as PEM,
 * because forge's pure-JS key generation takes seconds per key. Certificates are built with forge
 * and signed by Node's native RSA (forge's own signing, in JS, costs tens of milliseconds each).
 */
import { constants, createPrivateKey, createPublicKey, generateKeyPair, generateKeyPairSync, privateEncrypt, randomBytes, X509Certificate } from 'crypto';
import { promises as fsp, readFileSync } from 'fs';
import * as net from 'net';
import * as path from 'path';
import forge from 'node-forge';

/** Paths of the PKI files, plus the CA certificate's PEM (clients and the TLS server trust it). */
export interface Pki {
  caCertFile: string;
  caKeyFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  adminCertFile: string;
  adminKeyFile: string;
  caCertPem: string;
}

export interface EnsurePkiOptions {
  /** DNS names and IP addresses the serving certificate must cover (its subjectAltNames). */
  serverHosts: string[];
  log?: (msg: string) => void;
}

export interface ClientIdentity {
  /** Becomes the user name. */
  commonName: string;
  /** Become the groups (e.g. `system:masters`). */
  organizations?: string[];
}

export interface KubeconfigOptions {
  /** e.g. `https://127.0.0.1:6443` */
  server: string;
  caCertPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  user?: string;
  cluster?: string;
  context?: string;
}

export const CA_COMMON_NAME = 'orch-apiserver-ca';
export const SERVER_COMMON_NAME = 'orch-apiserver';
export const ADMIN_COMMON_NAME = 'orch-admin';
export const ADMIN_GROUP = 'system:masters';

const DAY_MS = 24 * 60 * 60 * 1000;
const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 365;
// A leaf this close to expiry is replaced at start rather than left to fail in production.
const RENEW_BEFORE_DAYS = 30;
// Tolerates clocks that lag behind the machine that issued the certificate.
const BACKDATE_MS = 5 * 60 * 1000;

/**
 * Makes sure `pkiDir` holds a CA, a serving certificate and an admin client certificate, creating
 * what is missing (keys mode 0600, directory mode 0700). Existing files are reused; a leaf is
 * re-issued only when it is missing, not issued by the CA on disk, within 30 days of expiry, or
 * (serving certificate) does not cover every entry of `serverHosts`. A new CA re-issues both leaves.
 * Throws when only one half of the CA (certificate or key) exists: silently replacing a CA would
 * invalidate every credential signed by it.
 */
export async function ensurePki(pkiDir: string, opts: EnsurePkiOptions): Promise<Pki> {
  const log = opts.log ?? (() => undefined);
  const files = pkiFiles(pkiDir);
  await fsp.mkdir(pkiDir, { recursive: true, mode: 0o700 });

  const haveCaCert = await exists(files.caCertFile);
  const haveCaKey = await exists(files.caKeyFile);
  if (haveCaCert !== haveCaKey) {
    const present = haveCaCert ? files.caCertFile : files.caKeyFile;
    throw new Error(`incomplete CA in ${pkiDir}: only ${present} exists; restore the other half or remove it to create a new CA`);
  }
  const newCa = !haveCaCert;
  const hosts = uniqueHosts(opts.serverHosts);
  let caCertPem = '';
  let caKeyPem = '';
  let serverReason = 'new CA';
  let adminReason = 'new CA';
  if (!newCa) {
    caCertPem = await fsp.readFile(files.caCertFile, 'utf8');
    caKeyPem = await fsp.readFile(files.caKeyFile, 'utf8');
    const caX509 = new X509Certificate(caCertPem);
    serverReason = await leafRenewalReason(files.serverCertFile, files.serverKeyFile, caX509, hosts);
    adminReason = await leafRenewalReason(files.adminCertFile, files.adminKeyFile, caX509, []);
  }
  const [caKey, serverKey, adminKey] = await Promise.all([newCa, serverReason !== '', adminReason !== ''].map((needed) => (needed ? newKeyPem() : '')));
  if (newCa) {
    log(`pki: creating CA ${files.caCertFile}`);
    caKeyPem = caKey;
    caCertPem = createCa(caKeyPem);
    await writeFileAtomic(files.caKeyFile, caKeyPem, 0o600);
    await writeFileAtomic(files.caCertFile, caCertPem, 0o644);
  }

  if (serverReason) {
    log(`pki: issuing serving certificate ${files.serverCertFile} (${serverReason}) for ${hosts.join(', ')}`);
    const leaf = issueLeaf(caCertPem, caKeyPem, serverKey, {
      subject: [{ name: 'commonName', value: SERVER_COMMON_NAME }],
      extKeyUsage: { name: 'extKeyUsage', serverAuth: true },
      altNames: hosts.map((h) => (net.isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    });
    await writeFileAtomic(files.serverKeyFile, leaf.keyPem, 0o600);
    await writeFileAtomic(files.serverCertFile, leaf.certPem, 0o644);
  }

  if (adminReason) {
    log(`pki: issuing admin client certificate ${files.adminCertFile} (${adminReason})`);
    const leaf = issueClientLeaf(caCertPem, caKeyPem, adminKey, { commonName: ADMIN_COMMON_NAME, organizations: [ADMIN_GROUP] });
    await writeFileAtomic(files.adminKeyFile, leaf.keyPem, 0o600);
    await writeFileAtomic(files.adminCertFile, leaf.certPem, 0o644);
  }

  return { ...files, caCertPem };
}

/**
 * --cert-dir, as kube-apiserver reads it: `dir`/apiserver.crt and apiserver.key are the serving pair
 * when both exist (used as they are, whoever issued them); when neither does, a pair for `serverHosts`
 * issued by the CA of `pki` is written there. Only one of the two is an error, as a half-written pair.
 */
export async function ensureCertDirPair(dir: string, pki: Pki, serverHosts: string[], log: (msg: string) => void = () => undefined): Promise<{ certFile: string; keyFile: string }> {
  const certFile = path.join(dir, 'apiserver.crt');
  const keyFile = path.join(dir, 'apiserver.key');
  const haveCert = await exists(certFile);
  const haveKey = await exists(keyFile);
  if (haveCert && haveKey) return { certFile, keyFile };
  if (haveCert !== haveKey) {
    throw new Error(`--cert-dir ${dir}: only ${haveCert ? certFile : keyFile} exists; give both apiserver.crt and apiserver.key, or neither`);
  }
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const hosts = uniqueHosts(serverHosts);
  log(`pki: issuing serving certificate ${certFile} (--cert-dir) for ${hosts.join(', ')}`);
  const caKeyPem = await fsp.readFile(pki.caKeyFile, 'utf8');
  const leaf = issueLeaf(pki.caCertPem, caKeyPem, await newKeyPem(), {
    subject: [{ name: 'commonName', value: SERVER_COMMON_NAME }],
    extKeyUsage: { name: 'extKeyUsage', serverAuth: true },
    altNames: hosts.map((h) => (net.isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
  });
  await writeFileAtomic(keyFile, leaf.keyPem, 0o600);
  await writeFileAtomic(certFile, leaf.certPem, 0o644);
  return { certFile, keyFile };
}

/**
 * Issues a client certificate (extKeyUsage clientAuth, 1 year) signed by the CA of `pki`, with a
 * fresh RSA 2048 key. The CN is the user name and each organization a group, as the x509
 * authenticator reads them. Nothing is written to disk.
 */
export function signClientCertificate(pki: Pki, identity: ClientIdentity): { certPem: string; keyPem: string } {
  const caKeyPem = readFileSync(pki.caKeyFile, 'utf8');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  return issueClientLeaf(pki.caCertPem, caKeyPem, privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), identity);
}

/**
 * Writes a kubeconfig (JSON, which kubectl and client libraries read as YAML) with one cluster,
 * one user and one current context, credentials embedded as base64 `*-data` fields. Mode 0600:
 * the file holds a private key.
 */
export async function writeKubeconfig(file: string, opts: KubeconfigOptions): Promise<void> {
  const user = opts.user ?? ADMIN_COMMON_NAME;
  const cluster = opts.cluster ?? 'orch';
  const context = opts.context ?? 'orch-admin';
  const b64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caCertPem) } }],
    users: [{
      name: user,
      user: { 'client-certificate-data': b64(opts.clientCertPem), 'client-key-data': b64(opts.clientKeyPem) },
    }],
    contexts: [{ name: context, context: { cluster, user } }],
    'current-context': context,
  };
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(config, null, 2) + '\n', 0o600);
}

function pkiFiles(dir: string): Omit<Pki, 'caCertPem'> {
  return {
    caCertFile: path.join(dir, 'ca.crt'),
    caKeyFile: path.join(dir, 'ca.key'),
    serverCertFile: path.join(dir, 'apiserver.crt'),
    serverKeyFile: path.join(dir, 'apiserver.key'),
    adminCertFile: path.join(dir, 'admin.crt'),
    adminKeyFile: path.join(dir, 'admin.key'),
  };
}

/** A new RSA 2048 key (PKCS #1 PEM), made on Node's thread pool. */
function newKeyPem(): Promise<string> {
  return new Promise((resolve, reject) => generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, (err, _publicKey, privateKey) => {
    if (err) reject(err);
    else resolve(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  }));
}

/** The public half of a private key, as forge puts it in a certificate. */
function forgePublicKey(keyPem: string): forge.pki.PublicKey {
  return forge.pki.publicKeyFromPem(createPublicKey(keyPem).export({ type: 'spki', format: 'pem' }).toString());
}

/** SHA-256's DigestInfo before the digest (RFC 8017 section 9.2): what PKCS #1 v1.5 signs. */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** Signs a forge certificate (forge hands over the SHA-256 of its TBSCertificate) with Node's native RSA. */
function signWith(cert: forge.pki.Certificate, keyPem: string): void {
  const key = createPrivateKey(keyPem);
  const signer = {
    sign: (md: forge.md.MessageDigest) => privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'latin1')])).toString('latin1'),
  };
  cert.sign(signer as unknown as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
}

/**
 * A random positive serial of 16 bytes. The first byte is kept in 0x01..0x7f: a set high bit would
 * make the DER INTEGER negative and a zero byte would make it non-minimal, both rejected by Go.
 */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0] & 0x7f || 0x01;
  return bytes.toString('hex');
}

function validity(cert: forge.pki.Certificate, days: number): void {
  const now = Date.now();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + days * DAY_MS);
}

/** The self-signed CA certificate (PEM) of `keyPem`. */
function createCa(keyPem: string): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forgePublicKey(keyPem);
  cert.serialNumber = randomSerial();
  validity(cert, CA_VALIDITY_DAYS);
  const subject = [{ name: 'commonName', value: CA_COMMON_NAME }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signWith(cert, keyPem);
  return forge.pki.certificateToPem(cert);
}

interface LeafSpec {
  subject: forge.pki.CertificateField[];
  extKeyUsage: Record<string, unknown>;
  altNames?: Array<Record<string, unknown>>;
}

function issueClientLeaf(caCertPem: string, caKeyPem: string, keyPem: string, identity: ClientIdentity): { certPem: string; keyPem: string } {
  if (!identity.commonName) throw new Error('signClientCertificate: commonName is required');
  const subject: forge.pki.CertificateField[] = (identity.organizations ?? []).map((o) => ({ name: 'organizationName', value: o }));
  subject.push({ name: 'commonName', value: identity.commonName });
  return issueLeaf(caCertPem, caKeyPem, keyPem, { subject, extKeyUsage: { name: 'extKeyUsage', clientAuth: true } });
}

/** A certificate for `keyPem` signed by the CA. */
function issueLeaf(caCertPem: string, caKeyPem: string, keyPem: string, spec: LeafSpec): { certPem: string; keyPem: string } {
  const caCert = forge.pki.certificateFromPem(caCertPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forgePublicKey(keyPem);
  cert.serialNumber = randomSerial();
  validity(cert, LEAF_VALIDITY_DAYS);
  cert.setSubject(spec.subject);
  cert.setIssuer(caCert.subject.attributes);
  const extensions: Array<Record<string, unknown>> = [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    spec.extKeyUsage,
    { name: 'subjectKeyIdentifier' },
  ];
  const caSki = caCert.getExtension('subjectKeyIdentifier') as { subjectKeyIdentifier?: string } | undefined;
  if (caSki?.subjectKeyIdentifier) {
    extensions.push({ name: 'authorityKeyIdentifier', keyIdentifier: forge.util.hexToBytes(caSki.subjectKeyIdentifier) });
  }
  if (spec.altNames?.length) extensions.push({ name: 'subjectAltName', altNames: spec.altNames });
  cert.setExtensions(extensions);
  signWith(cert, caKeyPem);
  return { certPem: forge.pki.certificateToPem(cert), keyPem };
}

/** Why an existing leaf must be re-issued, or '' when it is fit for use. */
async function leafRenewalReason(certFile: string, keyFile: string, ca: X509Certificate, hosts: string[]): Promise<string> {
  if (!(await exists(certFile)) || !(await exists(keyFile))) return 'missing';
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(await fsp.readFile(certFile));
  } catch {
    return 'unreadable';
  }
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return 'not issued by the current CA';
  if (Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_DAYS * DAY_MS) return 'expiring';
  const uncovered = hosts.filter((h) => (net.isIP(h) ? !cert.checkIP(h) : !cert.checkHost(h, { subject: 'never' })));
  if (uncovered.length) return `does not cover ${uncovered.join(', ')}`;
  return '';
}

function uniqueHosts(hosts: string[]): string[] {
  return [...new Set(hosts.map((h) => h.trim()).filter((h) => h.length > 0))];
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}

// Write-then-rename so a crash never leaves a half-written key; the mode is set before any
// secret bytes land in the file.
async function writeFileAtomic(file: string, data: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fsp.writeFile(tmp, data, { mode });
    await fsp.chmod(tmp, mode); // the umask may have narrowed or the mode of a reused file differed
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}
