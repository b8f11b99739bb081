/**
 * Storage, watch and admission metrics on /metrics after known traffic: etcd requests per
 * operation and resource, stored objects per resource (from the watch cache, and counted in
 * etcd without it), watch events and open watchers per kind, and admission steps, plugins and
 * webhook calls with the spec's rejection counts (a code above 600 counted as 600).
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { Exposition, parseExposition } from '../helpers/prom-text';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { AdmissionWebhookServer, WebhookConfigs, deny, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';

const NS = 'metrics-storage';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const cm = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data: { a: '1' } });

async function scrape(t: TestServer): Promise<Exposition> {
  const res = await t.get('/metrics');
  expect(res.status, res.text).to.equal(200);
  return parseExposition(res.text);
}

async function configMapCount(t: TestServer): Promise<number> {
  const res = await t.get('/api/v1/configmaps');
  expect(res.status).to.equal(200);
  return res.body.items.length;
}

describe('/metrics: storage, watch and admission', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  const delta = (a: Exposition, b: Exposition, name: string, labels: Record<string, string>) => b.value(name, labels) - a.value(name, labels);

  before(async () => {
    // No per-namespace defaults: the only configmap writes are the test's.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    hooks = await startAdmissionWebhookServer();
    configs = new WebhookConfigs(t);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => {
    await configs?.clear();
    await hooks?.stop();
    await t?.stop();
  });

  it('counts etcd requests per operation and resource, and the stored objects per resource', async () => {
    const before = await scrape(t);
    for (const name of ['e1', 'e2', 'e3']) expect((await t.post(CM, cm(name))).status).to.equal(201);
    expect((await t.get(`${CM}/e1`)).status).to.equal(200);
    expect((await t.del(`${CM}/e2`)).status).to.equal(200);
    const after = await scrape(t);
    const cms = { type: 'configmaps' };
    expect(delta(before, after, 'etcd_requests_total', { ...cms, operation: 'create' })).to.equal(3);
    expect(delta(before, after, 'etcd_request_duration_seconds_count', { ...cms, operation: 'create' })).to.equal(3);
    expect(delta(before, after, 'etcd_requests_total', { ...cms, operation: 'delete' })).to.equal(1);
    expect(delta(before, after, 'etcd_request_errors_total', cms)).to.equal(0);
    expect(after.help.get('etcd_request_duration_seconds')).to.equal('[ALPHA] Etcd request latency in seconds for each operation and object type.');
    // A duration lands in Kubernetes' buckets: 5 ms first, 60 s last.
    expect(after.has('etcd_request_duration_seconds_bucket', { ...cms, operation: 'create', le: '0.005' })).to.equal(true);
    expect(after.has('etcd_request_duration_seconds_bucket', { ...cms, operation: 'create', le: '60' })).to.equal(true);
    // A grouped resource is named resource.group, as Kubernetes' GroupResource.
    const rbac = t.server.naming.group('rbac.authorization');
    expect(after.value('etcd_requests_total', { type: `clusterroles.${rbac}`, operation: 'list' })).to.be.greaterThan(0);

    const stored = await configMapCount(t);
    await eventually(async () => (await scrape(t)).value('apiserver_storage_objects', { resource: 'configmaps' }) === stored);
    const last = await scrape(t);
    expect(last.help.get('apiserver_storage_objects')).to.match(/^\[STABLE\] Number of stored objects at the time of last check split by kind/);
    expect(last.value('apiserver_storage_objects', { resource: `clusterroles.${rbac}` })).to.equal((await t.get(`/apis/${rbac}/v1/clusterroles`)).body.items.length);
  });

  it('counts the events sent to a watch per kind, and the watch as registered while it is open', async () => {
    const list = await t.get(CM);
    const w = openWatch(adminTarget(t.server), `${CM}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    try {
      await w.response();
      const kind = { group: '', version: 'v1', kind: 'ConfigMap' };
      await eventually(async () => (await scrape(t)).value('apiserver_registered_watchers', kind) === 1);
      const before = await scrape(t);
      for (const name of ['w1', 'w2', 'w3']) expect((await t.post(CM, cm(name))).status).to.equal(201);
      expect((await t.put(`${CM}/w1`, { ...cm('w1'), data: { a: '2' } })).status).to.equal(200);
      await w.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'w1');
      expect(w.events.map((e) => e.type)).to.deep.equal(['ADDED', 'ADDED', 'ADDED', 'MODIFIED']);
      const after = await scrape(t);
      expect(delta(before, after, 'apiserver_watch_events_total', kind)).to.equal(4);
      expect(delta(before, after, 'apiserver_watch_events_sizes_count', kind)).to.equal(4);
      expect(delta(before, after, 'apiserver_watch_events_sizes_sum', kind)).to.be.greaterThan(4 * 100);
      expect(after.value('apiserver_registered_watchers', kind)).to.equal(1);
    } finally {
      w.close();
    }
    await eventually(async () => (await scrape(t)).value('apiserver_registered_watchers', { group: '', version: 'v1', kind: 'ConfigMap' }) === 0);
  });

  it('times the admission steps, plugins and webhook calls, and counts rejections with the spec\'s labels', async () => {
    hooks.handlers.set('/deny', (c) => deny(c, { code: 403, message: 'no' }));
    hooks.handlers.set('/deny-big', (c) => deny(c, { code: 799, message: 'odd' }));
    await configs.create('validating', 'denying', [
      hookEntry(hooks, '/deny', { objectSelector: { matchLabels: { deny: 'yes' } } }),
      hookEntry(hooks, '/deny-big', { objectSelector: { matchLabels: { big: 'yes' } } }),
    ]);
    const before = await scrape(t);
    expect((await t.post(CM, cm('a1'))).status).to.equal(201);
    expect((await t.post(CM, cm('a2', { deny: 'yes' }))).status).to.equal(403);
    expect((await t.post(CM, cm('a3', { big: 'yes' }))).status).to.equal(799);
    const after = await scrape(t);
    const d = (name: string, labels: Record<string, string>) => delta(before, after, name, labels);

    const rejections = 'apiserver_admission_webhook_rejection_count';
    expect(d(rejections, { name: 'deny.hooks.test.io', type: 'validating', operation: 'CREATE', error_type: 'no_error', rejection_code: '403' })).to.equal(1);
    expect(d(rejections, { name: 'deny-big.hooks.test.io', type: 'validating', operation: 'CREATE', error_type: 'no_error', rejection_code: '600' })).to.equal(1);
    expect(after.has(rejections, { rejection_code: '799' })).to.equal(false);
    expect(d('apiserver_admission_webhook_request_total', { name: 'deny.hooks.test.io', type: 'validating', operation: 'CREATE', code: '403', rejected: 'true' })).to.equal(1);
    expect(d('apiserver_admission_webhook_request_total', { name: 'deny-big.hooks.test.io', code: '600', rejected: 'true' })).to.equal(1);
    expect(d('apiserver_admission_webhook_admission_duration_seconds_count', { name: 'deny.hooks.test.io', type: 'validating', operation: 'CREATE', rejected: 'true' })).to.equal(1);

    const step = 'apiserver_admission_step_admission_duration_seconds_count';
    expect(d(step, { type: 'validate', operation: 'CREATE', rejected: 'true' })).to.equal(2);
    expect(d(step, { type: 'validate', operation: 'CREATE', rejected: 'false' })).to.be.at.least(1);
    expect(d(step, { type: 'admit', operation: 'CREATE', rejected: 'false' })).to.be.at.least(3);
    const plugin = 'apiserver_admission_controller_admission_duration_seconds_count';
    expect(d(plugin, { name: 'ValidatingAdmissionWebhook', type: 'validate', operation: 'CREATE', rejected: 'true' })).to.equal(2);
    expect(d(plugin, { name: 'NamespaceLifecycle', type: 'admit', operation: 'CREATE', rejected: 'false' })).to.be.at.least(3);
    expect(after.help.get('apiserver_admission_step_admission_duration_seconds')).to.match(/^\[STABLE\] Admission sub-step latency histogram/);
    expect(after.help.get(rejections)).to.match(/^\[ALPHA\] Admission webhook rejection count/);
    // Kubernetes' step buckets end at 2.5 s; a webhook's at 25 s.
    expect(after.has('apiserver_admission_step_admission_duration_seconds_bucket', { le: '2.5' })).to.equal(true);
    expect(after.has('apiserver_admission_webhook_admission_duration_seconds_bucket', { le: '25' })).to.equal(true);
    // The reader the existing suites use sees the same counter.
    const samples = await t.server.admissionMetrics.webhookRejections();
    expect(samples.find((s) => s.labels.name === 'deny-big.hooks.test.io')).to.deep.include({ value: 1 });
  });
});

describe('/metrics: stored objects without the watch cache', function () {
  this.timeout(120_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(['--watch-cache=false', '--etcd-count-metric-poll-period=500ms', WITHOUT_NAMESPACE_DEFAULTS]); });
  after(async () => { await t?.stop(); });

  it('counts each resource in etcd every --etcd-count-metric-poll-period, as listWithCount requests', async () => {
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    for (const name of ['p1', 'p2']) expect((await t.post(CM, cm(name))).status).to.equal(201);
    const stored = await configMapCount(t);
    expect(stored).to.be.at.least(2);
    const m = await eventually(async () => {
      const e = await scrape(t);
      return e.value('apiserver_storage_objects', { resource: 'configmaps' }) === stored ? e : undefined;
    });
    expect(m.value('etcd_requests_total', { operation: 'listWithCount', type: 'configmaps' })).to.be.greaterThan(0);
  });
});
