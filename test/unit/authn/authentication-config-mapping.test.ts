/**
 * What a JWT authenticator of --authentication-config makes of verified claims: claim and CEL
 * mappings of username, groups, uid and extra; required claims; claim and user validation rules
 * (Kubernetes' order and messages). Then the token checks on a local key set (audiences MatchAny,
 * expiry, signature), and the reload of the file (a bad file keeps the configuration in effect).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import { decodeAuthenticationConfiguration } from '../../../lib/authn/config/types';
import { validateAuthenticationConfiguration } from '../../../lib/authn/config/validation';
import { JwtIssuerAuthenticator } from '../../../lib/authn/config/jwt-authenticator';
import { AuthenticationConfigAuthenticator } from '../../../lib/authn/config/authentication-config';
import { UserInfo } from '../../../lib/meta/user';
import { KeySet } from '../../../lib/authn/oidc';

type Json = Record<string, unknown>;
const ISSUER = 'https://127.0.0.1:1/idp';
const HEAD = { apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration' };
const nowS = () => Math.floor(Date.now() / 1000);

function authenticator(rest: Json, keys: () => Promise<KeySet | undefined> = async () => undefined): JwtIssuerAuthenticator {
  const config = decodeAuthenticationConfiguration(JSON.stringify({ ...HEAD, jwt: [{ issuer: { url: ISSUER, audiences: ['orch', 'other'], audienceMatchPolicy: 'MatchAny' }, ...rest }] }));
  const v = validateAuthenticationConfiguration(config, []);
  expect(v.errors, JSON.stringify(v.errors)).to.deep.equal([]);
  return new JwtIssuerAuthenticator(v.jwt[0], keys);
}

const CLAIMS = { iss: ISSUER, sub: 'u-1', email: 'jane@example.com', email_verified: true, groups: ['dev', 'ops'], tenant: 'blue', hd: 'example.com', exp: nowS() + 600, iat: nowS() };

describe('structured authentication claim mappings', () => {
  const rows: { what: string; config: Json; claims?: Json; user: UserInfo | string }[] = [
    {
      what: 'claims with prefixes',
      config: { claimMappings: { username: { claim: 'sub', prefix: 'idp:' }, groups: { claim: 'groups', prefix: 'idp:' }, uid: { claim: 'sub' } } },
      user: { name: 'idp:u-1', groups: ['idp:dev', 'idp:ops'], uid: 'u-1' },
    },
    {
      what: 'an empty prefix (none), and a single-string groups claim',
      config: { claimMappings: { username: { claim: 'email', prefix: '' }, groups: { claim: 'tenant', prefix: '' } } },
      user: { name: 'jane@example.com', groups: ['blue'] },
    },
    {
      what: 'CEL expressions for every field, empty values dropped',
      config: {
        claimMappings: {
          username: { expression: 'claims.email_verified ? claims.email : "unverified"' },
          groups: { expression: 'claims.groups.map(g, "team:" + g) + [""]' },
          uid: { expression: '"uid-" + claims.sub' },
          extra: [
            { key: 'example.com/tenant', valueExpression: 'claims.tenant' },
            { key: 'example.com/none', valueExpression: 'claims.?missing.orValue(null)' },
            { key: 'example.com/list', valueExpression: '["a", "", "b"]' },
          ],
        },
      },
      user: { name: 'jane@example.com', groups: ['team:dev', 'team:ops'], uid: 'uid-u-1', extra: { 'example.com/tenant': ['blue'], 'example.com/list': ['a', 'b'] } },
    },
    {
      what: 'a missing username claim',
      config: { claimMappings: { username: { claim: 'name', prefix: '' } } },
      user: 'oidc: parse username claims "name": claim not present',
    },
    {
      what: 'an email username whose email_verified is false',
      config: { claimMappings: { username: { claim: 'email', prefix: '' } } },
      claims: { ...CLAIMS, email_verified: false },
      user: 'oidc: email not verified',
    },
    {
      what: 'a username expression that is not a string',
      config: { claimMappings: { username: { expression: 'claims.exp' } } },
      user: 'oidc: error evaluating username claim expression: username claim expression must return a string',
    },
    {
      what: 'a username expression that fails on a missing claim',
      config: { claimMappings: { username: { expression: 'claims.nickname' } } },
      user: 'oidc: error evaluating username claim expression: No such key: nickname',
    },
    {
      what: 'a groups expression that gives numbers',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' }, groups: { expression: '[1, 2]' } } },
      user: 'oidc: error evaluating group claim expression: expression must return a string or a list of strings',
    },
    {
      what: 'a groups claim that is an object',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' }, groups: { claim: 'g', prefix: '' } } },
      claims: { ...CLAIMS, g: { admin: true } },
      user: 'oidc: parse groups claim "g": json: cannot unmarshal object into Go value of type string',
    },
    {
      what: 'an extra expression that gives a map',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key: 'example.com/m', valueExpression: '{"a": "b"}' }] } },
      user: 'oidc: error evaluating extra claim expression: {"a": "b"}: expression must return a string or a list of strings',
    },
    {
      what: 'a required claim that is absent',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' } }, claimValidationRules: [{ claim: 'org', requiredValue: 'acme' }] },
      user: 'oidc: required claim org not present in ID token',
    },
    {
      what: 'a required claim of another value',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' } }, claimValidationRules: [{ claim: 'hd', requiredValue: 'acme.com' }] },
      user: 'oidc: required claim hd value does not match. Got = example.com, want = acme.com',
    },
    {
      what: 'a claim validation rule that does not hold',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' } }, claimValidationRules: [{ expression: 'claims.tenant == "red"', message: 'only the red tenant' }] },
      user: 'oidc: error evaluating claim validation expression: validation expression \'claims.tenant == "red"\' failed: only the red tenant',
    },
    {
      what: 'a claim validation rule of a dyn result that is not a boolean',
      config: { claimMappings: { username: { claim: 'sub', prefix: '' } }, claimValidationRules: [{ expression: 'claims.tenant' }] },
      user: 'oidc: error evaluating claim validation expression: validation expression must return a boolean',
    },
    {
      what: 'a user validation rule that does not hold',
      config: {
        claimMappings: { username: { expression: '"system:" + claims.sub' } },
        userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'username cannot use reserved system: prefix' }],
      },
      user: 'oidc: error evaluating user info validation rule: validation expression \'!user.username.startsWith(\'system:\')\' failed: username cannot use reserved system: prefix',
    },
    {
      what: 'rules that hold',
      config: {
        claimMappings: { username: { claim: 'sub', prefix: '' }, groups: { claim: 'groups', prefix: '' } },
        claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }, { expression: 'claims.exp - claims.iat <= 3600' }],
        userValidationRules: [{ expression: '"dev" in user.groups && user.uid == "" && user.extra.size() == 0' }],
      },
      user: { name: 'u-1', groups: ['dev', 'ops'] },
    },
  ];
  for (const r of rows) {
    it(`maps ${r.what}`, () => {
      expect(authenticator(r.config).userOf(r.claims ?? CLAIMS)).to.deep.equal(r.user);
    });
  }
});

describe('structured authentication token checks', () => {
  let keys: KeySet;
  let sign: (claims: Json) => Promise<string>;

  before(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] });
    sign = (claims) => new SignJWT({ iss: ISSUER, sub: 'u-1', exp: nowS() + 600, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
  });

  const verify = async (token: string) => (await authenticator({ claimMappings: { username: { claim: 'sub', prefix: '' } } }, async () => keys).verify(token)).result;

  it('accepts a token of any one of the audiences (MatchAny)', async () => {
    for (const aud of ['orch', 'other', ['x', 'other']]) expect((await verify(await sign({ aud }))).kind).to.equal('user');
  });

  it('refuses a token of none of the audiences, an expired one and a tampered one, saying why', async () => {
    expect(await verify(await sign({ aud: ['x', 'y'] }))).to.deep.equal({ kind: 'invalid', reason: 'oidc: verify token: oidc: expected audience in ["orch" "other"] got ["x" "y"]' });
    const expired = await verify(await sign({ aud: 'orch', exp: nowS() - 5 }));
    expect(expired.kind === 'invalid' && expired.reason).to.match(/^oidc: verify token: oidc: token is expired/);
    const [h, p, s] = (await sign({ aud: 'orch' })).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'admin', aud: 'orch', exp: nowS() + 60 })).toString('base64url')}.${s}`;
    expect(await verify(forged)).to.deep.equal({ kind: 'invalid', reason: 'oidc: verify token: failed to verify signature: signature verification failed' });
    void p;
  });

  it('refuses every token while the issuer\'s keys are not known', async () => {
    const r = await authenticator({ claimMappings: { username: { claim: 'sub', prefix: '' } } }).verify(await sign({ aud: 'orch' }));
    expect(r.result).to.deep.equal({ kind: 'invalid', reason: 'oidc: authenticator not initialized' });
  });
});

describe('structured authentication configuration reload', () => {
  let dir: string;
  let file: string;
  const doc = (url: string, extra: Json = {}) => JSON.stringify({
    ...HEAD, jwt: [{ issuer: { url, audiences: ['orch'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }], ...extra,
  });
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-authn-config-'));
    file = path.join(dir, 'authn.json');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes a changed valid file, keeps the old one for a bad file (logged once) and refuses a changed anonymous section', () => {
    writeFileSync(file, doc('https://127.0.0.1:1/a'));
    const errors: string[] = [];
    const statuses: string[] = [];
    const a = new AuthenticationConfigAuthenticator({
      file, serviceAccountIssuers: [], log: { info: () => undefined, error: (m) => errors.push(m) },
      metrics: { reload: (s) => statuses.push(s), jwtLatency: () => undefined },
    });
    try {
      expect(a.reload()).to.equal(false); // unchanged
      writeFileSync(file, doc('https://127.0.0.1:1/b'));
      expect(a.reload()).to.equal(true);
      expect(a.configuration.jwt[0].issuer.url).to.equal('https://127.0.0.1:1/b');
      writeFileSync(file, doc('http://127.0.0.1:1/c'));
      expect(a.reload()).to.equal(false);
      expect(a.reload()).to.equal(false);
      expect(a.configuration.jwt[0].issuer.url).to.equal('https://127.0.0.1:1/b');
      const reloadErrors = errors.filter((e) => e.startsWith('failed to reload'));
      expect(reloadErrors).to.have.length(1);
      expect(reloadErrors[0]).to.contain('jwt[0].issuer.url: Invalid value: "http://127.0.0.1:1/c": URL scheme must be https');
      writeFileSync(file, doc('https://127.0.0.1:1/b', { anonymous: { enabled: true } }));
      expect(a.reload()).to.equal(false);
      expect(errors.at(-1)).to.contain('anonymous: Forbidden: changed from initial configuration file');
      expect(statuses).to.deep.equal(['success', 'failure', 'failure']);
    } finally {
      a.close();
    }
  });

  it('keeps the configuration while the file is gone, reporting it once, and takes it back when it returns', () => {
    writeFileSync(file, doc('https://127.0.0.1:1/d'));
    const errors: string[] = [];
    const a = new AuthenticationConfigAuthenticator({ file, serviceAccountIssuers: [], log: { info: () => undefined, error: (m) => errors.push(m) } });
    try {
      rmSync(file);
      expect(a.reload()).to.equal(false);
      expect(a.reload()).to.equal(false);
      expect(errors).to.deep.equal([`failed to read authentication config file ${JSON.stringify(file)}: ENOENT`]);
      expect(a.configuration.jwt[0].issuer.url).to.equal('https://127.0.0.1:1/d');
      writeFileSync(file, doc('https://127.0.0.1:1/e'));
      expect(a.reload()).to.equal(true);
      expect(a.configuration.jwt[0].issuer.url).to.equal('https://127.0.0.1:1/e');
    } finally {
      a.close();
    }
  });

  it('refuses to start on a missing or invalid file, naming it', () => {
    const log = { info: () => undefined, error: () => undefined };
    expect(() => new AuthenticationConfigAuthenticator({ file: path.join(dir, 'nope.yaml'), serviceAccountIssuers: [], log }))
      .to.throw(`failed to load authentication configuration from file "${path.join(dir, 'nope.yaml')}": ENOENT`);
    writeFileSync(file, doc('https://127.0.0.1:1/sa'));
    expect(() => new AuthenticationConfigAuthenticator({ file, serviceAccountIssuers: ['https://127.0.0.1:1/sa'], log }))
      .to.throw('invalid authentication configuration: jwt[0].issuer.url: Invalid value: "https://127.0.0.1:1/sa": URL must not overlap with disallowed issuers: [https://127.0.0.1:1/sa]');
  });
});
