/**
 * The in-flight limits over HTTPS on a real etcd (`--max-requests-inflight=4
 * --max-mutating-requests-inflight=2`, with `--enable-priority-and-fairness=false`: the limits
 * priority and fairness falls back to; flow-control.test.ts covers it switched on): a client-certificate user outside system:masters with
 * every RBAC right fills the mutating seats with creates that a validating webhook holds for a
 * few seconds. The next create is refused 429 TooManyRequests with Retry-After and stores
 * nothing; reads, a watch and /healthz are still served; system:masters is served past the
 * limit (kube-apiserver's default); once the held creates finish, creates succeed again.
 * The refusals are counted in apiserver_request_total and apiserver_request_terminations_total.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, allow, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { WatchClient } from '../helpers/watch-client';
import { parseExposition } from '../helpers/prom-text';

const NS = 'overload';
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const HOLD_MS = 4_000;

describe('Overload: --max-requests-inflight and --max-mutating-requests-inflight', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  let loader: { certPem: string; keyPem: string };
  let n = 0;
  const cm = (slow: boolean) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}`, ...(slow ? { labels: { slow: 'true' } } : {}) }, data: { a: '1' },
  });
  const create = (body: ReturnType<typeof cm>, identity?: { certPem: string; keyPem: string }) =>
    t.post(`/api/v1/namespaces/${NS}/configmaps`, body, identity ? { identity } : {});

  before(async () => {
    t = await startTestServer(['--max-requests-inflight=4', '--max-mutating-requests-inflight=2', '--enable-priority-and-fairness=false']);
    hooks = await startAdmissionWebhookServer();
    configs = new WebhookConfigs(t);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    loader = t.identity('loader', ['load-testers']);
    const binding = await t.post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'loader-admin' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: 'loader' }],
    });
    expect(binding.status, binding.text).to.equal(201);
    // Creates of ConfigMaps labelled slow=true are held HOLD_MS by the webhook.
    hooks.handlers.set('/slow', (call) => ({ ...allow(call), delayMs: HOLD_MS }));
    await configs.create('validating', 'slow-creates', [hookEntry(hooks, '/slow', {
      timeoutSeconds: 15, objectSelector: { matchLabels: { slow: 'true' } },
    })]);
    // The RBAC index catches up with the binding.
    for (let i = 0; i < 100; i++) {
      if ((await t.get(`/api/v1/namespaces/${NS}/configmaps`, { identity: loader })).status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await hooks?.stop();
    await t?.stop();
  });

  it('answers 429 past the mutating limit, still serves reads, watches and health, and recovers', async () => {
    const held = [create(cm(true), loader), create(cm(true), loader)];
    // Both hold their seat until the webhook answers (it has them once it was called).
    const deadline = Date.now() + 10_000;
    while (hooks.callsTo('/slow').length < 2) {
      if (Date.now() > deadline) throw new Error('the held creates did not reach the webhook');
      await new Promise((r) => setTimeout(r, 20));
    }

    const refused = cm(false);
    const res = await create(refused, loader);
    expect(res.status, res.text).to.equal(429);
    expect(res.headers['retry-after']).to.equal('1');
    expect(res.body).to.deep.include({
      kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429,
      message: 'Too many requests, please try again later.',
    });
    expect(res.body.details).to.deep.equal({ retryAfterSeconds: 1 });
    // Other mutating verbs share the seats.
    expect((await t.del(`/api/v1/namespaces/${NS}/configmaps/nothing`, undefined, { identity: loader })).status).to.equal(429);

    // Read-only requests have seats of their own; a watch and /healthz take none.
    const list = await t.get(`/api/v1/namespaces/${NS}/configmaps`, { identity: loader });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.items.map((i: any) => i.metadata.name)).not.to.include(refused.metadata.name);
    const watch = new WatchClient({ url: t.server.url, caPem: t.server.pki.caCertPem, ...loader },
      `/api/v1/namespaces/${NS}/configmaps?watch=1&timeoutSeconds=30`);
    await watch.response();
    expect(watch.statusCode).to.equal(200);
    expect((await t.get('/healthz', { identity: loader })).status).to.equal(200);
    expect((await t.get('/readyz', { identity: null })).status).to.equal(200);

    // system:masters is served past the limit, as by kube-apiserver.
    const admin = await create(cm(false));
    expect(admin.status, admin.text).to.equal(201);
    await watch.waitFor((e) => e.object?.metadata?.name === admin.body.metadata.name);

    const finished: HttpResponse[] = await Promise.all(held);
    expect(finished.map((r) => r.status)).to.deep.equal([201, 201]);
    // Seats are free again.
    const after = await create(cm(false), loader);
    expect(after.status, after.text).to.equal(201);
    // The refused object was never stored.
    expect((await t.get(`/api/v1/namespaces/${NS}/configmaps/${refused.metadata.name}`)).status).to.equal(404);
    watch.close();

    const metrics = parseExposition((await t.get('/metrics', { headers: { accept: 'text/plain' } })).text);
    expect(metrics.value('apiserver_request_total', { verb: 'POST', resource: 'configmaps', code: '429' })).to.equal(1);
    expect(metrics.value('apiserver_request_terminations_total', { verb: 'POST', resource: 'configmaps', code: '429' })).to.equal(1);
    expect(metrics.value('apiserver_request_terminations_total', { verb: 'DELETE', code: '429' })).to.equal(1);
  });

  it('does not count long-running requests: more open watches than seats leave reads served', async () => {
    const watches = Array.from({ length: 6 }, () => new WatchClient({ url: t.server.url, caPem: t.server.pki.caCertPem, ...loader },
      `/api/v1/namespaces/${NS}/configmaps?watch=1&timeoutSeconds=30`));
    try {
      for (const w of watches) expect((await w.response()).statusCode).to.equal(200);
      const reads = await Promise.all(Array.from({ length: 4 }, () => t.get(`/api/v1/namespaces/${NS}/configmaps`, { identity: loader })));
      expect(reads.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
    } finally {
      for (const w of watches) w.close();
    }
  });
});
