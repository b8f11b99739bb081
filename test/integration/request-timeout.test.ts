/**
 * `--request-timeout=1s` over HTTPS on a real etcd: a create held 3 s by a validating webhook is
 * answered 504 `Timeout: request did not complete within the allotted timeout` with Retry-After
 * after about 1 s (the write itself still lands, as in Kubernetes); a body trickled in slower
 * than the timeout ends the same way (its body read is aborted, the handler ends); the client's `timeout` parameter cannot extend the limit
 * and must be a duration; a watch is long-running and outlives the timeout.
 */
import https from 'node:https';
import { expect } from 'chai';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, allow, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { WatchClient, adminTarget } from '../helpers/watch-client';
import { parseExposition } from '../helpers/prom-text';

const NS = 'timeouts';
const MESSAGE = 'Timeout: request did not complete within the allotted timeout';

describe('Request timeout: --request-timeout', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let n = 0;
  const cm = (slow: boolean) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}`, ...(slow ? { labels: { slow: 'true' } } : {}) }, data: { a: '1' },
  });

  before(async () => {
    t = await startTestServer(['--request-timeout=1s']);
    hooks = await startAdmissionWebhookServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    hooks.handlers.set('/slow', (call) => ({ ...allow(call), delayMs: 3_000 }));
    await new WebhookConfigs(t).create('validating', 'slow-creates', [hookEntry(hooks, '/slow', {
      timeoutSeconds: 10, objectSelector: { matchLabels: { slow: 'true' } },
    })]);
  });
  after(async () => {
    await hooks?.stop();
    await t?.stop();
  });

  it('answers a slow create 504 Timeout with Retry-After at the limit; the late write still lands', async () => {
    const body = cm(true);
    const started = Date.now();
    const res = await t.post(`/api/v1/namespaces/${NS}/configmaps`, body);
    const elapsed = Date.now() - started;
    expect(res.status, res.text).to.equal(504);
    expect(res.headers['retry-after']).to.equal('1');
    expect(res.body).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504, message: MESSAGE });
    // About the limit: not before it, and well before the webhook's 3 s.
    expect(elapsed).to.be.within(950, 2_900);
    console.log(`      504 after ${elapsed} ms (limit 1000 ms, webhook 3000 ms)`);
    await eventually(async () => (await t.get(`/api/v1/namespaces/${NS}/configmaps/${body.metadata.name}`)).status === 200, 10_000);
    // Requests that finish in time are untouched.
    expect((await t.post(`/api/v1/namespaces/${NS}/configmaps`, cm(false))).status).to.equal(201);
  });

  it('takes a shorter client timeout parameter, never a longer one, and refuses one that is not a duration', async () => {
    const started = Date.now();
    const longer = await t.post(`/api/v1/namespaces/${NS}/configmaps?timeout=30s`, cm(true));
    expect(longer.status).to.equal(504);
    expect(Date.now() - started).to.be.below(2_900);
    const bad = await t.post(`/api/v1/namespaces/${NS}/configmaps?timeout=soon`, cm(false));
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body.message).to.equal('invalid timeout specified in the request URL: time: invalid duration "soon"');
    const shorter = await t.post(`/api/v1/namespaces/${NS}/configmaps?timeout=200ms`, cm(true));
    expect(shorter.status).to.equal(504);
    expect(shorter.body.message).to.equal(MESSAGE);
  });

  it('does not cut a watch that lasts longer than the limit', async () => {
    const watch = new WatchClient(adminTarget(t.server), `/api/v1/namespaces/${NS}/configmaps?watch=1&timeoutSeconds=3&resourceVersion=0`);
    await watch.response();
    expect(watch.statusCode).to.equal(200);
    await new Promise((r) => setTimeout(r, 1_500));
    const late = cm(false);
    expect((await t.post(`/api/v1/namespaces/${NS}/configmaps`, late)).status).to.equal(201);
    await watch.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === late.metadata.name);
    await watch.waitEnded(10_000);
    expect(Date.now() - watch.openedAt).to.be.at.least(2_900);
    expect(watch.events.some((e) => e.type === 'ERROR')).to.equal(false);
    expect(watch.junk).to.deep.equal([]);
  });

  it('counts the timeouts in apiserver_request_terminations_total', async () => {
    const metrics = parseExposition((await t.get('/metrics', { headers: { accept: 'text/plain' } })).text);
    expect(metrics.value('apiserver_request_terminations_total', { verb: 'POST', resource: 'configmaps', code: '504' })).to.be.at.least(3);
    expect(metrics.value('apiserver_request_total', { verb: 'POST', resource: 'configmaps', code: '504' })).to.be.at.least(3);
  });
});

describe('Request timeout: a body trickled in slower than the limit', function () {
  this.timeout(60_000);
  let t: TestServer;
  // One mutating seat, for everyone: a handler still reading the body would keep it.
  before(async () => { t = await startTestServer(['--request-timeout=1s', '--max-mutating-requests-inflight=1', '--max-inflight-exempt-masters=false']); });
  after(async () => { await t?.stop(); });

  it('answers 504 and stops reading it, so the handler ends and frees its seat while the client still holds the connection', async () => {
    const { url, caPem, certPem, keyPem } = adminTarget(t.server);
    const started = Date.now();
    let req!: ReturnType<typeof https.request>;
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      req = https.request(`${url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST', ca: caPem, cert: certPem, key: keyPem, agent: false,
        headers: { 'content-type': 'application/json', 'content-length': '200' },
      }, (r) => {
        let text = '';
        r.on('data', (c) => { text += c; });
        r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write('{"apiVersion":"v1",');
    });
    try {
      expect(res.status, res.text).to.equal(504);
      expect(JSON.parse(res.text).message).to.equal(MESSAGE);
      expect(Date.now() - started).to.be.below(10_000);
      // The trickling request no longer holds the only mutating seat.
      const next = await t.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-trickle' } });
      expect(next.status, next.text).to.equal(201);
    } finally {
      req.destroy();
    }
  });
});
