/**
 * The example of docs/embedding.md and the README, exactly as printed there: a mocha suite with a
 * server of its own, reached with Node's https and the admin identity.
 */
import https from 'node:https';
import { expect } from 'chai';
import { ApiServer, startApiServer } from 'orch-apiserver';

describe('ConfigMaps, against an embedded orch-apiserver', function () {
  this.timeout(30_000);
  let api: ApiServer;

  before(async () => { api = await startApiServer({ flavor: 'kubernetes' }); });
  after(async () => { await api?.stop(); });

  // Any client works: kubectl or a client library reads api.kubeconfigPath.
  function request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = https.request(`${api.url}${path}`, {
        method, ca: api.caCertPem, cert: api.admin.certPem, key: api.admin.keyPem,
        headers: { 'content-type': 'application/json' },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => { text += chunk; })
          .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  it('creates a ConfigMap and reads it back', async () => {
    const created = await request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { color: 'blue' },
    });
    expect(created.status).to.equal(201);
    const read = await request('GET', '/api/v1/namespaces/default/configmaps/settings');
    expect(read.body.data).to.deep.equal({ color: 'blue' });
  });
});
