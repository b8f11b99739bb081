/**
 * First-start PKI: a private CA, the serving certificate and the admin client identity under
 * `<data-dir>/pki`, plus the kubeconfig that points stock clients at the server.
 *
 * The CA's and the client identities' keys are ECDSA P-256 (made in well under a millisecond); the
 * serving key is RSA 2048 as kube-apiserver's self-made one (TLS 1.2 clients limited to RSA cipher
 * suites keep working), made on Node's thread pool meanwhile. Certificates are written by x509.ts.
 */
import { createPrivateKey, createPublicKey, generateKeyPair, generateKeyPairSync, KeyObject, randomBytes, X509Certificate } from 'crypto';
import { promises as fsp, readFileSync } from 'fs';
import * as net from 'net';
import * as path from 'path';
import { certificatePem, keyIdentifier, name, subjectOf } from './x509';

/** Paths of the PKI files, plus the CA certificate's PEM (clients and the TLS server trust it). */
export interface Pki {
  caCertFile: string;
  caKeyFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  adminCertFile: string;
  adminKeyFile: string;
  caCertPem: string;
  /** With `servingLater`, while the serving pair is being made: settles once it is on disk. */
  serving?: Promise<void>;
}

export interface EnsurePkiOptions {
  /** DNS names and IP addresses the serving certificate must cover (its subjectAltNames). */
  serverHosts: string[];
  log?: (msg: string) => void;
  /**
   * Return once the CA and the admin identity are in place, with the serving pair (its RSA key:
   * ~0.25 s of the thread pool) still being made, in `Pki.serving`: a start overlaps it with its storage.
   */
  servingLater?: boolean;
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
  const serverKey = serverReason ? newKeyPem('rsa') : undefined;
  serverKey?.catch(() => undefined); // awaited below, or dropped with a CA that failed first
  const [caKey, adminKey] = await Promise.all([newCa ? newKeyPem('ec') : '', adminReason ? newKeyPem('ec') : '']);
  if (newCa) {
    log(`pki: creating CA ${files.caCertFile}`);
    caKeyPem = caKey;
    caCertPem = createCa(caKeyPem);
    await writeFileAtomic(files.caKeyFile, caKeyPem, 0o600);
    await writeFileAtomic(files.caCertFile, caCertPem, 0o644);
  }

  if (adminReason) {
    log(`pki: issuing admin client certificate ${files.adminCertFile} (${adminReason})`);
    const leaf = issueClientLeaf(caCertPem, caKeyPem, adminKey, { commonName: ADMIN_COMMON_NAME, organizations: [ADMIN_GROUP] });
    await writeFileAtomic(files.adminKeyFile, leaf.keyPem, 0o600);
    await writeFileAtomic(files.adminCertFile, leaf.certPem, 0o644);
  }

  const serving = serverKey && (async () => {
    log(`pki: issuing serving certificate ${files.serverCertFile} (${serverReason}) for ${hosts.join(', ')}`);
    const leaf = issueLeaf(caCertPem, caKeyPem, await serverKey, { subject: name(SERVER_COMMON_NAME), extKeyUsage: ['serverAuth'], hosts });
    await writeFileAtomic(files.serverKeyFile, leaf.keyPem, 0o600);
    await writeFileAtomic(files.serverCertFile, leaf.certPem, 0o644);
  })();
  if (serving && opts.servingLater) {
    serving.catch(() => undefined); // the caller awaits it
    return { ...files, caCertPem, serving };
  }
  await serving;
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
  const leaf = issueLeaf(pki.caCertPem, caKeyPem, await newKeyPem('rsa'), { subject: name(SERVER_COMMON_NAME), extKeyUsage: ['serverAuth'], hosts });
  await writeFileAtomic(keyFile, leaf.keyPem, 0o600);
  await writeFileAtomic(certFile, leaf.certPem, 0o644);
  return { certFile, keyFile };
}

/**
 * Issues a client certificate (extKeyUsage clientAuth, 1 year) signed by the CA of `pki`, with a
 * fresh ECDSA P-256 key. The CN is the user name and each organization a group, as the x509
 * authenticator reads them. Nothing is written to disk.
 */
export function signClientCertificate(pki: Pki, identity: ClientIdentity): { certPem: string; keyPem: string } {
  const caKeyPem = readFileSync(pki.caKeyFile, 'utf8');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return issueClientLeaf(pki.caCertPem, caKeyPem, privateKey.export({ type: 'sec1', format: 'pem' }).toString(), identity);
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

/** A new key made on Node's thread pool: RSA 2048 (PKCS #1 PEM) or ECDSA P-256 (SEC 1 PEM). */
function newKeyPem(type: 'rsa' | 'ec'): Promise<string> {
  const done = (resolve: (pem: string) => void, reject: (err: Error) => void) => (err: Error | null, _publicKey: KeyObject, privateKey: KeyObject) => {
    if (err) reject(err);
    else resolve(privateKey.export({ type: type === 'rsa' ? 'pkcs1' : 'sec1', format: 'pem' }).toString());
  };
  return new Promise((resolve, reject) => (type === 'rsa'
    ? generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, done(resolve, reject))
    : generateKeyPair('ec', { namedCurve: 'P-256' }, done(resolve, reject))));
}

/**
 * A random positive serial of 16 bytes. The first byte is kept in 0x01..0x7f: a set high bit would
 * make the DER INTEGER negative and a zero byte would make it non-minimal, both rejected by Go.
 */
function randomSerial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0] & 0x7f || 0x01;
  return bytes;
}

/** notBefore backdated (clock skew), notAfter `days` from now. */
function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + days * DAY_MS) };
}

/** The self-signed CA certificate (PEM) of `keyPem`. */
function createCa(keyPem: string): string {
  const key = createPrivateKey(keyPem);
  const subject = name(CA_COMMON_NAME);
  return certificatePem({
    serial: randomSerial(), subject, issuer: subject, ...validity(CA_VALIDITY_DAYS), publicKey: createPublicKey(key), ca: true,
    keyUsage: ['digitalSignature', 'keyCertSign', 'cRLSign'], signingKey: key,
  });
}

interface LeafSpec {
  subject: Buffer;
  extKeyUsage: Array<'serverAuth' | 'clientAuth'>;
  hosts?: string[];
}

function issueClientLeaf(caCertPem: string, caKeyPem: string, keyPem: string, identity: ClientIdentity): { certPem: string; keyPem: string } {
  if (!identity.commonName) throw new Error('signClientCertificate: commonName is required');
  return issueLeaf(caCertPem, caKeyPem, keyPem, { subject: name(identity.commonName, identity.organizations), extKeyUsage: ['clientAuth'] });
}

/** A certificate for `keyPem` signed by the CA. */
function issueLeaf(caCertPem: string, caKeyPem: string, keyPem: string, spec: LeafSpec): { certPem: string; keyPem: string } {
  const ca = new X509Certificate(caCertPem);
  const certPem = certificatePem({
    serial: randomSerial(), subject: spec.subject, issuer: subjectOf(ca.raw), ...validity(LEAF_VALIDITY_DAYS),
    publicKey: createPublicKey(keyPem), ca: false, keyUsage: ['digitalSignature', 'keyEncipherment'], extKeyUsage: spec.extKeyUsage,
    hosts: spec.hosts, authorityKeyId: keyIdentifier(ca.publicKey), signingKey: createPrivateKey(caKeyPem),
  });
  return { certPem, keyPem };
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
