/**
 * The serving certificate and key (--tls-cert-file, --tls-private-key-file, or the generated
 * pair) and the client CA (--client-ca-file) reloaded from disk while the server runs, as
 * kube-apiserver's dynamic certificate content does: a change is noticed by fs.watch on the
 * files' directories (which also sees a file replaced by rename or a symlink swap) and, should
 * an event be missed, by a poll every minute. New connections get the new certificate or CA
 * (server.setSecureContext); open connections and HTTP/2 sessions keep theirs. The X509
 * authenticator's pool is swapped, so a certificate of the new CA authenticates and one of a
 * removed CA no longer does, on any connection.
 *
 * A file that does not parse, a key that does not match the certificate, or a missing file is
 * logged (never its content) and the material in use is kept.
 */
import { createPrivateKey, createHash, X509Certificate } from 'node:crypto';
import { FSWatcher, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { CertificatePool, CertificatePoolHolder } from '../authn/cert-pool';
import { servingTlsOptions, ServingTlsFlags } from './tls-options';

export interface TlsReloadLog {
  info(msg: string, meta?: Record<string, unknown>): void;
  warn(msg: string, meta?: Record<string, unknown>): void;
}

export interface ServingTlsOptions {
  certFile: string;
  keyFile: string;
  /** The --client-ca-file to reload; without it `clientCa` is fixed (the generated CA). */
  clientCaFile?: string;
  clientCa: CertificatePool;
  /** The authenticating proxy's CA, also asked for in the handshake (not reloaded). */
  requestheaderCa?: CertificatePool;
  flags: ServingTlsFlags;
  log: TlsReloadLog;
  /** The fallback poll; 60 s as kube-apiserver. */
  pollMs?: number;
  /** false: no fs.watch, only the poll (file systems without change events; tests of the poll). */
  watchFiles?: boolean;
  /** Events come in bursts (a cert and then its key): the files are read once the burst is over. */
  debounceMs?: number;
}

interface Pair { cert: Buffer; key: Buffer; serial: string; digest: string }

const digest = (...parts: Buffer[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
};

/** The pair, checked: the certificate parses and the key is the certificate's. Throws a message without key material. */
function loadPair(certFile: string, keyFile: string): Pair {
  const cert = readFileSync(certFile);
  const key = readFileSync(keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`${certFile}: not a PEM certificate (${(err as Error).message})`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new Error(`${keyFile}: not a PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new Error(`${keyFile} does not match the certificate in ${certFile}`);
  return { cert, key, serial: x509.serialNumber, digest: digest(cert, key) };
}

export class ServingTls {
  /** What the X509 authenticator verifies client certificates against. */
  readonly clientCaPool: CertificatePoolHolder;
  private pair: Pair;
  private caDigest: string;
  /** The last content refused, so a bad file is logged once and not at every poll. */
  private refused = new Map<string, string>();
  private server?: tls.Server;
  private watchers: FSWatcher[] = [];
  private poll?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private readonly tlsOptions: ReturnType<typeof servingTlsOptions>;
  private readonly clientCaListeners: Array<(pem: string) => void> = [];

  /** Reads and checks the files now: a bad file stops the start. */
  constructor(private readonly opts: ServingTlsOptions) {
    this.pair = loadPair(opts.certFile, opts.keyFile);
    this.clientCaPool = new CertificatePoolHolder(opts.clientCa);
    this.caDigest = digest(Buffer.from(opts.clientCa.pem));
    this.tlsOptions = servingTlsOptions(opts.flags);
  }

  /** `listener` gets the new client CA bundle (PEM) after each reload of --client-ca-file. */
  onClientCaChange(listener: (pem: string) => void): void {
    this.clientCaListeners.push(listener);
  }

  /** The serving certificate's serial number (hex), as in use for new connections. */
  get serial(): string { return this.pair.serial; }

  /** The options of the secure context for new connections (for createSecureServer and each reload). */
  contextOptions(): tls.SecureContextOptions {
    return {
      cert: this.pair.cert, key: this.pair.key,
      // Clients are asked for a certificate of any trusted CA; which CA vouches for it decides
      // what it may do (lib/authn: client certificates, the request-header proxy).
      ca: CertificatePool.union(this.clientCaPool.current, this.opts.requestheaderCa).pem,
      ...this.tlsOptions,
    };
  }

  /** Starts watching the files; changes go to `server` for new connections. */
  watch(server: tls.Server): void {
    this.server = server;
    const files = [this.opts.certFile, this.opts.keyFile, ...(this.opts.clientCaFile ? [this.opts.clientCaFile] : [])];
    const dirs = this.opts.watchFiles === false ? [] : new Set(files.map((f) => path.dirname(path.resolve(f))));
    for (const dir of dirs) {
      try {
        const w = watch(dir, { persistent: false }, () => this.schedule());
        w.on('error', (err) => this.opts.log.warn('TLS files: watch failed; the poll still checks them', { dir, error: err.message }));
        this.watchers.push(w);
      } catch (err) {
        this.opts.log.warn('TLS files: cannot watch; the poll checks them', { dir, error: (err as Error).message });
      }
    }
    this.poll = setInterval(() => this.check(), this.opts.pollMs ?? 60_000);
    this.poll.unref();
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    clearInterval(this.poll);
    clearTimeout(this.debounce);
  }

  private schedule(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.check(), this.opts.debounceMs ?? 100);
    this.debounce.unref();
  }

  /** Reads the files; applies what changed and is valid. Public for tests and for a SIGHUP-style trigger. */
  check(): void {
    let changed = false;
    const refuse = (what: string, content: string, message: string) => {
      if (this.refused.get(what) === content) return;
      this.refused.set(what, content);
      this.opts.log.warn(`TLS reload: ${what} not loaded, the one in use is kept`, { error: message });
    };
    const { certFile, keyFile, clientCaFile } = this.opts;
    let pairDigest = '';
    try {
      pairDigest = digest(readFileSync(certFile), readFileSync(keyFile));
      if (pairDigest !== this.pair.digest) {
        const pair = loadPair(certFile, keyFile);
        // The context is built before anything is swapped: OpenSSL may refuse what the checks passed.
        tls.createSecureContext({ ...this.contextOptions(), cert: pair.cert, key: pair.key });
        this.pair = pair;
        this.refused.delete('serving certificate');
        changed = true;
        this.opts.log.info('TLS reload: new serving certificate', { certFile, serial: pair.serial });
      }
    } catch (err) {
      refuse('serving certificate', pairDigest || 'unreadable', (err as Error).message);
    }
    if (clientCaFile) {
      let caText = '';
      try {
        caText = readFileSync(clientCaFile, 'utf8');
        const caDigest = digest(Buffer.from(caText));
        if (caDigest !== this.caDigest) {
          const pool = CertificatePool.fromPem(caText, `--client-ca-file ${clientCaFile}`);
          this.clientCaPool.current = pool;
          this.caDigest = caDigest;
          this.refused.delete('client CA');
          changed = true;
          this.opts.log.info('TLS reload: new client CA bundle', { clientCaFile, certificates: pool.certificates.length });
          for (const listener of this.clientCaListeners) listener(pool.pem);
        }
      } catch (err) {
        refuse('client CA', caText ? digest(Buffer.from(caText)) : 'unreadable', (err as Error).message);
      }
    }
    if (changed && this.server) {
      // The session ticket keys stay, so clients resuming a session keep doing so.
      this.server.setSecureContext({ ...this.contextOptions(), ticketKeys: this.server.getTicketKeys() });
    }
  }
}
