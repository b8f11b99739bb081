/**
 * Anonymous requests (--anonymous-auth): by default a request without credentials is
 * system:anonymous in system:unauthenticated, which may read health and version only (403 with
 * Kubernetes' sentence elsewhere); with --anonymous-auth=false every such request is 401, the
 * health paths included, as kube-apiserver answers.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const PUBLIC = ['/healthz', '/livez', '/readyz', '/version', '/healthz?verbose'];
const NONE = { identity: null };

function expect401(res: HttpResponse): void {
  expect(res.status, res.text).to.equal(401);
  expect(res.body).to.deep.equal(UNAUTHORIZED);
}

describe('anonymous requests', function () {
  this.timeout(120_000);

  describe('enabled (the default)', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    for (const p of PUBLIC) {
      it(`${p} is readable without credentials`, async () => {
        const res = await t.get(p, NONE);
        expect(res.status, res.text).to.equal(200);
      });
    }

    it('/version answers the version object', async () => {
      expect((await t.get('/version', NONE)).body).to.have.property('gitVersion');
    });

    it('/api is 403 for system:anonymous, with the non-resource sentence and empty details', async () => {
      const res = await t.get('/api', NONE);
      expect(res.body).to.deep.equal({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'forbidden: User "system:anonymous" cannot get path "/api"', reason: 'Forbidden', details: {}, code: 403,
      });
      expect(res.status).to.equal(403);
    });

    it('resources are 403 for system:anonymous, with the resource sentence', async () => {
      const list = await t.get('/api/v1/namespaces', NONE);
      expect(list.status).to.equal(403);
      expect(list.body).to.deep.include({
        message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
        details: { kind: 'namespaces' },
      });
      const get = await t.get('/api/v1/namespaces/default/configmaps/x', NONE);
      expect(get.body.message).to.equal('configmaps "x" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "default"');
      const create = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'anon' } }, NONE);
      expect(create.status).to.equal(403);
      expect((await t.get('/api/v1/namespaces/anon')).status).to.equal(404);
    });

    it('writes to health paths are 403 (only get is granted)', async () => {
      expect((await t.post('/healthz', {}, NONE)).status).to.equal(403);
    });

    it('the anonymous user may not review itself (SelfSubjectReview is for authenticated users)', async () => {
      const res = await t.post('/apis/authentication.orch.io/v1/selfsubjectreviews', { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, NONE);
      expect(res.status).to.equal(403);
      expect(res.body.message).to.include('User "system:anonymous" cannot create resource "selfsubjectreviews"');
    });
  });

  describe('--anonymous-auth=false', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--anonymous-auth=false']); });
    after(async () => { await t?.stop(); });

    for (const p of [...PUBLIC, '/readyz/ping', '/api', '/apis', '/api/v1/namespaces', '/openapi/v2']) {
      it(`${p} without credentials is 401`, async () => {
        expect401(await t.get(p, NONE));
      });
    }

    it('an Authorization header that is not a bearer token is no credential: 401', async () => {
      expect401(await t.get('/healthz', { identity: null, headers: { authorization: 'Basic eHl6Og==' } }));
      expect401(await t.get('/healthz', { identity: null, headers: { authorization: 'Bearer' } }));
    });

    it('a client certificate still authenticates', async () => {
      expect((await t.get('/healthz')).status).to.equal(200);
      // Discovery is granted to every authenticated user (system:discovery); namespaces are not.
      expect((await t.get('/api', { identity: t.identity('jane') })).status).to.equal(200);
      expect((await t.get('/api/v1/namespaces', { identity: t.identity('jane') })).status).to.equal(403);
    });
  });
});
