/**
 * --authentication-config over HTTPS: a server whose AuthenticationConfiguration names two JWT
 * issuers that the test serves (discovery and key sets over HTTPS, each with its own CA given
 * inline), tokens of each authenticated with the mapped username, uid, groups and extra (read back
 * with a SelfSubjectReview, as `kubectl auth whoami` does), claim and user validation rules and
 * expired, tampered or wrong-audience tokens refused 401, anonymous limited to the file's paths,
 * the file reloaded while the server runs (a new issuer works without a restart, a broken file
 * keeps the old configuration and counts a failed reload), and the start refused on a bad file or
 * beside the --oidc-* flags.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { TestOidcProvider } from '../helpers/oidc-provider';
import { parseExposition } from '../helpers/prom-text';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const RELOADS = 'apiserver_authentication_config_controller_automatic_reloads_total';
const nowS = () => Math.floor(Date.now() / 1000);
const bearer = (token: string) => ({ identity: null, headers: { authorization: `Bearer ${token}` } });

function expectUnauthorized(r: HttpResponse): void {
  expect(r.status, r.text).to.equal(401);
  expect(r.body).to.deep.equal(UNAUTHORIZED);
}

/** The `jwt[]` entry of issuer A: CEL username, claim groups and uid, an extra, both kinds of rules. */
const issuerA = (idp: TestOidcProvider) => ({
  issuer: { url: idp.issuer, certificateAuthority: idp.caPem, audiences: ['orch'] },
  claimValidationRules: [
    { claim: 'hd', requiredValue: 'example.com' },
    { expression: 'claims.tenant == "blue"', message: 'only the blue tenant may sign in' },
  ],
  claimMappings: {
    username: { expression: '"a:" + claims.sub' },
    groups: { claim: 'groups', prefix: 'a:' },
    uid: { claim: 'sub' },
    extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
  },
  userValidationRules: [{ expression: "!user.username.startsWith('a:system')", message: 'no system users' }],
});

/** Issuer B (under a path): several audiences, email username without prefix, CEL groups. */
const issuerB = (idp: TestOidcProvider) => ({
  issuer: { url: idp.issuer, certificateAuthority: idp.caPem, audiences: ['orch-b', 'other'], audienceMatchPolicy: 'MatchAny' },
  claimMappings: {
    username: { claim: 'email', prefix: '' },
    groups: { expression: 'has(claims.roles) ? claims.roles.map(r, "b:" + r) : []' },
  },
});

/**
 * Issuer D: a URL the provider does not serve, its discovery document read from discoveryURL
 * (the provider's, whose `issuer` differs and is then not compared, as in Kubernetes).
 */
const issuerD = (idp: TestOidcProvider) => ({
  issuer: { url: `${idp.issuer}/alias`, discoveryURL: `${idp.issuer}/.well-known/openid-configuration`, certificateAuthority: idp.caPem, audiences: ['orch-d'] },
  claimMappings: { username: { claim: 'sub', prefix: 'd:' } },
});

const configOf = (jwt: unknown[]) => toYaml({
  apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', jwt,
  anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/version' }] },
});

