/**
 * The health checks' service-level indicators at /metrics/slis (lib/api/metrics/sli-metrics.ts) and
 * kube-apiserver's `log` check, through HTTPS against a real etcd: who may read them, what a
 * probe of each endpoint counts, an etcd outage showing as `error` and a gauge of 0.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { Exposition, parseExposition } from '../helpers/prom-text';

describe('/metrics/slis and the log check', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  const slis = async (): Promise<Exposition> => {
    const res = await t.get('/metrics/slis');
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/plain; version=0.0.4; charset=utf-8');
    return parseExposition(res.text);
  };
  const total = (e: Exposition, name: string, type: string, status: string) => e.value('kubernetes_healthchecks_total', { name, type, status });

  it('is refused to a plain user and served to system:monitoring, apart from /metrics', async () => {
    const plain = await t.get('/metrics/slis', { identity: t.identity('jane') });
    expect(plain.status).to.equal(403);
    expect(plain.body.message).to.equal('forbidden: User "jane" cannot get path "/metrics/slis"');
    const monitor = await t.get('/metrics/slis', { identity: t.identity('prometheus', ['system:monitoring']) });
    expect(monitor.status).to.equal(200);
    const metrics = parseExposition((await t.get('/metrics')).text);
    expect(metrics.types.has('kubernetes_healthcheck')).to.equal(false);
    expect(metrics.types.has('apiserver_request_total')).to.equal(true);
    expect((await slis()).types.has('apiserver_request_total')).to.equal(false);
  });

  it('the log check passes on all three endpoints, alone and in the list', async () => {
    for (const endpoint of ['healthz', 'livez', 'readyz']) {
      const one = await t.get(`/${endpoint}/log`);
      expect(one.status, endpoint).to.equal(200);
      expect(one.text).to.equal('ok');
      expect((await t.get(`/${endpoint}?verbose`)).text.split('\n')[1]).to.equal('[+]log ok');
    }
  });

  it('counts each check a whole-endpoint probe ran, by endpoint; excluded checks and single checks count nothing', async () => {
    const a = await slis();
    expect((await t.get('/readyz')).status).to.equal(200);
    expect((await t.get('/readyz?exclude=etcd')).status).to.equal(200);
    expect((await t.get('/livez')).status).to.equal(200);
    expect((await t.get('/healthz/etcd')).status).to.equal(200);
    const b = await slis();
    expect(total(b, 'etcd', 'readyz', 'success') - total(a, 'etcd', 'readyz', 'success')).to.equal(1);
    expect(total(b, 'ping', 'readyz', 'success') - total(a, 'ping', 'readyz', 'success')).to.equal(2);
    expect(total(b, 'shutdown', 'readyz', 'success') - total(a, 'shutdown', 'readyz', 'success')).to.equal(2);
    expect(total(b, 'log', 'livez', 'success') - total(a, 'log', 'livez', 'success')).to.equal(1);
    expect(total(b, 'etcd', 'healthz', 'success') - total(a, 'etcd', 'healthz', 'success')).to.equal(0);
    expect(b.value('kubernetes_healthcheck', { name: 'etcd', type: 'readyz' })).to.equal(1);
    expect(b.value('process_start_time_seconds')).to.be.within(Date.now() / 1000 - 3600, Date.now() / 1000);
  });

  it('an etcd outage: the etcd check counts an error and its gauge drops to 0; the log check still passes', async () => {
    const a = await slis();
    await t.etcd.stop();
    const res = await t.get('/healthz');
    expect(res.status).to.equal(500);
    const b = await slis();
    expect(total(b, 'etcd', 'healthz', 'error') - total(a, 'etcd', 'healthz', 'error')).to.equal(1);
    expect(b.value('kubernetes_healthcheck', { name: 'etcd', type: 'healthz' })).to.equal(0);
    expect(b.value('kubernetes_healthcheck', { name: 'log', type: 'healthz' })).to.equal(1);
    expect(b.value('kubernetes_healthcheck', { name: 'ping', type: 'healthz' })).to.equal(1);
  });
});
