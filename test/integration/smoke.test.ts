import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

describe('server harness', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  it('serves the bootstrap namespaces to the admin', async () => {
    const res = await t.get('/api/v1/namespaces');
    expect(res.status).to.equal(200);
    expect(res.body.kind).to.equal('NamespaceList');
    expect(res.body.items.map((n: any) => n.metadata.name)).to.include.members(['default', 'orch-system', 'orch-public']);
  });

  it('answers a request without credentials as system:anonymous, who may not list namespaces (403)', async () => {
    const res = await t.get('/api/v1/namespaces', { identity: null });
    expect(res.status).to.equal(403);
    expect(res.body).to.include({
      kind: 'Status', reason: 'Forbidden', code: 403,
      message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    });
  });

  it('answers 401 to a bearer token nobody knows, as kube-apiserver writes it', async () => {
    const res = await t.get('/api/v1/namespaces', { identity: null, headers: { authorization: 'Bearer not-a-known-token' } });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });
});