describe('--authentication-config (integration)', function () {
  this.timeout(180_000);
  let dir: string;
  let file: string;
  let a: TestOidcProvider;
  let b: TestOidcProvider;
  let c: TestOidcProvider;
  let t: TestServer;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-authn-config-'));
    file = path.join(dir, 'authentication.yaml');
    [a, b, c] = await Promise.all([TestOidcProvider.create(), TestOidcProvider.create('/tenants/b'), TestOidcProvider.create()]);
    await Promise.all([a.listen(), b.listen(), c.listen()]);
    writeFileSync(file, configOf([issuerA(a), issuerB(b), issuerD(a)]));
    t = await startTestServer([`--authentication-config=${file}`]);
  });
  after(async () => {
    await t?.stop();
    await Promise.all([a?.dispose(), b?.dispose(), c?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tokenA = (claims: Record<string, unknown> = {}) => a.sign({ aud: 'orch', sub: 'alice', hd: 'example.com', tenant: 'blue', groups: ['dev'], ...claims });
  const tokenB = (claims: Record<string, unknown> = {}) => b.sign({ aud: ['x', 'other'], sub: 'b-1', email: 'bob@example.com', roles: ['ops'], ...claims });
  const whoami = (token: string) => t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, bearer(token));

  it('maps a token of the first issuer: CEL username, uid and extra, prefixed groups', async () => {
    const r = await whoami(await tokenA());
    expect(r.status, r.text).to.equal(201);
    expect(r.body.status.userInfo).to.deep.equal({
      username: 'a:alice', uid: 'alice', groups: ['a:dev', 'system:authenticated'], extra: { 'example.com/tenant': ['blue'] },
    });
  });

  it('maps a token of the second issuer (under a path, one of two audiences): email username, CEL groups', async () => {
    const r = await whoami(await tokenB());
    expect(r.status, r.text).to.equal(201);
    expect(r.body.status.userInfo).to.deep.equal({ username: 'bob@example.com', groups: ['b:ops', 'system:authenticated'] });
  });

  it('reads an issuer\'s keys through its discoveryURL; its tokens name the configured URL', async () => {
    const r = await whoami(await a.sign({ iss: `${a.issuer}/alias`, aud: 'orch-d', sub: 'dora' }));
    expect(r.status, r.text).to.equal(201);
    expect(r.body.status.userInfo).to.deep.equal({ username: 'd:dora', groups: ['system:authenticated'] });
    // The same key with the provider's own issuer and D's audience is A's token, and A refuses it.
    expectUnauthorized(await whoami(await a.sign({ aud: 'orch-d', sub: 'dora', hd: 'example.com', tenant: 'blue' })));
  });

  it('grants nothing by mapped groups alone: an authenticated user without RBAC is 403, not 401', async () => {
    const r = await t.get('/api/v1/namespaces', bearer(await tokenA()));
    expect(r.status, r.text).to.equal(403);
    expect(r.body.message).to.contain('User "a:alice" cannot list resource "namespaces"');
  });

  const refused: [string, () => Promise<string>][] = [
    ['a failing claimValidationRule expression (another tenant)', () => tokenA({ tenant: 'red' })],
    ['a missing required claim', () => tokenA({ hd: undefined })],
    ['a failing userValidationRule (a system: user name)', () => tokenA({ sub: 'system:admin' })],
    ['an expired token', () => tokenA({ exp: nowS() - 10, iat: nowS() - 700 })],
    ['a token of neither audience', () => tokenB({ aud: 'orch' })],
    ['a token of the first issuer signed with the second issuer\'s key', () => a.sign({ aud: 'orch', sub: 'alice', hd: 'example.com', tenant: 'blue' }, { key: b.privateKey('rsa-1') })],
    ['a token whose claims were changed after signing', async () => {
      const [h, , s] = (await tokenA()).split('.');
      return `${h}.${Buffer.from(JSON.stringify({ iss: a.issuer, aud: 'orch', sub: 'root', hd: 'example.com', tenant: 'blue', exp: nowS() + 600 })).toString('base64url')}.${s}`;
    }],
    ['a token of an issuer the file does not name', () => tokenA({ iss: c.issuer })],
  ];
  for (const [what, make] of refused) {
    it(`answers 401 to ${what}`, async () => expectUnauthorized(await whoami(await make())));
  }

  it('allows anonymous requests only on the file\'s paths', async () => {
    expect((await t.get('/livez', { identity: null })).status).to.equal(200);
    expect((await t.get('/version', { identity: null })).status).to.equal(200);
    expectUnauthorized(await t.get('/readyz', { identity: null }));
    expectUnauthorized(await t.get('/api', { identity: null }));
  });

  it('reloads the file: a new issuer works without a restart, the old ones still do', async () => {
    const tokenC = await c.sign({ aud: 'orch-c', sub: 'carol' });
    expectUnauthorized(await whoami(tokenC));
    writeFileSync(file, configOf([issuerA(a), issuerB(b), {
      issuer: { url: c.issuer, certificateAuthority: c.caPem, audiences: ['orch-c'] },
      claimMappings: { username: { claim: 'sub', prefix: 'c:' } },
    }]));
    const r = await eventually(async () => {
      const x = await whoami(tokenC);
      return x.status === 201 ? x : undefined;
    }, 30_000, 250);
    expect(r.body.status.userInfo.username).to.equal('c:carol');
    expect((await whoami(await tokenA())).status).to.equal(201);
    const metrics = parseExposition((await t.get('/metrics')).text);
    expect(metrics.value(RELOADS, { status: 'success' })).to.be.greaterThanOrEqual(1);
    expect(metrics.has('apiserver_authentication_jwt_authenticator_latency_seconds_count', { result: 'success' })).to.equal(true);
  });

  it('keeps the configuration in effect when the file is broken, and counts the failed reload', async () => {
    const before = parseExposition((await t.get('/metrics')).text).value(RELOADS, { status: 'failure' });
    writeFileSync(file, configOf([issuerA(a), { ...issuerB(b), issuer: { url: 'http://insecure.example.com', audiences: ['x'] } }]));
    await eventually(async () => parseExposition((await t.get('/metrics')).text).value(RELOADS, { status: 'failure' }) > before, 30_000, 250);
    // Issuer C of the previous file still authenticates; B's tokens too.
    expect((await whoami(await c.sign({ aud: 'orch-c', sub: 'carol' }))).status).to.equal(201);
    expect((await whoami(await tokenB())).status).to.equal(201);
    expect((await t.get('/readyz')).status).to.equal(200);
  });
});

describe('--authentication-config refused at start', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'orch-authn-config-bad-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const startWith = async (flags: string[]): Promise<Error> => {
    try {
      const s = await startTestServer(flags);
      await s.stop();
    } catch (err) {
      return err as Error;
    }
    throw new Error('the server started');
  };

  it('beside an --oidc-* flag, with Kubernetes\' message', async () => {
    const file = path.join(dir, 'ok.yaml');
    writeFileSync(file, toYaml({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration' }));
    const err = await startWith([`--authentication-config=${file}`, '--oidc-issuer-url=https://idp.example.com', '--oidc-client-id=x']);
    expect(err.message).to.equal('authentication-config file and oidc-* flags are mutually exclusive');
  });

  it('with an anonymous section beside --anonymous-auth=false, with Kubernetes\' message', async () => {
    const file = path.join(dir, 'anonymous.yaml');
    writeFileSync(file, toYaml({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', anonymous: { enabled: true } }));
    const err = await startWith([`--authentication-config=${file}`, '--anonymous-auth=false']);
    expect(err.message).to.equal('invalid authentication configuration: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  });

  it('with an invalid file: the file, the field path and Kubernetes\' message', async () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, toYaml({
      apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration',
      jwt: [{ issuer: { url: 'https://idp.example.com', audiences: ['x'] }, claimMappings: { username: { claim: 'sub' } } }],
    }));
    const err = await startWith([`--authentication-config=${file}`]);
    expect(err.message).to.equal(`failed to load authentication configuration from file ${JSON.stringify(file)}: invalid authentication configuration: `
      + 'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing');
  });
});
