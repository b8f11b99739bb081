/**
 * Lists over 1 MiB are written in chunks (api/json-list-body.ts): over HTTP/1.1 and HTTP/2 the
 * body is exactly its Content-Length of valid JSON with every item and its resourceVersion, from
 * the watch cache and from etcd; a client that goes away mid-list leaves the server serving.
 */
import { expect } from 'chai';
import http2 from 'node:http2';
import https from 'node:https';
import { startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';

const NS = 'big';
const COUNT = 600;
const PAYLOAD = 'x'.repeat(3000);

describe('large lists (chunked bodies)', function () {
  this.timeout(120_000);
  let t: TestServer;
  const base = `/api/v1/namespaces/${NS}/configmaps`;

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    for (let i = 0; i < COUNT; i += 50) {
      const batch = Array.from({ length: Math.min(50, COUNT - i) }, (_, j) => t.post(base, {
        apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i + j).padStart(4, '0')}` }, data: { payload: PAYLOAD },
      }));
      for (const res of await Promise.all(batch)) expect(res.status, res.text).to.equal(201);
    }
  });
  after(async () => t?.stop());

  function checkList(raw: Buffer, contentLength: unknown): void {
    expect(raw.length).to.be.greaterThan(1.5 * 1024 * 1024);
    expect(Number(contentLength)).to.equal(raw.length);
    const list = JSON.parse(raw.toString('utf8'));
    expect(list.kind).to.equal('ConfigMapList');
    expect(list.items).to.have.length(COUNT);
    list.items.forEach((item: any, i: number) => {
      expect(item.metadata.name).to.equal(`cm-${String(i).padStart(4, '0')}`);
      expect(item.metadata.resourceVersion).to.match(/^\d+$/);
      expect(item.data.payload).to.equal(PAYLOAD);
    });
  }

  for (const query of ['', '?resourceVersion=0']) {
    it(`HTTP/1.1 ${query || '(consistent)'}: exactly Content-Length bytes of a complete list`, async () => {
      const res = await t.get(`${base}${query}`);
      expect(res.status).to.equal(200);
      checkList(res.raw as Buffer, res.headers['content-length']);
    });
  }

  it('the same read from etcd (resourceVersionMatch=Exact)', async () => {
    const rv = (await t.get(`${base}?limit=1`)).body.metadata.resourceVersion;
    const res = await t.get(`${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(res.status).to.equal(200);
    checkList(res.raw as Buffer, res.headers['content-length']);
  });

  it('HTTP/2, eight lists at once on one session: each complete and equal', async () => {
    const id = t.identity('admin', ['system:masters']);
    const session = http2.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: id.certPem, key: id.keyPem });
    try {
      const one = () => new Promise<{ raw: Buffer; length: unknown }>((resolve, reject) => {
        const req = session.request({ ':method': 'GET', ':path': `${base}?resourceVersion=0`, accept: 'application/json' });
        const chunks: Buffer[] = [];
        let length: unknown;
        req.on('response', (h) => { length = h['content-length']; });
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => resolve({ raw: Buffer.concat(chunks), length }));
        req.on('error', reject);
        req.end();
      });
      const results = await Promise.all(Array.from({ length: 8 }, one));
      for (const r of results) checkList(r.raw, r.length);
      for (const r of results.slice(1)) expect(r.raw.equals(results[0].raw)).to.equal(true);
    } finally {
      session.close();
    }
  });

  it('a client that disconnects mid-list does not disturb the server', async () => {
    const id = t.identity('admin', ['system:masters']);
    await new Promise<void>((resolve) => {
      const req = https.get(`${t.server.url}${base}`, { ca: t.server.pki.caCertPem, cert: id.certPem, key: id.keyPem }, (res) => {
        res.once('data', () => { req.destroy(); resolve(); });
      });
      req.on('error', () => resolve());
    });
    const res = await t.get(`${base}?resourceVersion=0`);
    expect(res.status).to.equal(200);
    checkList(res.raw as Buffer, res.headers['content-length']);
    expect((await t.get('/readyz')).status).to.equal(200);
  });
});
