import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { Context } from 'koa';
import { RequestHeaderAuthenticator, loadRequestHeaderPool, userFromHeaders } from '../../../lib/authn/request-header';
import { unescapeExtraKey } from '../../../lib/meta/user';
import { X509Authenticator } from '../../../lib/authn/x509';
import { AuthenticationChain } from '../../../lib/authn/chain';
import { CertificatePool } from '../../../lib/authn/cert-pool';
import { authnRequestOf } from '../../../lib/authn/request';
import { AuthnRequest } from '../../../lib/authn/authenticator';
import { createTestCa, fakeTlsSocket, issueTestCert } from '../../helpers/test-ca';

/** An AuthnRequest over a Node-like request with these header lines (Node joins repeats with ", "). */
function request(lines: [string, string][], socket?: TLSSocket): { req: AuthnRequest; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const [k, v] of lines) {
    const key = k.toLowerCase();
    headers[key] = headers[key] === undefined ? v : `${headers[key]}, ${v}`;
  }
  const incoming = { headers, rawHeaders: lines.flat(), socket };
  return { req: authnRequestOf({ req: incoming } as unknown as Context), headers };
}

/** The headers a later stage still sees (removed ones are cleared to undefined, not deleted). */
const present = (headers: Record<string, string | undefined>) => Object.keys(headers).filter((k) => headers[k] !== undefined);

