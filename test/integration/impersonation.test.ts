/**
 * Impersonation over HTTPS: an admin (system:masters) acting as another user, groups (several
 * header lines), uid and extras (percent-encoded keys) — checked exactly by SelfSubjectReview;
 * service accounts get their groups, system:anonymous its own; anyone without `impersonate` is
 * refused with Kubernetes' 403; groups without a user are 400; the request log names the impersonator.
 */
import { expect } from 'chai';
import { HttpResponse, RequestOptions, TestServer, startTestServer } from '../helpers/server-harness';
import { LogCapture, captureLog } from '../helpers/log-capture';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' };

/** Headers with repeated lines: Node sends an array value as one line per element. */
const headers = (h: Record<string, string | string[]>) => h as unknown as Record<string, string>;

describe('impersonation', function () {
  this.timeout(120_000);
  let t: TestServer;
  let log: LogCapture;
  let jane: RequestOptions['identity'];

  const review = (opts: RequestOptions = {}) => t.post(SSR, SSR_BODY, opts);
  const whoamiAs = async (h: Record<string, string | string[]>) => {
    const res = await review({ headers: headers(h) });
    expect(res.status, res.text).to.equal(201);
    return res.body.status.userInfo;
  };

  before(async () => {
    log = captureLog();
    t = await startTestServer(['--log-level=info', '-v=3']);
    jane = t.identity('jane', ['dev']);
  });
  after(async () => {
    await t?.stop();
    log?.stop();
  });

  it('the admin becomes exactly the user, groups, uid and extras asked for', async () => {
    expect(await whoamiAs({
      'Impersonate-User': 'alice',
      'Impersonate-Group': ['developers', 'auditors'],
      'Impersonate-Uid': 'alice-uid-42',
      'Impersonate-Extra-Scopes': ['view', 'edit'],
      'Impersonate-Extra-Example.com%2FReason': 'on-call',
    })).to.deep.equal({
      username: 'alice', uid: 'alice-uid-42', groups: ['developers', 'auditors', 'system:authenticated'],
      extra: { scopes: ['view', 'edit'], 'example.com/reason': ['on-call'] },
    });
  });

  it('a user alone gets system:authenticated only (nothing of the admin)', async () => {
    expect(await whoamiAs({ 'Impersonate-User': 'bob' })).to.deep.equal({ username: 'bob', groups: ['system:authenticated'] });
  });

  it('the first of two Impersonate-User lines is the user', async () => {
    expect(await whoamiAs({ 'Impersonate-User': ['carol', 'mallory'] })).to.deep.equal({ username: 'carol', groups: ['system:authenticated'] });
  });

  it('a service account gets its groups, unless groups are asked', async () => {
    expect(await whoamiAs({ 'Impersonate-User': 'system:serviceaccount:team-a:builder' })).to.deep.equal({
      username: 'system:serviceaccount:team-a:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
    });
    expect(await whoamiAs({ 'Impersonate-User': 'system:serviceaccount:team-a:builder', 'Impersonate-Group': 'custom' })).to.deep.equal({
      username: 'system:serviceaccount:team-a:builder', groups: ['custom', 'system:authenticated'],
    });
  });

  it('system:anonymous is in system:unauthenticated, and the admin impersonating it is authorized as anonymous', async () => {
    const api = await t.get('/api/v1/namespaces', { headers: { 'Impersonate-User': 'system:anonymous' } });
    expect(api.status, api.text).to.equal(403);
    expect(api.body.message).to.equal('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    expect((await t.get('/healthz', { headers: { 'Impersonate-User': 'system:anonymous' } })).status).to.equal(200);
    // Asked with system:authenticated it may review itself, and shows both groups.
    expect(await whoamiAs({ 'Impersonate-User': 'system:anonymous', 'Impersonate-Group': 'system:authenticated' }))
      .to.deep.equal({ username: 'system:anonymous', groups: ['system:authenticated', 'system:unauthenticated'] });
  });

  it('asking system:unauthenticated leaves out system:authenticated', async () => {
    const res = await t.get('/api/v1/namespaces', { headers: { 'Impersonate-User': 'dave', 'Impersonate-Group': 'system:unauthenticated' } });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.include('User "dave" cannot list');
  });

  describe('refusals', () => {
    it('a user who is not system:masters gets Kubernetes\' 403', async () => {
      const res = await review({ identity: jane, headers: { 'Impersonate-User': 'alice' } });
      expect(res.status, res.text).to.equal(403);
      expect(res.body).to.deep.equal({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: `users "alice" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope`,
        reason: 'Forbidden', details: { name: 'alice', kind: 'users' }, code: 403,
      });
    });

    it('the same for a service account (in its namespace) and on non-resource paths', async () => {
      const res = await t.get('/healthz', { identity: jane, headers: { 'Impersonate-User': 'system:serviceaccount:ns1:deployer' } });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal(`serviceaccounts "deployer" is forbidden: User "jane" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"`);
      expect(res.body.details).to.deep.equal({ name: 'deployer', kind: 'serviceaccounts' });
    });

    it('an anonymous caller is refused too (authenticated as system:anonymous first)', async () => {
      const res = await t.get('/version', { identity: null, headers: { 'Impersonate-User': 'system:admin' } });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.match(/^users "system:admin" is forbidden: User "system:anonymous" cannot impersonate resource "users"/);
    });

    it('a caller with a bad credential is 401 before impersonation is looked at', async () => {
      const res = await t.get('/version', { identity: null, headers: { authorization: 'Bearer nope', 'Impersonate-User': 'x' } });
      expect(res.status).to.equal(401);
    });

    it('groups, extras or a uid without a user are 400', async () => {
      const cases: Record<string, string>[] = [
        { 'Impersonate-Group': 'g1' }, { 'Impersonate-Extra-Scopes': 'view' }, { 'Impersonate-Uid': 'u1' }, { 'Impersonate-User': '', 'Impersonate-Group': 'g1' },
      ];
      for (const h of cases) {
        const res = await review({ headers: h });
        expect(res.status, JSON.stringify(h)).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
        expect(res.body.message).to.match(/^requested \[.*\] without impersonating a user$/);
      }
    });
  });

  it('the request log records the impersonated user and the impersonator', async () => {
    // frank may read /version (system:public-info-viewer); jane may not impersonate.
    await t.get('/version', { headers: { 'Impersonate-User': 'frank' } });
    await t.get('/version', { identity: jane, headers: { 'Impersonate-User': 'frank' } });
    const line = log.records().find((r) => r.message === 'HTTP' && r.user === 'frank');
    expect(line).to.include({ user: 'frank', impersonator: 'orch-admin', path: '/version', URI: '/version', resp: 200 });
    const refused = log.records().find((r) => r.message === 'HTTP' && r.resp === 403 && r.user === 'jane');
    expect(refused, 'a refused impersonation is logged with the caller').to.include({ path: '/version' });
    expect(refused).not.to.have.property('impersonator');
  });
});
