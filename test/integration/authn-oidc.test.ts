import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { TestOidcProvider } from '../helpers/oidc-provider';
import { OidcIssuer } from '../../lib/authn/oidc-issuer';

const CLIENT = 'orch-test';
const UNAUTHORIZED = {
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401,
};
const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const nowS = () => Math.floor(Date.now() / 1000);

function expectUnauthorized(r: HttpResponse): void {
  expect(r.status, r.text).to.equal(401);
  expect(r.body).to.deep.equal(UNAUTHORIZED);
}

describe('OIDC ID tokens (integration)', function () {
  this.timeout(120_000);

  describe('with the issuer up at start', () => {
    let t: TestServer;
    let idp: TestOidcProvider;
    const readDiscovery = (token: string, headers: Record<string, string> = {}) =>
      t.get('/api', { identity: null, headers: { authorization: `Bearer ${token}`, ...headers } });

    before(async () => {
      idp = await TestOidcProvider.create();
      await idp.listen();
      t = await startTestServer([
        `--oidc-issuer-url=${idp.issuer}`, `--oidc-client-id=${CLIENT}`, `--oidc-ca-file=${idp.caFile}`,
        '--oidc-groups-claim=groups', '--oidc-groups-prefix=oidc:', '--oidc-required-claim=tenant=blue',
        '--oidc-signing-algs=RS256,ES256',
      ]);
    });
    after(async () => {
      await t?.stop();
      await idp?.dispose();
    });

    const good = (claims: Record<string, unknown> = {}) => idp.sign({ aud: CLIENT, sub: 'alice', tenant: 'blue', groups: ['dev'], ...claims });

    it('authenticates a good token: an authenticated user may read discovery, anonymous may not', async () => {
      const r = await readDiscovery(await good());
      expect(r.status, r.text).to.equal(200);
      expect(r.body.kind).to.equal('APIVersions');
      expect((await t.get('/api', { identity: null })).status).to.equal(403);
      expect(idp.discoveryFetches).to.equal(1);
    });

    it('reports the issuer-prefixed subject and prefixed groups through SelfSubjectReview', async () => {
      const r = await t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' },
        { identity: null, headers: { authorization: `Bearer ${await good()}` } });
      expect(r.status, r.text).to.equal(201);
      const u = r.body.status.userInfo;
      expect(u.username).to.equal(`${idp.issuer}#alice`);
      expect(u.groups).to.deep.equal(['oidc:dev', 'system:authenticated']);
      expect(u.uid).to.equal(undefined);
    });

    it('accepts ES256, an algorithm of --oidc-signing-algs', async () => {
      const token = await idp.sign({ aud: CLIENT, sub: 'alice', tenant: 'blue' }, { alg: 'ES256', kid: 'ec-1', key: idp.privateKey('ec-1') });
      expect((await readDiscovery(token)).status).to.equal(200);
    });

    it('prefixes groups: a groups claim of system:masters does not make an administrator', async () => {
      const token = await good({ groups: 'system:masters' });
      expect((await readDiscovery(token)).status).to.equal(200);
      const r = await readDiscovery(token, { 'impersonate-user': 'mallory' });
      expect(r.status, r.text).to.equal(403);
    });

    const refused: [string, () => Promise<string>][] = [
      ['an expired token', () => good({ exp: nowS() - 10, iat: nowS() - 700 })],
      ['a token for another client id', () => good({ aud: 'someone-else' })],
      ['a token for several audiences without the client id', () => good({ aud: ['a', 'b'] })],
      ['a token without exp', () => good({ exp: undefined })],
      ['a token of another issuer', () => good({ iss: 'https://127.0.0.1:1/other' })],
      ['a token of the issuer URL with a trailing slash', () => good({ iss: `${idp.issuer}/` })],
      ['a token whose signature was tampered with', async () => {
        const [h, p, s] = (await good()).split('.');
        const i = Math.floor(s.length / 2);
        return `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
      }],
      ['a token whose claims were changed after signing', async () => {
        const [h, , s] = (await good()).split('.');
        const claims = { iss: idp.issuer, aud: CLIENT, sub: 'admin', tenant: 'blue', exp: nowS() + 600 };
        return `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
      }],
      ['an HS256 token (a shared-secret algorithm)', () => idp.sign({ aud: CLIENT, sub: 'alice', tenant: 'blue' }, { alg: 'HS256', key: new Uint8Array(32) })],
      ['an RS512 token (not in --oidc-signing-algs)', () => idp.sign({ aud: CLIENT, sub: 'alice', tenant: 'blue' }, { alg: 'RS512' })],
      ['a token signed by a key the issuer never published', () => idp.sign({ aud: CLIENT, sub: 'alice', tenant: 'blue' }, { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey })],
      ['a token without the required claim', () => good({ tenant: undefined })],
      ['a token whose required claim has another value', () => good({ tenant: 'red' })],
      ['a token without the username claim', () => good({ sub: undefined })],
      ['a token whose groups claim is not a string or list of strings', () => good({ groups: { admin: true } })],
      ['a token that is not before five minutes from now', () => good({ nbf: nowS() + 600 })],
    ];
    for (const [what, make] of refused) {
      it(`answers 401 Unauthorized to ${what}`, async () => expectUnauthorized(await readDiscovery(await make())));
    }

    it('refetches the key set when the issuer starts signing with a new kid, and accepts its tokens', async () => {
      expect((await readDiscovery(await good())).status).to.equal(200);
      const fetches = idp.jwksFetches;
      const kid = await idp.rotate();
      const token = await good();
      expect(token.split('.')[0]).to.equal(Buffer.from(JSON.stringify({ alg: 'RS256', kid })).toString('base64url'));
      // At most one key-set fetch per cooldown (5 s) after the last: the new key is accepted within it.
      const ok = await eventually(async () => (await readDiscovery(token)).status === 200, 20_000, 500);
      expect(ok).to.equal(true);
      expect(idp.jwksFetches).to.be.greaterThan(fetches);
      expect(idp.discoveryFetches).to.equal(1);
    });

    it('answers the same token the same way again (from the cache) and a repeated bad token 401 each time', async () => {
      const token = await good({ sub: 'carol' });
      for (let i = 0; i < 3; i++) expect((await readDiscovery(token)).status).to.equal(200);
      const bad = await good({ aud: 'x' });
      for (let i = 0; i < 3; i++) expectUnauthorized(await readDiscovery(bad));
    });

    it('trusts the issuer\'s certificate only through --oidc-ca-file', async () => {
      const log: string[] = [];
      const wrongCa = new OidcIssuer({ issuer: idp.issuer, ca: t.server.pki.caCertPem, log: (m) => log.push(m), retryMs: 0 });
      expect(await wrongCa.keys()).to.equal(undefined);
      expect(log.join('\n')).to.match(/discovery of https:\/\/127\.0\.0\.1:\d+ failed/);
      const rightCa = new OidcIssuer({ issuer: idp.issuer, ca: idp.caPem, log: (m) => log.push(m) });
      expect(await rightCa.keys()).to.be.a('function');
    });
  });

  describe('with the issuer down at start, an issuer path and the email claim', () => {
    let t: TestServer;
    let idp: TestOidcProvider;
    const bearer = (token: string, headers: Record<string, string> = {}) =>
      ({ identity: null, headers: { authorization: `Bearer ${token}`, ...headers } });
    const token = (claims: Record<string, unknown> = {}) => idp.sign({ aud: [CLIENT, 'other'], sub: 'u-123', email: 'jane@example.com', ...claims });

    before(async () => {
      idp = await TestOidcProvider.create('/tenants/a');
      t = await startTestServer([
        `--oidc-issuer-url=${idp.issuer}`, `--oidc-client-id=${CLIENT}`, `--oidc-ca-file=${idp.caFile}`,
        '--oidc-username-claim=email', '--oidc-groups-claim=roles',
      ]);
    });
    after(async () => {
      await t?.stop();
      await idp?.dispose();
    });

    it('starts and stays healthy while the issuer is unreachable; its tokens are 401 meanwhile', async () => {
      expect((await t.get('/readyz')).status).to.equal(200);
      expectUnauthorized(await t.get('/api', bearer(await token())));
      expect((await t.get('/api')).status).to.equal(200);
    });

    it('accepts tokens once the issuer is reachable', async () => {
      await idp.listen();
      const good = await token();
      const ok = await eventually(async () => (await t.get('/api', bearer(good))).status === 200, 30_000, 500);
      expect(ok).to.equal(true);
      expect(idp.discoveryFetches).to.equal(1);
    });

    it('reports the email as the username, without a prefix, through SelfSubjectReview', async function () {
      const r = await t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, bearer(await token({ roles: ['a', 'b'] })));
      expect(r.status, r.text).to.equal(201);
      expect(r.body.status.userInfo.username).to.equal('jane@example.com');
      expect(r.body.status.userInfo.groups).to.deep.equal(['a', 'b', 'system:authenticated']);
    });

    it('accepts email_verified true and refuses email_verified false', async () => {
      expect((await t.get('/api', bearer(await token({ email_verified: true })))).status).to.equal(200);
      expectUnauthorized(await t.get('/api', bearer(await token({ email_verified: false }))));
    });

    it('refuses a token without the email claim', async () => {
      expectUnauthorized(await t.get('/api', bearer(await token({ email: undefined }))));
    });

    it('takes a single-string groups claim as one group, unprefixed', async () => {
      const plain = await token({ roles: 'viewers' });
      expect((await t.get('/api', bearer(plain, { 'impersonate-user': 'bob' }))).status).to.equal(403);
      const masters = await token({ roles: 'system:masters' });
      const r = await t.get('/api', bearer(masters, { 'impersonate-user': 'bob' }));
      expect(r.status, r.text).to.equal(200);
    });
  });
});