const NAMES = { usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

describe('request-header authentication', () => {
  describe('userFromHeaders', () => {
    it('takes the first username header with a non-empty value, in flag order', () => {
      const names = { ...NAMES, usernameHeaders: ['X-Remote-User', 'X-Proxy-User', 'X-Last-User'] };
      const { req } = request([['X-Last-User', 'carol'], ['X-Remote-User', ''], ['X-Proxy-User', 'bob']]);
      expect(userFromHeaders(req, names)).to.deep.equal({ name: 'bob', groups: [] });
    });

    it('reads only the first line of a username header (Go: Header.Get)', () => {
      const names = { ...NAMES, usernameHeaders: ['X-Remote-User', 'X-Proxy-User'] };
      expect(userFromHeaders(request([['X-Remote-User', 'alice'], ['X-Remote-User', 'mallory']]).req, names)?.name).to.equal('alice');
      // An empty first line moves on to the next header, not to the second line.
      expect(userFromHeaders(request([['X-Remote-User', ''], ['X-Remote-User', 'mallory'], ['X-Proxy-User', 'bob']]).req, names)?.name).to.equal('bob');
    });

    it('without a user name there is no user, whatever else is sent', () => {
      expect(userFromHeaders(request([['X-Remote-Group', 'system:masters'], ['X-Remote-User', '']]).req, NAMES)).to.equal(undefined);
      expect(userFromHeaders(request([]).req, NAMES)).to.equal(undefined);
    });

    it('makes each line of every group header one group (commas kept, empty lines skipped)', () => {
      const names = { ...NAMES, groupHeaders: ['X-Remote-Group', 'X-Other-Group'] };
      const { req } = request([
        ['X-Remote-User', 'alice'], ['X-Other-Group', 'third'], ['X-Remote-Group', 'one'], ['x-remote-group', 'two, still two'],
        ['X-Remote-Group', ''],
      ]);
      expect(userFromHeaders(req, names)).to.deep.equal({ name: 'alice', groups: ['one', 'two, still two', 'third'] });
    });

    it('makes extra keys from prefixed headers: case-insensitive prefix, key lower-cased then percent-decoded', () => {
      const { req } = request([
        ['X-Remote-User', 'alice'],
        ['X-Remote-Extra-Scopes', 'read'], ['x-remote-extra-scopes', 'write'],
        ['x-REMOTE-extra-Foo%2fBar', 'slash'],
        ['X-Remote-Extra-%41cme', 'escaped capital'],
        ['X-Remote-Extra-Bad%zz', 'malformed'],
        ['X-Remote-Extra-Empty', ''],
      ]);
      expect(userFromHeaders(req, NAMES)).to.deep.equal({
        name: 'alice', groups: [],
        extra: { scopes: ['read', 'write'], 'foo/bar': ['slash'], Acme: ['escaped capital'], 'bad%zz': ['malformed'], empty: [''] },
      });
    });

    it('reads several extra prefixes', () => {
      const names = { ...NAMES, extraHeaderPrefixes: ['X-Remote-Extra-', 'X-Proxy-Extra-'] };
      const { req } = request([['X-Remote-User', 'alice'], ['X-Proxy-Extra-Team', 'b'], ['X-Remote-Extra-Team', 'a']]);
      expect(userFromHeaders(req, names)?.extra).to.deep.equal({ team: ['a', 'b'] });
    });
  });

  describe('unescapeExtraKey', () => {
    it('decodes %XX escapes (UTF-8) and keeps a malformed key as sent', () => {
      expect(unescapeExtraKey('example.org%2fscope')).to.equal('example.org/scope');
      expect(unescapeExtraKey('caf%c3%a9')).to.equal('café');
      expect(unescapeExtraKey('a+b')).to.equal('a+b');
      expect(unescapeExtraKey('100%')).to.equal('100%');
      expect(unescapeExtraKey('%4')).to.equal('%4');
      expect(unescapeExtraKey('%g1x')).to.equal('%g1x');
    });
  });

  describe('RequestHeaderAuthenticator', () => {
    const proxyCa = createTestCa('front-proxy-ca');
    const clientCa = createTestCa('client-ca');
    const proxyPool = CertificatePool.fromPem(proxyCa.certPem, 'proxy');
    const clientPool = CertificatePool.fromPem(clientCa.certPem, 'client');
    const proxyCert = issueTestCert(proxyCa, { commonName: 'front-proxy-client' });
    const otherProxyCert = issueTestCert(proxyCa, { commonName: 'someone-else' });
    const admin = issueTestCert(clientCa, { commonName: 'admin', organizations: ['system:masters'] });
    const identity: [string, string][] = [
      ['X-Remote-User', 'alice'], ['X-Remote-Group', 'devs'], ['X-Remote-Group', 'ops'], ['X-Remote-Extra-Scopes', 'read'],
    ];
    const authenticator = (allowedNames: string[] = []) => new RequestHeaderAuthenticator(proxyPool, { ...NAMES, allowedNames });

    it('trusts the headers on a connection whose certificate chains to the proxy CA, and removes them', () => {
      const { req, headers } = request([...identity, ['Accept', 'application/json']], fakeTlsSocket(proxyCert.certPem));
      expect(authenticator().authenticate(req)).to.deep.equal({
        kind: 'user', user: { name: 'alice', groups: ['devs', 'ops'], extra: { scopes: ['read'] } },
      });
      expect(present(headers)).to.deep.equal(['accept']);
      expect(req.headerValues('X-Remote-Group')).to.deep.equal([]);
    });

    it('with allowed names: a listed CN is trusted, another is refused as kube refuses it', () => {
      const a = authenticator(['front-proxy-client']);
      expect(a.authenticate(request(identity, fakeTlsSocket(proxyCert.certPem)).req)).to.have.property('kind', 'user');
      const { req, headers } = request(identity, fakeTlsSocket(otherProxyCert.certPem));
      expect(a.authenticate(req)).to.deep.equal({ kind: 'invalid', reason: 'request-header: x509: subject with cn=someone-else is not in the allowed list' });
      expect(present(headers)).to.deep.equal([]);
    });

    it('a certificate of another CA is not the proxy: invalid, and its identity headers are stripped', () => {
      const { req, headers } = request([...identity, ['Accept', '*/*']], fakeTlsSocket(admin.certPem));
      expect(authenticator().authenticate(req)).to.deep.equal({ kind: 'invalid', reason: 'request-header: x509: certificate signed by unknown authority' });
      expect(present(headers)).to.deep.equal(['accept']);
    });

    it('an expired proxy certificate is invalid', () => {
      const expired = issueTestCert(proxyCa, { commonName: 'front-proxy-client', notBefore: new Date(Date.now() - 7200_000), notAfter: new Date(Date.now() - 60_000) });
      expect(authenticator().authenticate(request(identity, fakeTlsSocket(expired.certPem)).req))
        .to.deep.equal({ kind: 'invalid', reason: 'request-header: x509: certificate has expired or is not yet valid' });
    });

    it('no client certificate is not mine; the headers are stripped all the same', () => {
      for (const socket of [undefined, fakeTlsSocket()]) {
        const { req, headers } = request(identity, socket);
        expect(authenticator().authenticate(req)).to.deep.equal({ kind: 'none' });
        expect(present(headers)).to.deep.equal([]);
      }
    });

    it('the proxy without a user name header is not mine; its other identity headers are stripped', () => {
      const { req, headers } = request([['X-Remote-Group', 'system:masters'], ['X-Remote-Extra-A', 'b']], fakeTlsSocket(proxyCert.certPem));
      expect(authenticator().authenticate(req)).to.deep.equal({ kind: 'none' });
      expect(present(headers)).to.deep.equal([]);
    });

    it("strips Kubernetes' standard X-Remote-* headers even when the flags name others", () => {
      const a = new RequestHeaderAuthenticator(proxyPool, { usernameHeaders: ['X-Proxy-User'], groupHeaders: [], extraHeaderPrefixes: [], allowedNames: [] });
      const { req, headers } = request([['X-Proxy-User', 'alice'], ['X-Remote-User', 'x'], ['X-Remote-Uid', 'u'], ['X-Remote-Group', 'g'], ['X-Remote-Extra-K', 'v']],
        fakeTlsSocket(proxyCert.certPem));
      expect(a.authenticate(req)).to.deep.equal({ kind: 'user', user: { name: 'alice', groups: [] } });
      expect(present(headers)).to.deep.equal([]);
    });

    it('verifies a connection once: later requests on it reuse the answer', () => {
      const socket = fakeTlsSocket(proxyCert.certPem);
      let looks = 0;
      const original = socket.getPeerCertificate.bind(socket);
      socket.getPeerCertificate = ((detailed?: boolean) => { looks++; return original(detailed as true); }) as TLSSocket['getPeerCertificate'];
      const a = authenticator(['front-proxy-client']);
      a.authenticate(request(identity, socket).req);
      const before = looks;
      for (let i = 0; i < 3; i++) expect(a.authenticate(request(identity, socket).req)).to.have.property('kind', 'user');
      expect(looks).to.equal(before);
    });

    describe('first in the chain, before client certificates', () => {
      const chain = new AuthenticationChain([authenticator(['front-proxy-client']), new X509Authenticator(clientPool)], true);
      const outcome = (lines: [string, string][], certPem?: string) => chain.authenticate(request(lines, fakeTlsSocket(certPem)).req);

      it('the proxy user, with system:authenticated', () => {
        expect(outcome(identity, proxyCert.certPem)).to.deep.equal({
          user: { name: 'alice', groups: ['devs', 'ops', 'system:authenticated'], extra: { scopes: ['read'] } }, authenticator: 'requestheader',
        });
      });

      it('headers from a client-CA certificate are ignored: the certificate\'s own user', () => {
        expect(outcome(identity, admin.certPem)).to.deep.equal({ user: { name: 'admin', groups: ['system:masters', 'system:authenticated'] }, authenticator: 'x509' });
      });

      it('a proxy certificate with a CN not allowed is refused (401), never anonymous', () => {
        const o = outcome(identity, otherProxyCert.certPem) as { failure: { reason: string } };
        expect(o.failure.reason).to.contain('subject with cn=someone-else is not in the allowed list');
      });

      it('the proxy without a user header is refused: its certificate is no client certificate (kube answers 401)', () => {
        const o = outcome([['X-Remote-Group', 'devs']], proxyCert.certPem) as { failure: { reason: string } };
        expect(o.failure.reason).to.contain('certificate signed by unknown authority');
      });

      it('headers without a certificate are anonymous, never the header user', () => {
        expect(outcome(identity)).to.deep.equal({ user: { name: 'system:anonymous', groups: ['system:unauthenticated'] }, authenticator: 'anonymous' });
      });
    });
  });

  describe('loadRequestHeaderPool', () => {
    let dir: string;
    before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'rh-')); });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('reads a bundle', () => {
      const file = path.join(dir, 'ok.crt');
      writeFileSync(file, createTestCa('a').certPem + createTestCa('b').certPem);
      expect(loadRequestHeaderPool(file).certificates).to.have.length(2);
    });

    it('stops the start with one line naming the flag and file when unreadable or without a certificate', () => {
      const missing = path.join(dir, 'missing.crt');
      expect(() => loadRequestHeaderPool(missing)).to.throw(`--requestheader-client-ca-file=${missing}: cannot read: ENOENT`);
      const empty = path.join(dir, 'empty.crt');
      writeFileSync(empty, 'not a certificate\n');
      expect(() => loadRequestHeaderPool(empty)).to.throw(`--requestheader-client-ca-file=${empty}: no PEM certificate found`);
    });
  });
});
