/**
 * The authentication group's review APIs: TokenReview (who is this token, for which audiences)
 * and SelfSubjectReview (who am I), in JSON and protobuf, with their refusals.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

const AUTHN = 'authentication.orch.io';
const review = (spec: Record<string, unknown>) => ({ apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec });

describe('TokenReview and SelfSubjectReview', () => {
  let t: TestServer;
  let token: string;
  before(async () => {
    t = await startTestServer();
    await t.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'reviewed' } });
    token = (await t.post('/api/v1/namespaces/default/serviceaccounts/reviewed/token', { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} })).body.status.token;
  });
  after(async () => { await t?.stop(); });

  it('TokenReview of a good token: authenticated, the user with system:authenticated, the server\'s audiences; the token is not echoed', async () => {
    const r = await t.post(`/apis/${AUTHN}/v1/tokenreviews`, review({ token }));
    expect(r.status).to.equal(201);
    expect(r.body.kind).to.equal('TokenReview');
    expect(r.body.spec).to.deep.equal({});
    expect(r.text).to.not.include(token);
    expect(r.body.status.authenticated).to.equal(true);
    expect(r.body.status.audiences).to.deep.equal(['https://orch.default.svc.cluster.local']);
    expect(r.body.status.user.groups).to.deep.equal(['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
  });

  it('TokenReview of an unknown token: not authenticated, an empty user and the error', async () => {
    const r = await t.post(`/apis/${AUTHN}/v1/tokenreviews`, review({ token: 'nobody-knows-this' }));
    expect(r.status).to.equal(201);
    expect(r.body.status).to.deep.equal({ user: {}, error: 'invalid bearer token' });
  });

  it('TokenReview of a token for other audiences only: not authenticated, with the reason', async () => {
    const r = await t.post(`/apis/${AUTHN}/v1/tokenreviews`, review({ token, audiences: ['vault'] }));
    expect(r.status).to.equal(201);
    expect(r.body.status.authenticated).to.equal(undefined);
    expect(r.body.status.error).to.match(/^invalid bearer token; token audiences .* is invalid for the target audiences \["vault"\]$/);
  });

  it('TokenReview without a token is 400; with a namespace in the path 404; GET is 405', async () => {
    const empty = await t.post(`/apis/${AUTHN}/v1/tokenreviews`, review({}));
    expect(empty.status).to.equal(400);
    expect(empty.body.message).to.equal('token is required for TokenReview in authentication');
    expect((await t.post(`/apis/${AUTHN}/v1/namespaces/default/tokenreviews`, review({ token }))).status).to.equal(404);
    expect((await t.get(`/apis/${AUTHN}/v1/tokenreviews`)).status).to.equal(405);
    const junk = await t.request('POST', `/apis/${AUTHN}/v1/tokenreviews`, { raw: '{"spec":', headers: { 'content-type': 'application/json' } });
    expect(junk.status).to.equal(400);
  });

  it('SelfSubjectReview answers the caller, in protobuf as kubectl asks', async () => {
    const body = encodeProtobuf({ apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview', metadata: {} });
    const r = await t.request('POST', `/apis/${AUTHN}/v1/selfsubjectreviews`, {
      raw: body, identity: t.identity('jane', ['dev', 'ops']),
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf, */*' },
    });
    expect(r.status, r.text).to.equal(201);
    const answer = decodeProtobuf(r.raw!);
    expect(answer.kind).to.equal('SelfSubjectReview');
    expect((answer.status as { userInfo: unknown }).userInfo).to.deep.equal({ username: 'jane', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('the authentication group is discovered with both resources and serviceaccounts/token', async () => {
    const group = await t.get(`/apis/${AUTHN}/v1`);
    expect(group.body.resources.map((r: { name: string }) => r.name)).to.deep.equal(['selfsubjectreviews', 'tokenreviews']);
    const core = await t.get('/api/v1');
    expect(core.body.resources.find((r: { name: string }) => r.name === 'serviceaccounts/token'))
      .to.deep.include({ kind: 'TokenRequest', group: AUTHN, version: 'v1', verbs: ['create'] });
  });
});
