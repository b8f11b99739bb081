/**
 * TokenRequest (`POST .../serviceaccounts/<name>/token`) and the bound tokens it issues, through
 * HTTPS against the real server: defaults, validation, bindings, and that the token authenticates
 * as its service account until the account (or the bound object) is gone.
 */
import { expect } from 'chai';
import { startTestServer, TestServer, eventually } from '../helpers/server-harness';

const AUTHN = 'authentication.orch.io';
const ISSUER = 'https://orch.default.svc.cluster.local';

describe('TokenRequest (serviceaccounts/<name>/token)', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(['--service-account-max-token-expiration=2h']); });
  after(async () => { await t?.stop(); });

  const tokenPath = (ns: string, sa: string) => `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`;
  const request = (spec: Record<string, unknown> = {}) => ({ apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec });
  const whoami = (token: string) => t.post(`/apis/${AUTHN}/v1/selfsubjectreviews`, { apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview' },
    { identity: null, headers: { authorization: `Bearer ${token}` } });
  const createSa = async (ns: string, name: string) => {
    const r = await t.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } });
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const issue = async (ns: string, sa: string, spec: Record<string, unknown> = {}) => {
    const r = await t.post(tokenPath(ns, sa), request(spec));
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };

  it('issues a token with the defaults: the server\'s audiences, one hour, and fills name and namespace', async () => {
    await createSa('default', 'builder');
    const before = Date.now();
    const body = await issue('default', 'builder');
    expect(body).to.include({ apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest' });
    expect(body.metadata).to.include({ name: 'builder', namespace: 'default' });
    expect(body.spec).to.deep.equal({ audiences: [ISSUER], expirationSeconds: 3600 });
    expect(body.status.token).to.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const expires = Date.parse(body.status.expirationTimestamp);
    expect(expires).to.be.within(Math.floor(before / 1000) * 1000 + 3_599_000, Date.now() + 3_601_000);
  });

  it('writes Kubernetes\' claims: iss, sub, aud, exp, iat, nbf, jti and the orch.io claim', async () => {
    const sa = await createSa('default', 'claims');
    const { status } = await issue('default', 'claims', { audiences: ['a', 'b'], expirationSeconds: 1200 });
    const [header, payload] = status.token.split('.').slice(0, 2).map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).to.deep.equal({ alg: 'RS256', kid: t.server.serviceAccountKeys.signing.kid });
    expect(payload).to.include({ iss: ISSUER, sub: 'system:serviceaccount:default:claims' });
    expect(payload.aud).to.deep.equal(['a', 'b']);
    expect(payload.exp - payload.iat).to.equal(1200);
    expect(payload.nbf).to.equal(payload.iat);
    expect(payload.jti).to.match(/^[0-9a-f-]{36}$/);
    expect(payload['orch.io']).to.deep.equal({ namespace: 'default', serviceaccount: { name: 'claims', uid: sa.metadata.uid } });
  });

  it('authenticates as the service account, with its groups, uid and credential id', async () => {
    const sa = await createSa('default', 'runner');
    const { status } = await issue('default', 'runner');
    const r = await whoami(status.token);
    expect(r.status, r.text).to.equal(201);
    const jti = JSON.parse(Buffer.from(status.token.split('.')[1], 'base64url').toString()).jti;
    expect(r.body.status.userInfo).to.deep.equal({
      username: 'system:serviceaccount:default:runner', uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.orch.io/credential-id': [`JTI=${jti}`] },
    });
  });

  it('refuses less than 10 minutes and more than 2^32 seconds (422), and caps at --service-account-max-token-expiration', async () => {
    await createSa('default', 'limits');
    const short = await t.post(tokenPath('default', 'limits'), request({ expirationSeconds: 599 }));
    expect(short.status).to.equal(422);
    expect(short.body.message).to.equal(`TokenRequest.${AUTHN} "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`);
    const long = await t.post(tokenPath('default', 'limits'), request({ expirationSeconds: 2 ** 32 + 1 }));
    expect(long.status).to.equal(422);
    expect(long.body.message).to.include('may not specify a duration larger than 2^32 seconds');
    const capped = await issue('default', 'limits', { expirationSeconds: 86_400 });
    expect(capped.spec.expirationSeconds).to.equal(7200);
  });

  it('answers 404 for a missing service account and 400 for a body of another kind', async () => {
    const missing = await t.post(tokenPath('default', 'nobody'), request());
    expect(missing.status).to.equal(404);
    expect(missing.body.message).to.equal('serviceaccounts "nobody" not found');
    await createSa('default', 'kinds');
    const wrong = await t.post(tokenPath('default', 'kinds'), { apiVersion: 'v1', kind: 'ConfigMap' });
    expect(wrong.status).to.equal(400);
  });

  it('answers only POST on the token subresource (405 for GET), and POST on the account itself is 405', async () => {
    await createSa('default', 'verbs');
    expect((await t.get(tokenPath('default', 'verbs'))).status).to.equal(405);
    expect((await t.post('/api/v1/namespaces/default/serviceaccounts/verbs', request())).status).to.equal(405);
  });

  it('binds to a Secret: checks the uid, and the token dies with the Secret', async () => {
    await createSa('default', 'bound-secret');
    const secret = (await t.post('/api/v1/namespaces/default/secrets', { metadata: { name: 'binder' }, stringData: { a: 'b' } })).body;
    const mismatch = await t.post(tokenPath('default', 'bound-secret'), request({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binder', uid: 'not-the-uid' } }));
    expect(mismatch.status).to.equal(409);
    expect(mismatch.body.message).to.equal('Operation cannot be fulfilled on Secret "binder": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated');
    const { status } = await issue('default', 'bound-secret', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binder', uid: secret.metadata.uid } });
    const payload = JSON.parse(Buffer.from(status.token.split('.')[1], 'base64url').toString());
    expect(payload['orch.io'].secret).to.deep.equal({ name: 'binder', uid: secret.metadata.uid });
    expect((await whoami(status.token)).status).to.equal(201);
    expect((await t.del('/api/v1/namespaces/default/secrets/binder')).status).to.equal(200);
    await eventually(async () => (await whoami(status.token)).status === 401);
    // A new Secret of the same name has another uid: the token stays dead.
    await t.post('/api/v1/namespaces/default/secrets', { metadata: { name: 'binder' }, stringData: { a: 'b' } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await whoami(status.token)).status).to.equal(401);
  });

  it('binds to a Pod only of that service account, and answers 400 for other kinds', async () => {
    await createSa('default', 'pod-sa');
    const pod = (spec: Record<string, unknown>, name: string) => t.post('/api/v1/namespaces/default/pods', {
      metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
    });
    const mine = await pod({ serviceAccountName: 'pod-sa' }, 'mine');
    expect(mine.status, mine.text).to.equal(201);
    expect((await pod({ serviceAccountName: 'default' }, 'other')).status).to.equal(201);
    const wrong = await t.post(tokenPath('default', 'pod-sa'), request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } }));
    expect(wrong.status).to.equal(400);
    expect(wrong.body.message).to.equal('cannot bind token for serviceaccount "pod-sa" to pod running with different serviceaccount name.');
    const node = await t.post(tokenPath('default', 'pod-sa'), request({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } }));
    expect(node.status).to.equal(400);
    expect(node.body.message).to.equal('cannot bind token to object of type /v1, Kind=ConfigMap');
    const { status } = await issue('default', 'pod-sa', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'mine' } });
    const r = await whoami(status.token);
    expect(r.status).to.equal(201);
    expect(r.body.status.userInfo.extra).to.deep.include({
      'authentication.orch.io/pod-name': ['mine'], 'authentication.orch.io/pod-uid': [mine.body.metadata.uid],
    });
  });

  it('revokes every token of a deleted service account at once, also after it is recreated under the same name', async () => {
    await createSa('default', 'short-lived');
    const { status } = await issue('default', 'short-lived');
    expect((await whoami(status.token)).status).to.equal(201);
    expect((await t.del('/api/v1/namespaces/default/serviceaccounts/short-lived')).status).to.equal(200);
    await eventually(async () => (await whoami(status.token)).status === 401);
    await createSa('default', 'short-lived');
    await new Promise((r) => setTimeout(r, 300));
    const r = await whoami(status.token);
    expect(r.status).to.equal(401);
    expect(r.body).to.deep.equal({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('a dry run validates and issues no token', async () => {
    await createSa('default', 'dry');
    const r = await t.post(`${tokenPath('default', 'dry')}?dryRun=All`, request());
    expect(r.status).to.equal(201);
    expect(r.body.status).to.equal(undefined);
  });
});
