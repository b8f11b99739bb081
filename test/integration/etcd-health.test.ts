/**
 * The etcd health checks through HTTPS against a real etcd (lib/storage/etcd-health.ts): the
 * `etcd` check on /healthz, /livez and /readyz and `etcd-readiness` on /readyz only, as
 * kube-apiserver lists them; an outage failing the very next check although a Txn was answered
 * just before; and what the lean etcd client reports of etcd, which the checks read.
 */
import { expect } from 'chai';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describe('etcd health checks', () => {
  describe('listed as kube-apiserver lists them', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('/readyz?verbose: ping, log, etcd, etcd-readiness first, in that order', async () => {
      const res = await t.get('/readyz?verbose');
      expect(res.status).to.equal(200);
      expect(res.text.split('\n').slice(0, 4)).to.deep.equal(['[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok']);
    });

    for (const endpoint of ['healthz', 'livez']) {
      it(`/${endpoint}?verbose: ping, log, etcd first, and not etcd-readiness`, async () => {
        const lines = (await t.get(`/${endpoint}?verbose`)).text.split('\n');
        expect(lines.slice(0, 3)).to.deep.equal(['[+]ping ok', '[+]log ok', '[+]etcd ok']);
        expect(lines.filter((l) => l.includes('etcd-readiness'))).to.deep.equal([]);
      });
    }

    it('/readyz/etcd-readiness runs that one check; ?exclude=etcd-readiness leaves it out', async () => {
      const one = await t.get('/readyz/etcd-readiness');
      expect(one.status).to.equal(200);
      expect(one.text).to.equal('ok');
      const excluded = await t.get('/readyz?verbose&exclude=etcd-readiness');
      expect(excluded.text.split('\n')).to.include('[+]etcd-readiness excluded: ok');
    });

    it('checks in quick succession all answer 200 (the newest probe\'s outcome in between)', async () => {
      const all = await Promise.all(Array.from({ length: 40 }, (_, i) => t.get(i % 2 ? '/healthz' : '/readyz')));
      expect(all.map((r) => r.status)).to.deep.equal(Array(40).fill(200));
    });
  });

  describe('an etcd outage', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('fails the very next check although a write was answered just before; the reason is withheld; livez without etcd holds', async () => {
      expect((await t.get('/readyz')).status).to.equal(200);
      expect((await t.post('/api/v1/namespaces/default/configmaps', configMap('just-before'))).status).to.equal(201);
      await t.etcd.stop();
      const [healthz, readyz] = [await t.get('/healthz?verbose'), await t.get('/readyz?verbose')];
      expect(healthz.status).to.equal(500);
      expect(healthz.text.split('\n')).to.include('[-]etcd failed: reason withheld');
      expect(readyz.status).to.equal(500);
      expect(readyz.text.split('\n')).to.include.members(['[-]etcd failed: reason withheld', '[-]etcd-readiness failed: reason withheld']);
      expect(healthz.text + readyz.text).not.to.match(/127\.0\.0\.1|ECONNREFUSED|error getting data/);
      expect((await t.get('/livez?exclude=etcd')).status).to.equal(200);
      // Checks in between give the stored failure, not a stale "ok".
      expect((await t.get('/healthz')).status).to.equal(500);
    });
  });

  describe('what the lean client reports of etcd', () => {
    let etcd: TestEtcd;
    let client: EtcdKvClient;
    before(async () => {
      etcd = await startTestEtcd();
      client = new EtcdKvClient({ endpoints: [etcd.endpoint], callTimeoutMs: 2_000 });
    });
    after(async () => {
      await client?.close();
      await etcd?.stop();
    });

    it('a Txn answered sets answeredAt; a Range does not; nothing failed yet', async () => {
      expect(client.quorumHealth()).to.deep.equal({ answeredAt: 0, failedAt: 0 });
      await client.range({ key: Buffer.from('/health-test') });
      expect(client.quorumHealth().answeredAt).to.equal(0);
      const before = Date.now();
      await client.txn({ success: [{ put: { key: Buffer.from('/health-test'), value: Buffer.from('x') } }] });
      const seen = client.quorumHealth();
      expect(seen.answeredAt).to.be.within(before, Date.now());
      expect(seen.failedAt).to.equal(0);
    });

    it('etcd gone: failedAt is set once the connection is lost, after the last answer', async () => {
      const answeredAt = client.quorumHealth().answeredAt;
      await etcd.stop();
      const err = await client.txn({ success: [{ put: { key: Buffer.from('/health-test'), value: Buffer.from('y') } }] }).then(() => undefined, (e: Error) => e);
      expect(err, 'a write to a stopped etcd').to.be.instanceOf(Error);
      const seen = client.quorumHealth();
      expect(seen.answeredAt).to.equal(answeredAt);
      expect(seen.failedAt).to.be.at.least(answeredAt);
      expect(seen.failedAt).to.be.greaterThan(0);
    });
  });
});
