/**
 * The front-proxy client identity (--proxy-client-cert-file, --proxy-client-key-file): the
 * certificate and key the server will present to extension API servers when the aggregation layer
 * proxies to them (issue 43). Loaded once at start so that a wrong pair stops the start with a
 * one-line reason, as kube-apiserver's does, instead of failing on the first proxied request.
 */
import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

/** The loaded pair, in PEM for a TLS client and as objects for checks. */
export interface ProxyClientIdentity {
  certPem: string;
  keyPem: string;
  /** The certificate's subject, for the log line at start (no key material). */
  subject: string;
}

function read(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--${flag}=${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * The pair of the two flags, or undefined when neither is given (the flag parser already refused
 * one without the other). Throws an Error with one line when a file cannot be read or parsed, or
 * when the key is not the certificate's.
 */
export function loadProxyClientIdentity(certFile: string, keyFile: string): ProxyClientIdentity | undefined {
  if (!certFile && !keyFile) return undefined;
  const certPem = read(certFile, 'proxy-client-cert-file');
  const keyPem = read(keyFile, 'proxy-client-key-file');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    throw new Error(`--proxy-client-cert-file=${certFile}: not a PEM certificate: ${(err as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    // The parser's message may quote the input: say only what is wrong.
    throw new Error(`--proxy-client-key-file=${keyFile}: not a PEM private key`);
  }
  if (!cert.checkPrivateKey(key)) {
    throw new Error(`--proxy-client-cert-file=${certFile} and --proxy-client-key-file=${keyFile}: private key does not match public key`);
  }
  return { certPem, keyPem, subject: cert.subject.replace(/\n/g, ', ') };
}
