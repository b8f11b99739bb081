import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

describe("etcd's own request-size limit", () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  it('a valid Secret too large for etcd is 413 RequestEntityTooLarge, not a 500, and nothing is stored', async () => {
    // Under our 3 MiB body cap and the 1 MiB Secret data cap, yet over etcd's 1.5 MiB request limit.
    const secret = {
      apiVersion: 'v1', kind: 'Secret',
      metadata: { name: 'big', annotations: { note: 'y'.repeat(250_000) } },
      data: { k: Buffer.alloc(1024 * 1024 - 100, 'x').toString('base64') },
    };
    const before = await t.get('/api/v1/namespaces/default/secrets');
    const res = await t.post('/api/v1/namespaces/default/secrets', secret);
    expect(res.status, res.text.slice(0, 300)).to.equal(413);
    expect(res.body).to.include({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expect(res.body.message).to.include('request is too large');
    expect((await t.get('/api/v1/namespaces/default/secrets/big')).status).to.equal(404);
    const after = await t.get('/api/v1/namespaces/default/secrets');
    expect(after.body.items).to.have.length(before.body.items.length);
  });
});
