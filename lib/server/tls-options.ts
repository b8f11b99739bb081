/**
 * --tls-min-version and --tls-cipher-suites, as kube-apiserver takes them: Go's version names
 * (VersionTLS10..VersionTLS13) and Go's cipher suite names (crypto/tls CipherSuites() and
 * InsecureCipherSuites(), plus the two legacy CHACHA20 aliases component-base keeps), mapped to
 * what Node's TLS (OpenSSL) calls them.
 *
 * As in Go, the suites apply to TLS 1.0-1.2 only: the TLS 1.3 suites are always enabled, and
 * naming one of them in the flag is accepted and changes nothing.
 */
import tls from 'node:tls';

/** TLS 1.3 with AES-128-GCM first, as Go's crypto/tls prefers on AES hardware. */
export const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_256_GCM_SHA384'];

/** Go name -> OpenSSL name; TLS 1.3 names are the same in both. */
export const GO_CIPHER_SUITES: Readonly<Record<string, string>> = {
  // tls.CipherSuites()
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // The legacy names component-base keeps.
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // tls.InsecureCipherSuites()
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

const TLS_VERSIONS: Readonly<Record<string, tls.SecureVersion>> = {
  VersionTLS10: 'TLSv1', VersionTLS11: 'TLSv1.1', VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3',
};
export const TLS_VERSION_NAMES = Object.keys(TLS_VERSIONS);

/** Whether this Node's OpenSSL can offer the suite (OpenSSL 3 has no RC4 and no 3DES at the default level). */
function offered(openssl: string): boolean {
  try {
    tls.createSecureContext({ ciphers: openssl });
    return true;
  } catch {
    return false;
  }
}

/** The flag's problem, in component-base's words for an unknown name; undefined when every name is usable. */
export function cipherSuitesProblem(names: string[]): string | undefined {
  for (const name of names) {
    const openssl = GO_CIPHER_SUITES[name];
    if (!openssl) return `Cipher suite ${name} not supported or doesn't exist`;
    if (!offered(openssl)) return `Cipher suite ${name} is not available in this server's TLS library (OpenSSL ${process.versions.openssl})`;
  }
  return undefined;
}

/** component-base's message for a version name it does not know; '' (the default, TLS 1.2) passes. */
export function tlsVersionProblem(name: string): string | undefined {
  return name === '' || TLS_VERSIONS[name] ? undefined : `unknown tls version ${JSON.stringify(name)}`;
}

export interface ServingTlsFlags {
  tlsMinVersion: string;
  tlsCipherSuites: string[];
}

/**
 * The cipher and version options of the serving TLS context. Without --tls-cipher-suites: TLS 1.3
 * suites first, then Node's defaults. With it: the TLS 1.3 suites (always on, as in Go) and the
 * listed suites for TLS 1.2 and older.
 */
export function servingTlsOptions(flags: ServingTlsFlags): Pick<tls.SecureContextOptions, 'ciphers' | 'minVersion' | 'honorCipherOrder'> {
  const below13 = flags.tlsCipherSuites.map((n) => GO_CIPHER_SUITES[n]).filter((s) => !TLS13_SUITES.includes(s));
  const minVersion = TLS_VERSIONS[flags.tlsMinVersion] ?? 'TLSv1.2';
  // OpenSSL 3's default security level refuses TLS 1.0 and 1.1 handshakes (SHA-1 signatures): a
  // minimum below 1.2 asks for them, so the level is lowered as OpenSSL documents, only then.
  const legacy = minVersion === 'TLSv1' || minVersion === 'TLSv1.1' ? ':@SECLEVEL=0' : '';
  const ciphers = flags.tlsCipherSuites.length
    ? [...TLS13_SUITES, ...new Set(below13)].join(':')
    : `${TLS13_SUITES.join(':')}:${tls.DEFAULT_CIPHERS}`;
  return { ciphers: ciphers + legacy, honorCipherOrder: true, minVersion };
}
