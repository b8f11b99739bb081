/**
 * --tls-min-version and --tls-cipher-suites on the serving port, checked with real handshakes:
 * what a client offers and what the server agrees to, as kube-apiserver's Go TLS would.
 */
import { expect } from 'chai';
import tls from 'node:tls';
import { FlagError, parseFlags } from '../../lib/server/flags';
import { startTestServer, TestServer } from '../helpers/server-harness';

interface Handshake { protocol: string | null; cipher: string; }

/** A handshake with the server (no request); rejects with the TLS error when it fails. */
function handshake(t: TestServer, opts: tls.ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect({
      host: '127.0.0.1', port: t.server.port, ca: t.server.pki.caCertPem, servername: 'localhost', ...opts,
    }, () => {
      const result = { protocol: sock.getProtocol(), cipher: sock.getCipher().name };
      sock.end();
      resolve(result);
    });
    sock.once('error', reject);
  });
}

describe('TLS flags: --tls-min-version and --tls-cipher-suites', () => {
  describe('flag values', () => {
    const error = (args: string[]) => {
      try {
        parseFlags(args);
      } catch (err) {
        expect(err).to.be.instanceOf(FlagError);
        return (err as FlagError).message;
      }
      throw new Error('no error');
    };

    it('refuses an unknown cipher suite with component-base\'s message', () => {
      expect(error(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_MADE_UP_SUITE']))
        .to.equal('invalid value "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_MADE_UP_SUITE" for --tls-cipher-suites: '
          + 'Cipher suite TLS_MADE_UP_SUITE not supported or doesn\'t exist');
      // OpenSSL names are not Go names.
      expect(error(['--tls-cipher-suites=ECDHE-RSA-AES128-GCM-SHA256'])).to.contain('Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn\'t exist');
    });

    it('refuses a Go suite OpenSSL cannot offer (RC4) with its own message', () => {
      expect(error(['--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'])).to.match(/Cipher suite TLS_RSA_WITH_RC4_128_SHA is not available in this server's TLS library/);
    });

    it('refuses an unknown TLS version as component-base does, and takes the four Go names', () => {
      expect(error(['--tls-min-version=TLS12'])).to.equal('invalid value "TLS12" for --tls-min-version: unknown tls version "TLS12"');
      for (const v of ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']) {
        expect(parseFlags([`--tls-min-version=${v}`]).tlsMinVersion).to.equal(v);
      }
    });

    it('takes the legacy CHACHA20 aliases and the TLS 1.3 names', () => {
      expect(parseFlags(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305,TLS_AES_128_GCM_SHA256']).tlsCipherSuites)
        .to.deep.equal(['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_AES_128_GCM_SHA256']);
    });
  });

  describe('--tls-min-version=VersionTLS13', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--tls-min-version=VersionTLS13']); });
    after(async () => { await t?.stop(); });

    it('refuses a client that offers at most TLS 1.2', async () => {
      const err = await handshake(t, { maxVersion: 'TLSv1.2' }).then(() => undefined, (e: Error) => e);
      expect(err, 'handshake should fail').to.be.instanceOf(Error);
      expect((err as NodeJS.ErrnoException).code).to.match(/ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION|ERR_SSL_UNSUPPORTED_PROTOCOL/);
    });

    it('serves a TLS 1.3 client', async () => {
      expect((await handshake(t, {})).protocol).to.equal('TLSv1.3');
      expect((await t.get('/version')).status).to.equal(200);
    });
  });

  describe('--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']); });
    after(async () => { await t?.stop(); });

    it('negotiates the listed suite with a TLS 1.2 client that offers several', async () => {
      const h = await handshake(t, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-GCM-SHA256' });
      expect(h).to.deep.equal({ protocol: 'TLSv1.2', cipher: 'ECDHE-RSA-AES128-GCM-SHA256' });
    });

    it('refuses a TLS 1.2 client that offers only unlisted suites', async () => {
      const err = await handshake(t, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305' })
        .then(() => undefined, (e: Error) => e);
      expect(err, 'handshake should fail').to.be.instanceOf(Error);
      expect((err as NodeJS.ErrnoException).code).to.equal('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE');
    });

    it('keeps the TLS 1.3 suites on, as Go does', async () => {
      expect(await handshake(t, {})).to.deep.equal({ protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256' });
      expect((await t.get('/version')).status).to.equal(200);
    });
  });

  // The client lowers its own OpenSSL security level, or it would refuse TLS 1.0/1.1 itself.
  const legacyClient = (v: tls.SecureVersion): tls.ConnectionOptions => ({ minVersion: v, maxVersion: v, ciphers: 'DEFAULT:@SECLEVEL=0' });

  describe('defaults', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('serves TLS 1.2 (the default minimum, as kube-apiserver) and prefers TLS_AES_128_GCM_SHA256 on TLS 1.3', async () => {
      expect((await handshake(t, { maxVersion: 'TLSv1.2' })).protocol).to.equal('TLSv1.2');
      expect(await handshake(t, {})).to.deep.equal({ protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256' });
    });

    it('refuses a TLS 1.1 client', async () => {
      const err = await handshake(t, legacyClient('TLSv1.1')).then(() => undefined, (e: Error) => e);
      expect(err, 'handshake should fail').to.be.instanceOf(Error);
    });
  });

  describe('--tls-min-version=VersionTLS10', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--tls-min-version=VersionTLS10']); });
    after(async () => { await t?.stop(); });

    it('serves a TLS 1.0 client, which OpenSSL 3 refuses at its default security level', async () => {
      expect((await handshake(t, legacyClient('TLSv1'))).protocol).to.equal('TLSv1');
    });
  });
});
