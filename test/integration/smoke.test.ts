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

  it('answers 401 without a client certificate', async () => {
    const res = await t.get('/api/v1/namespaces', { identity: null });
    expect(res.status).to.equal(401);
    expect(res.body).to.include({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
