/**
 * Service-account JWTs at the door, through HTTPS against the real server: every way a token can
 * be wrong (expired, not yet valid, other audience, other issuer, tampered, another key, alg none,
 * malformed, revoked) is a 401 Status as kube-apiserver writes it; legacy Secret-based tokens;
 * several issuers; RSA and EC keys from files; and the issuer discovery documents, whose keys
 * verify the tokens the server issues.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, createLocalJWKSet, jwtVerify } from 'jose';
import { startTestServer, TestServer, eventually } from '../helpers/server-harness';

const AUTHN = 'authentication.orch.io';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

function helpers(t: () => TestServer) {
  const whoami = (token: string) => t().post(`/apis/${AUTHN}/v1/selfsubjectreviews`, { apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview' },
    { identity: null, headers: { authorization: `Bearer ${token}` } });
  const createSa = async (ns: string, name: string) => (await t().post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } })).body;
  const issue = async (ns: string, sa: string, spec: Record<string, unknown> = {}) => {
    const r = await t().post(`/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec });
    expect(r.status, r.text).to.equal(201);
    return r.body.status.token as string;
  };
  return { whoami, createSa, issue };
}

const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

describe('service-account tokens (authentication)', () => {
  let t: TestServer;
  const { whoami, createSa, issue } = helpers(() => t);
  let sa: { metadata: { uid: string } };
  before(async () => {
    t = await startTestServer();
    sa = await createSa('default', 'app');
  });
  after(async () => { await t?.stop(); });

  /** A token signed with the server's own key, with the claims of a bound token for default/app changed by `edit`. */
  async function forged(edit: (claims: Record<string, any>) => void, key = t.server.serviceAccountKeys.signing): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, any> = {
      iss: 'https://orch.default.svc.cluster.local', sub: 'system:serviceaccount:default:app', aud: ['https://orch.default.svc.cluster.local'],
      iat: now, nbf: now, exp: now + 600, 'orch.io': { namespace: 'default', serviceaccount: { name: 'app', uid: sa.metadata.uid } },
    };
    edit(claims);
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign((key as { privateKey: any }).privateKey);
  }

  it('a well-formed token signed by the server authenticates (the forging helper is sound)', async () => {
    expect((await whoami(await forged(() => undefined))).status).to.equal(201);
  });

  const refusals: [string, (c: Record<string, any>) => void][] = [
    ['expired (beyond the one-minute leeway)', (c) => { c.exp = Math.floor(Date.now() / 1000) - 120; }],
    ['not valid yet', (c) => { c.nbf = Math.floor(Date.now() / 1000) + 600; }],
    ['for another audience', (c) => { c.aud = ['https://elsewhere.example']; }],
    ['of another issuer', (c) => { c.iss = 'https://issuer.example'; }],
    ['for an account uid that is not the account\'s', (c) => { c['orch.io'].serviceaccount.uid = '00000000-0000-0000-0000-000000000000'; }],
    ['for a missing account', (c) => { c['orch.io'].serviceaccount.name = 'ghost'; c.sub = 'system:serviceaccount:default:ghost'; }],
    ['whose sub does not name its account', (c) => { c.sub = 'system:serviceaccount:default:other'; }],
    ['without the private claim', (c) => { delete c['orch.io']; }],
  ];
  for (const [what, edit] of refusals) {
    it(`a token ${what} is 401`, async () => {
      const r = await whoami(await forged(edit));
      expect(r.status).to.equal(401);
      expect(r.body).to.deep.equal(UNAUTHORIZED);
    });
  }

  it('a token within the one-minute leeway after exp still authenticates', async () => {
    expect((await whoami(await forged((c) => { c.exp = Math.floor(Date.now() / 1000) - 20; }))).status).to.equal(201);
  });

  it('a tampered payload, a foreign key, alg none and garbage are 401', async () => {
    const good = await issue('default', 'app');
    const [h, p, s] = good.split('.');
    const claims = payloadOf(good);
    claims.sub = 'system:serviceaccount:default:admin';
    const tampered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const flipped = `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const foreign = await forged(() => undefined, { ...t.server.serviceAccountKeys.signing, privateKey });
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    for (const token of [tampered, flipped, foreign, none, 'a.b.c', `${h}.${p}`, 'x'.repeat(5000)]) {
      const r = await whoami(token);
      expect(r.status, token.slice(0, 40)).to.equal(401);
      expect(r.body).to.deep.equal(UNAUTHORIZED);
    }
    expect((await whoami(good)).status).to.equal(201);
  });

  it('a token for another audience authenticates for TokenReview asking that audience, not at the API', async () => {
    const token = await issue('default', 'app', { audiences: ['vault'] });
    expect((await whoami(token)).status).to.equal(401);
    const review = await t.post(`/apis/${AUTHN}/v1/tokenreviews`, { apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec: { token, audiences: ['vault', 'other'] } });
    expect(review.status).to.equal(201);
    expect(review.body.status).to.include({ authenticated: true });
    expect(review.body.status.audiences).to.deep.equal(['vault']);
    expect(review.body.status.user.username).to.equal('system:serviceaccount:default:app');
  });

  it('legacy Secret-based tokens authenticate while the Secret holds them and the account exists', async () => {
    const legacySa = await createSa('default', 'legacy');
    const token = await t.server.tokenGenerator.legacy('default', { name: 'legacy', uid: legacySa.metadata.uid }, 'legacy-token');
    const payload = payloadOf(token);
    expect(payload).to.deep.equal({
      iss: 'orch/serviceaccount', 'orch.io/serviceaccount/namespace': 'default', 'orch.io/serviceaccount/secret.name': 'legacy-token',
      'orch.io/serviceaccount/service-account.name': 'legacy', 'orch.io/serviceaccount/service-account.uid': legacySa.metadata.uid,
      sub: 'system:serviceaccount:default:legacy',
    });
    // Not stored in a Secret yet: refused.
    expect((await whoami(token)).status).to.equal(401);
    const secret = await t.post('/api/v1/namespaces/default/secrets', {
      metadata: { name: 'legacy-token', annotations: { 'orch.io/service-account.name': 'legacy' } },
      type: 'orch.io/service-account-token', stringData: { token },
    });
    expect(secret.status, secret.text).to.equal(201);
    const ok = await eventually(async () => { const r = await whoami(token); return r.status === 201 && r; });
    expect(ok.body.status.userInfo).to.deep.equal({
      username: 'system:serviceaccount:default:legacy', uid: legacySa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    // The Secret no longer holds this token: refused.
    expect((await t.request('PATCH', '/api/v1/namespaces/default/secrets/legacy-token', {
      raw: JSON.stringify({ stringData: { token: 'another' } }), headers: { 'content-type': 'application/merge-patch+json' },
    })).status).to.equal(200);
    await eventually(async () => (await whoami(token)).status === 401);
  });
});

describe('service-account tokens with keys from files, several issuers and --service-account-lookup=false', () => {
  let t: TestServer;
  let dir: string;
  const { whoami, createSa, issue } = helpers(() => t);
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const extra = generateKeyPairSync('rsa', { modulusLength: 2048 });
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-sa-keys-'));
    writeFileSync(path.join(dir, 'signing.pem'), ec.privateKey.export({ type: 'sec1', format: 'pem' }));
    writeFileSync(path.join(dir, 'extra.pub'), extra.publicKey.export({ type: 'spki', format: 'pem' }));
    t = await startTestServer([
      `--service-account-signing-key-file=${path.join(dir, 'signing.pem')}`, `--service-account-key-file=${path.join(dir, 'extra.pub')}`,
      '--service-account-issuer=https://first.example', '--service-account-issuer=https://second.example',
      '--service-account-lookup=false',
    ]);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs with the EC key (ES256) as the first issuer, for the issuers as audiences', async () => {
    await createSa('default', 'ec');
    const token = await issue('default', 'ec');
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg).to.equal('ES256');
    expect(payloadOf(token)).to.include({ iss: 'https://first.example' });
    expect(payloadOf(token).aud).to.deep.equal(['https://first.example', 'https://second.example']);
    expect((await whoami(token)).status).to.equal(201);
  });

  it('accepts tokens of the second issuer signed by a --service-account-key-file key', async () => {
    const account = await createSa('default', 'second');
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      iss: 'https://second.example', sub: 'system:serviceaccount:default:second', aud: ['https://second.example'], iat: now, nbf: now, exp: now + 600,
      'orch.io': { namespace: 'default', serviceaccount: { name: 'second', uid: account.metadata.uid } },
    }).setProtectedHeader({ alg: 'RS256' }).sign(extra.privateKey);
    expect((await whoami(token)).status).to.equal(201);
  });

  it('without lookup, a legacy token needs no Secret; bound tokens are still checked against their account', async () => {
    const account = await createSa('default', 'nolookup');
    const legacy = await t.server.tokenGenerator.legacy('default', { name: 'nolookup', uid: account.metadata.uid }, 'never-stored');
    expect((await whoami(legacy)).status).to.equal(201);
    const bound = await issue('default', 'nolookup');
    await t.del('/api/v1/namespaces/default/serviceaccounts/nolookup');
    await eventually(async () => (await whoami(bound)).status === 401);
  });

  it('publishes both verification keys in the JWKS, with the issuer discovery document', async () => {
    const config = await t.get('/.well-known/openid-configuration', { identity: null, headers: { authorization: `Bearer ${await issue('default', 'ec')}` } });
    expect(config.status).to.equal(200);
    expect(config.body.issuer).to.equal('https://first.example');
    expect(config.body.id_token_signing_alg_values_supported).to.deep.equal(['ES256', 'RS256']);
    const jwks = await t.get('/openid/v1/jwks');
    expect(jwks.body.keys.map((k: { kty: string }) => k.kty).sort()).to.deep.equal(['EC', 'RSA']);
  });
});

describe('service-account issuer discovery', () => {
  let t: TestServer;
  const { createSa, issue } = helpers(() => t);
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  it('serves the OpenID configuration with this server\'s jwks_uri, cacheable for an hour', async () => {
    const r = await t.get('/.well-known/openid-configuration');
    expect(r.status).to.equal(200);
    expect(r.headers['content-type']).to.match(/^application\/json/);
    expect(r.headers['cache-control']).to.equal('public, max-age=3600');
    expect(r.body).to.deep.equal({
      issuer: 'https://orch.default.svc.cluster.local', jwks_uri: `${t.server.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'],
    });
  });

  it('serves a JWKS whose keys verify the tokens the server issues', async () => {
    const r = await t.get('/openid/v1/jwks');
    expect(r.status).to.equal(200);
    expect(r.headers['content-type']).to.match(/^application\/jwk-set\+json/);
    expect(r.body.keys).to.have.length(1);
    expect(r.body.keys[0]).to.include({ use: 'sig', kty: 'RSA', alg: 'RS256', kid: t.server.serviceAccountKeys.signing.kid });
    expect(r.body.keys[0]).to.not.have.property('d');
    await createSa('default', 'discovered');
    const token = await issue('default', 'discovered', { audiences: ['vault'] });
    const { payload } = await jwtVerify(token, createLocalJWKSet(r.body), { issuer: 'https://orch.default.svc.cluster.local', audience: 'vault' });
    expect(payload.sub).to.equal('system:serviceaccount:default:discovered');
  });

  it('is readable by service accounts (system:service-account-issuer-discovery), not by anonymous or other users', async () => {
    expect((await t.get('/openid/v1/jwks', { identity: null })).status).to.equal(403);
    expect((await t.get('/openid/v1/jwks', { identity: t.identity('someone') })).status).to.equal(403);
    const account = t.identity('system:serviceaccount:default:reader', ['system:serviceaccounts', 'system:serviceaccounts:default']);
    expect((await t.get('/openid/v1/jwks', { identity: account })).status).to.equal(200);
    expect((await t.get('/.well-known/openid-configuration', { identity: account })).status).to.equal(200);
  });
});
