/**
 * Quota under concurrency: two servers on one etcd, each with its own watch cache and its own
 * ResourceQuota plugin, take many concurrent ConfigMap creates from several clients against a
 * quota of count/configmaps=N. The charge is a compare-and-swap on the quota's status before each
 * object is written, so exactly N objects are stored and status.used says N, whatever the
 * interleaving; the other creates are refused with the plugin's 403.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'rq-race';
const N = 10;
const CLIENTS = 8;
const CREATES = 40;
const configMaps = `/api/v1/namespaces/${NS}/configmaps`;
const quotaPath = `/api/v1/namespaces/${NS}/resourcequotas/objects`;

describe('ResourceQuota under concurrent creates on two replicas', function () {
  this.timeout(120_000);
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    a = await startTestServer(['--controllers=*,-serviceaccount,-root-ca-cert-publisher']);
    b = await startTestServer(['--controllers=*,-serviceaccount,-root-ca-cert-publisher'], { etcd: a.etcd });
    expect((await a.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    const res = await a.post(`/api/v1/namespaces/${NS}/resourcequotas`, {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'objects' }, spec: { hard: { 'count/configmaps': String(N) } },
    });
    expect(res.status, res.text).to.equal(201);
    // Both replicas see the quota with its first status before the race starts.
    for (const s of [a, b]) await eventually(async () => (await s.get(quotaPath)).body.status?.used?.['count/configmaps'] === '0');
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it(`ends with exactly ${N} of ${CREATES} creates from ${CLIENTS} clients stored, and status.used = ${N}`, async () => {
    const statuses: number[] = [];
    const messages = new Set<string>();
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      const server = c % 2 === 0 ? a : b;
      for (let i = c; i < CREATES; i += CLIENTS) {
        const res = await server.post(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } });
        statuses.push(res.status);
        if (res.status === 403) messages.add(res.body.message.replace(/"cm-\d+"/, '"cm-N"'));
      }
    }));
    expect(statuses.filter((s) => s === 201)).to.have.length(N);
    expect(statuses.filter((s) => s === 403)).to.have.length(CREATES - N);
    expect([...messages]).to.deep.equal([
      `configmaps "cm-N" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=${N}, limited: count/configmaps=${N}`,
    ]);
    const stored = (await a.get(configMaps)).body.items.filter((i: { metadata: { name: string } }) => i.metadata.name.startsWith('cm-'));
    expect(stored).to.have.length(N);
    expect((await a.get(quotaPath)).body.status.used).to.deep.equal({ 'count/configmaps': String(N) });
    expect((await b.get(quotaPath)).body.status.used).to.deep.equal({ 'count/configmaps': String(N) });
  });
});
