import { expect } from 'chai';
import { KeyObject, generateKeyPairSync } from 'node:crypto';
import { CryptoKey, JWK, SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import {
  OidcAuthenticator, OidcClaimMapping, OidcOptions, idTokenClaimsProblem, oidcUsernamePrefix, untrustedIssuer, userFromClaims,
} from '../../../lib/authn/oidc';
import { AuthResult, NOT_MINE, isPromise } from '../../../lib/authn/authenticator';
import { parseFlags } from '../../../lib/server/flags';

const ISSUER = 'https://idp.example.com/realm';
const CLIENT = 'orch';
const nowS = () => Math.floor(Date.now() / 1000);

describe('oidcUsernamePrefix', () => {
  // The spec's table: `-` disables; unset and claim not email: issuer URL + '#'; unset and
  // email: none; otherwise the given prefix.
  const rows: { flag: string | undefined; claim: string; prefix: string }[] = [
    { flag: '-', claim: 'sub', prefix: '' },
    { flag: '-', claim: 'email', prefix: '' },
    { flag: undefined, claim: 'sub', prefix: `${ISSUER}#` },
    { flag: undefined, claim: 'name', prefix: `${ISSUER}#` },
    { flag: undefined, claim: 'email', prefix: '' },
    { flag: 'oidc:', claim: 'sub', prefix: 'oidc:' },
    { flag: 'oidc:', claim: 'email', prefix: 'oidc:' },
    { flag: '', claim: 'sub', prefix: '' },
  ];
  for (const r of rows) {
    it(`--oidc-username-prefix=${r.flag === undefined ? '(unset)' : JSON.stringify(r.flag)} with claim ${r.claim} -> ${JSON.stringify(r.prefix)}`, () => {
      expect(oidcUsernamePrefix(r.flag, r.claim, ISSUER)).to.equal(r.prefix);
    });
  }
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('untrustedIssuer', () => {
  it('reads iss from a compact JWT without verifying it', () => {
    expect(untrustedIssuer(`${b64({ alg: 'RS256' })}.${b64({ iss: ISSUER })}.sig`)).to.equal(ISSUER);
  });
  it('coalesces the legacy Google issuer with its URL', () => {
    expect(untrustedIssuer(`${b64({})}.${b64({ iss: 'accounts.google.com' })}.x`)).to.equal('https://accounts.google.com');
  });
  for (const [what, token] of [
    ['two segments', `${b64({})}.${b64({ iss: ISSUER })}`],
    ['JSON serialization', `{"payload":"${b64({ iss: ISSUER })}"}`],
    ['a payload that is not JSON', `${b64({})}.bm90IGpzb24.x`],
    ['a numeric iss', `${b64({})}.${b64({ iss: 7 })}.x`],
    ['an opaque token', 'abcdef.0123456789abcdef'],
  ]) {
    it(`is undefined for ${what}`, () => expect(untrustedIssuer(token)).to.equal(undefined));
  }
});

describe('idTokenClaimsProblem', () => {
  const now = Date.now();
  const good = { iss: ISSUER, aud: CLIENT, exp: Math.floor(now / 1000) + 60 };
  it('accepts the issuer, the client id as aud (string or among a list) and a future exp', () => {
    expect(idTokenClaimsProblem(good, ISSUER, CLIENT, now)).to.equal(undefined);
    expect(idTokenClaimsProblem({ ...good, aud: ['other', CLIENT] }, ISSUER, CLIENT, now)).to.equal(undefined);
  });
  it('accepts nbf up to five minutes ahead (clock skew)', () => {
    expect(idTokenClaimsProblem({ ...good, nbf: Math.floor(now / 1000) + 290 }, ISSUER, CLIENT, now)).to.equal(undefined);
  });
  const rows: [string, Record<string, unknown>, RegExp][] = [
    ['another issuer', { iss: 'https://evil.example.com' }, /issued by a different provider/],
    ['an issuer differing by a trailing slash', { iss: `${ISSUER}/` }, /issued by a different provider/],
    ['another audience', { aud: 'someone-else' }, /expected audience "orch" got \["someone-else"\]/],
    ['no audience', { aud: undefined }, /aud must be/],
    ['no exp', { exp: undefined }, /exp must be a number/],
    ['an exp that is a string', { exp: String(good.exp) }, /exp must be a number/],
    ['an exp one second ago (no leeway)', { exp: Math.floor(now / 1000) - 1 }, /token is expired/],
    ['nbf beyond five minutes ahead', { nbf: Math.floor(now / 1000) + 400 }, /before the nbf/],
  ];
  for (const [what, change, reason] of rows) {
    it(`refuses ${what}`, () => expect(idTokenClaimsProblem({ ...good, ...change }, ISSUER, CLIENT, now)).to.match(reason));
  }
});

describe('userFromClaims', () => {
  const mapping: OidcClaimMapping = { usernameClaim: 'sub', usernamePrefix: 'p#', groupsClaim: 'groups', groupsPrefix: 'g:', requiredClaims: {} };
  it('prefixes the username claim and every group; no uid, no extra', () => {
    expect(userFromClaims({ sub: 'alice', groups: ['dev', 'ops'] }, mapping)).to.deep.equal({ name: 'p#alice', groups: ['g:dev', 'g:ops'] });
  });
  const groupRows: [string, unknown, string[]][] = [
    ['a single string', 'admins', ['g:admins']],
    ['an empty list', [], []],
    ['null', null, []],
    ['absent', undefined, []],
  ];
  for (const [what, groups, want] of groupRows) {
    it(`reads a groups claim that is ${what}`, () => {
      expect(userFromClaims({ sub: 'alice', groups }, mapping)).to.deep.equal({ name: 'p#alice', groups: want });
    });
  }
  it('has no groups without --oidc-groups-claim', () => {
    expect(userFromClaims({ sub: 'a', groups: ['x'] }, { ...mapping, groupsClaim: '' })).to.deep.equal({ name: 'p#a', groups: [] });
  });
  const refused: [string, Record<string, unknown>, Partial<OidcClaimMapping>, RegExp][] = [
    ['no username claim', { name: 'x' }, {}, /parse username claims "sub": claim not present/],
    ['a numeric username claim', { sub: 42 }, {}, /parse username claims "sub": not a string/],
    ['an empty username claim', { sub: '' }, {}, /is empty/],
    ['groups that are a number', { sub: 'a', groups: 3 }, {}, /parse groups claim "groups"/],
    ['groups holding a non-string', { sub: 'a', groups: ['x', 1] }, {}, /parse groups claim "groups"/],
    ['groups that are an object', { sub: 'a', groups: { a: 1 } }, {}, /parse groups claim "groups"/],
    ['a missing required claim', { sub: 'a' }, { requiredClaims: { tenant: 'blue' } }, /^oidc: required claim tenant not present in ID token$/],
    ['a required claim of another value', { sub: 'a', tenant: 'red' }, { requiredClaims: { tenant: 'blue' } }, /^oidc: required claim tenant value does not match. Got = red, want = blue$/],
    ['a required claim that is not a string', { sub: 'a', tenant: ['blue'] }, { requiredClaims: { tenant: 'blue' } }, /parse claim tenant/],
  ];
  for (const [what, claims, change, reason] of refused) {
    it(`refuses ${what}`, () => expect(userFromClaims(claims, { ...mapping, ...change })).to.match(reason));
  }
  it('accepts required claims of exactly the value asked', () => {
    const m = { ...mapping, requiredClaims: { tenant: 'blue', tier: 'gold' } };
    expect(userFromClaims({ sub: 'a', tenant: 'blue', tier: 'gold' }, m)).to.deep.equal({ name: 'p#a', groups: [] });
  });

  describe('with the email claim', () => {
    const email = { ...mapping, usernameClaim: 'email', usernamePrefix: '' };
    it('accepts email_verified true or absent', () => {
      expect(userFromClaims({ email: 'a@x.io', email_verified: true }, email)).to.deep.equal({ name: 'a@x.io', groups: [] });
      expect(userFromClaims({ email: 'a@x.io' }, email)).to.deep.equal({ name: 'a@x.io', groups: [] });
    });
    it('refuses email_verified false or null', () => {
      expect(userFromClaims({ email: 'a@x.io', email_verified: false }, email)).to.equal('oidc: email not verified');
      expect(userFromClaims({ email: 'a@x.io', email_verified: null }, email)).to.equal('oidc: email not verified');
    });
    it('refuses email_verified that is not a boolean', () => {
      expect(userFromClaims({ email: 'a@x.io', email_verified: 'true' }, email)).to.match(/parse 'email_verified' claim/);
    });
    it('ignores email_verified for other username claims', () => {
      expect(userFromClaims({ sub: 'a', email_verified: false }, mapping)).to.deep.equal({ name: 'p#a', groups: [] });
    });
  });
});

describe('OidcAuthenticator', () => {
  // KeyObjects (not CryptoKeys, which are bound to one hash) so one key can sign RS256 and RS384.
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsa2 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let ec: { privateKey: CryptoKey; publicKey: CryptoKey };
  let jwks: JWK[];
  let keyFetches: number;
  let available: boolean;

  before(async () => {
    ec = await generateKeyPair('ES256');
    jwks = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', use: 'sig' },
      { ...(await exportJWK(rsa2.publicKey)), kid: 'rsa-2', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', use: 'sig' },
    ];
  });
  beforeEach(() => { keyFetches = 0; available = true; });

  const authenticator = (change: Partial<OidcOptions> = {}) => new OidcAuthenticator({
    issuer: ISSUER, clientId: CLIENT, signingAlgs: ['RS256', 'ES256'],
    usernameClaim: 'sub', usernamePrefix: `${ISSUER}#`, groupsClaim: 'groups', groupsPrefix: '', requiredClaims: {},
    keys: async () => {
      keyFetches++;
      return available ? createLocalJWKSet({ keys: jwks }) : undefined;
    },
    ...change,
  });
  const sign = (claims: Record<string, unknown>, header: { alg?: string; kid?: string } = {}, key?: CryptoKey | KeyObject | Uint8Array) =>
    new SignJWT({ iss: ISSUER, aud: CLIENT, sub: 'alice', exp: nowS() + 600, ...claims })
      .setProtectedHeader({ alg: header.alg ?? 'RS256', ...('kid' in header ? { kid: header.kid } : { kid: 'rsa-1' }) })
      .sign(key ?? rsa.privateKey);
  const answer = async (a: OidcAuthenticator, token: string): Promise<AuthResult> => a.authenticateToken(token);

  it('authenticates a good token as the prefixed subject with its groups', async () => {
    const r = await answer(authenticator(), await sign({ groups: ['dev'] }));
    expect(r).to.deep.equal({ kind: 'user', user: { name: `${ISSUER}#alice`, groups: ['dev'] } });
  });

  it('verifies ES256 when it is among --oidc-signing-algs', async () => {
    const r = await answer(authenticator(), await sign({}, { alg: 'ES256', kid: 'ec-1' }, ec.privateKey));
    expect(r.kind).to.equal('user');
  });

  it('tries every key of a matching type when the token names no kid', async () => {
    const r = await answer(authenticator(), await sign({}, { kid: undefined }, rsa2.privateKey));
    expect(r.kind).to.equal('user');
  });

  it('answers a repeated token from its cache, synchronously, without the keys', async () => {
    const a = authenticator();
    const token = await sign({ groups: ['dev'] });
    await answer(a, token);
    const fetches = keyFetches;
    const again = a.authenticateToken(token);
    expect(isPromise(again)).to.equal(false);
    expect(again).to.deep.equal({ kind: 'user', user: { name: `${ISSUER}#alice`, groups: ['dev'] } });
    expect(keyFetches).to.equal(fetches);
    // Each answer is a copy: a later stage adding a group does not change the cached user.
    (again as { user: { groups: string[] } }).user.groups.push('system:authenticated');
    expect((a.authenticateToken(token) as { user: { groups: string[] } }).user.groups).to.deep.equal(['dev']);
  });

  it('is not the authenticator of other issuers or of non-JWT tokens', async () => {
    const a = authenticator();
    expect(a.authenticateToken(await sign({ iss: 'https://other.example.com' }))).to.equal(NOT_MINE);
    expect(a.authenticateToken('opaque-static-token')).to.equal(NOT_MINE);
    expect(keyFetches).to.equal(0);
  });

  const refusals: [string, () => Promise<string>, RegExp][] = [
    ['an expired token', () => sign({ exp: nowS() - 5 }), /token is expired/],
    ['a token for another client', () => sign({ aud: 'other-client' }), /expected audience "orch"/],
    ['a token signed by a key the issuer does not publish', async () => sign({}, { kid: 'rsa-1' }, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey), /signature verification failed/],
    ['a token naming an unknown kid', () => sign({}, { kid: 'nope' }), /no key of the issuer matches kid "nope"/],
    ['an HS256 token', () => sign({}, { alg: 'HS256' }, new Uint8Array(32)), /unsupported algorithm, expected \["RS256","ES256"\] got "HS256"/],
    ['an RS384 token (not in --oidc-signing-algs)', () => sign({}, { alg: 'RS384' }), /unsupported algorithm/],
    ['a token without a username claim', () => sign({ sub: undefined }), /parse username claims "sub"/],
    ['a token whose groups claim is a number', () => sign({ groups: 5 }), /parse groups claim/],
  ];
  for (const [what, make, reason] of refusals) {
    it(`refuses ${what}`, async () => {
      const r = await answer(authenticator(), await make());
      expect(r.kind).to.equal('invalid');
      expect((r as { reason: string }).reason).to.match(reason);
    });
  }

  it('refuses a token whose payload was changed after signing', async () => {
    const [h, , s] = (await sign({ sub: 'alice' })).split('.');
    const forged = `${h}.${b64({ iss: ISSUER, aud: CLIENT, sub: 'admin', exp: nowS() + 600 })}.${s}`;
    const r = await answer(authenticator(), forged);
    expect(r).to.deep.include({ kind: 'invalid' });
    expect((r as { reason: string }).reason).to.match(/signature verification failed/);
  });

  it('refuses a token with a missing required claim, and accepts it with the claim', async () => {
    const a = authenticator({ requiredClaims: { tenant: 'blue' } });
    expect(await answer(a, await sign({}))).to.deep.equal({ kind: 'invalid', reason: 'oidc: required claim tenant not present in ID token' });
    expect((await answer(a, await sign({ tenant: 'blue' }))).kind).to.equal('user');
  });

  it('refuses every token while the keys are unavailable, then accepts once they are', async () => {
    const a = authenticator();
    available = false;
    const token = await sign({});
    expect(await answer(a, token)).to.deep.equal({ kind: 'invalid', reason: 'oidc: authenticator not initialized' });
    available = true;
    expect((await answer(a, token)).kind).to.equal('user');
  });

  it('accepts a token refused for an unknown kid once the issuer publishes that key (no cached refusal)', async () => {
    const a = authenticator();
    const rsa3 = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await sign({}, { kid: 'rsa-3' }, rsa3.privateKey);
    expect((await answer(a, token)).kind).to.equal('invalid');
    jwks = [...jwks, { ...(await exportJWK(rsa3.publicKey)), kid: 'rsa-3' }];
    expect((await answer(a, token)).kind).to.equal('user');
  });

  it('never puts the token in a reason', async () => {
    const token = await sign({ exp: nowS() - 5 });
    const r = await answer(authenticator(), token);
    expect((r as { reason: string }).reason).to.not.include(token.split('.')[2]);
    expect((r as { reason: string }).reason).to.not.include(token.split('.')[1]);
  });
});

describe('OidcAuthenticator.fromFlags', () => {
  const flags = (extra: string[]) => parseFlags(['--oidc-issuer-url=https://127.0.0.1:1', '--oidc-client-id=c', ...extra]);
  it('stops the start with one line naming --oidc-ca-file when the file cannot be read', () => {
    expect(() => OidcAuthenticator.fromFlags(flags(['--oidc-ca-file=/nonexistent/ca.crt']), () => undefined))
      .to.throw(/^--oidc-ca-file \/nonexistent\/ca\.crt: ENOENT$/);
  });
  it('stops the start when --oidc-ca-file holds no certificate', () => {
    expect(() => OidcAuthenticator.fromFlags(flags([`--oidc-ca-file=${__filename}`]), () => undefined))
      .to.throw(/^--oidc-ca-file .*: no PEM certificate found$/);
  });
});
