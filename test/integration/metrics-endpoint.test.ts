import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { Exposition, parseExposition } from '../helpers/prom-text';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { startServerProcess } from '../helpers/server-process';

const NS = 'metrics-ns';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
/** The labels every request series of a namespaced core v1 configmaps request carries. */
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver', dry_run: '' };

describe('/metrics', function () {
  this.timeout(90_000);
  let t: TestServer;

  const scrape = async (): Promise<Exposition> => {
    const res = await t.get('/metrics');
    expect(res.status, res.text).to.equal(200);
    return parseExposition(res.text);
  };
  const delta = (a: Exposition, b: Exposition, name: string, labels: Record<string, string>) => b.value(name, labels) - a.value(name, labels);

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('is refused to a plain user and served to system:monitoring and the admin, in the Prometheus text format', async () => {
    const plain = await t.get('/metrics', { identity: t.identity('jane') });
    expect(plain.status).to.equal(403);
    expect(plain.body.message).to.equal('forbidden: User "jane" cannot get path "/metrics"');
    const monitor = await t.get('/metrics', { identity: t.identity('prometheus', ['system:monitoring']) });
    expect(monitor.status).to.equal(200);
    expect(monitor.headers['content-type']).to.equal('text/plain; version=0.0.4; charset=utf-8');
    expect(parseExposition(monitor.text).has('apiserver_request_total')).to.equal(true);
    const admin = await t.get('/metrics');
    expect(admin.status).to.equal(200);
  });

  it('counts requests per verb, resource, scope and code, and their durations and sizes', async () => {
    const a = await scrape();
    for (const name of ['m1', 'm2', 'm3']) {
      expect((await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } })).status).to.equal(201);
    }
    expect((await t.get(`${CM}/m1`)).status).to.equal(200);
    expect((await t.get(`${CM}/m2`)).status).to.equal(200);
    expect((await t.get(`${CM}/missing`)).status).to.equal(404);
    expect((await t.get(CM)).status).to.equal(200);
    const jane = t.identity('jane');
    expect((await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j' } }, { identity: jane })).status).to.equal(403);
    expect((await t.get(`${CM}?dryRun=All`, {})).status).to.equal(200);
    // A made-up resource: counted, but its name never becomes a label.
    expect((await t.get(`/api/v1/namespaces/${NS}/madeupthings`)).status).to.equal(404);
    const b = await scrape();

    const total = (labels: Record<string, string>) => delta(a, b, 'apiserver_request_total', { ...CONFIGMAPS, ...labels });
    expect(total({ verb: 'POST', scope: 'resource', code: '201' })).to.equal(3);
    expect(total({ verb: 'POST', scope: 'resource', code: '403' })).to.equal(1);
    expect(total({ verb: 'GET', scope: 'resource', code: '200' })).to.equal(2);
    expect(total({ verb: 'GET', scope: 'resource', code: '404' })).to.equal(1);
    expect(total({ verb: 'LIST', scope: 'namespace', code: '200' })).to.equal(1);
    expect(delta(a, b, 'apiserver_request_total', { ...CONFIGMAPS, dry_run: 'All', verb: 'LIST', code: '200' })).to.equal(1);
    expect(delta(a, b, 'apiserver_request_total', { verb: 'LIST', resource: '', scope: 'namespace', code: '404' })).to.equal(1);
    expect(b.samples.some((s) => Object.values(s.labels).includes('madeupthings'))).to.equal(false);
    // The scrape itself: a non-resource GET.
    expect(delta(a, b, 'apiserver_request_total', { verb: 'GET', resource: '', scope: '', code: '200' })).to.equal(1);

    const durations = (labels: Record<string, string>) => delta(a, b, 'apiserver_request_duration_seconds_count', { ...CONFIGMAPS, ...labels });
    expect(durations({ verb: 'POST', scope: 'resource' })).to.equal(4);
    expect(durations({ verb: 'GET', scope: 'resource' })).to.equal(3);
    expect(delta(a, b, 'apiserver_request_duration_seconds_sum', { ...CONFIGMAPS, verb: 'POST' })).to.be.greaterThan(0);
    expect(b.value('apiserver_request_duration_seconds_bucket', { ...CONFIGMAPS, verb: 'POST', scope: 'resource', le: '+Inf' }))
      .to.equal(b.value('apiserver_request_duration_seconds_count', { ...CONFIGMAPS, verb: 'POST', scope: 'resource' }));
    // Sizes of GET and LIST answers only.
    expect(delta(a, b, 'apiserver_response_sizes_count', { group: '', version: 'v1', resource: 'configmaps', verb: 'GET', scope: 'resource' })).to.equal(3);
    expect(b.has('apiserver_response_sizes_count', { resource: 'configmaps', verb: 'POST' })).to.equal(false);
  });

  it('counts authentication and authorization results, never naming users', async () => {
    const a = await scrape();
    const bad = await t.get(CM, { identity: null, headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).to.equal(401);
    expect((await t.get(CM, { identity: t.identity('jane@example.com') })).status).to.equal(403);
    expect((await t.get('/metrics', { identity: t.identity('prometheus', ['system:monitoring']) })).status).to.equal(200);
    const b = await scrape();

    expect(delta(a, b, 'authentication_attempts', { result: 'error' })).to.equal(1);
    expect(delta(a, b, 'authentication_attempts', { result: 'success' })).to.equal(3);
    expect(delta(a, b, 'authentication_duration_seconds_count', { result: 'error' })).to.equal(1);
    expect(delta(a, b, 'authenticated_user_requests', { username: 'email_id' })).to.equal(1);
    expect(b.samples.filter((s) => s.name === 'authenticated_user_requests').map((s) => s.labels.username))
      .to.satisfy((names: string[]) => names.every((n) => ['admin', 'client', 'kube_proxy', 'kubelet', 'email_id', 'other', 'system:serviceaccount:kube-system:default'].includes(n)));
    expect(delta(a, b, 'apiserver_request_total', { ...CONFIGMAPS, verb: 'LIST', code: '401' })).to.equal(1);
    // jane matches no RBAC rule: the chain has no opinion, which refuses.
    expect(delta(a, b, 'authorization_attempts_total', { result: 'no-opinion' })).to.equal(1);
    expect(delta(a, b, 'authorization_attempts_total', { result: 'allowed' })).to.equal(2);
    expect(delta(a, b, 'authorization_duration_seconds_count', { result: 'allowed' })).to.equal(2);
    // The monitoring user was allowed by RBAC (the admin by its privileged group, which is no mode).
    expect(delta(a, b, 'apiserver_authorization_decisions_total', { type: 'RBAC', name: 'rbac', decision: 'allowed' })).to.equal(1);
  });

  it('shows a watch as long-running while it is open and counts it when it ends, outside the duration histogram', async () => {
    const a = await scrape();
    const w = openWatch(adminTarget(t.server), `${CM}?watch=true`);
    await w.response();
    const open = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    await eventually(async () => (await scrape()).value('apiserver_longrunning_requests', open) === 1);
    const during = await scrape();
    // The scrape itself is in flight.
    expect(during.value('apiserver_current_inflight_requests', { request_kind: 'readOnly' })).to.be.at.least(1);
    expect(during.has('apiserver_current_inflight_requests', { request_kind: 'mutating' })).to.equal(true);
    expect(delta(a, during, 'apiserver_request_total', { ...CONFIGMAPS, verb: 'WATCH' })).to.equal(0);
    w.close();
    await eventually(async () => (await scrape()).value('apiserver_longrunning_requests', open) === 0);
    const b = await scrape();
    expect(delta(a, b, 'apiserver_request_total', { ...CONFIGMAPS, verb: 'WATCH', scope: 'namespace', code: '200' })).to.equal(1);
    expect(b.has('apiserver_request_duration_seconds_count', { verb: 'WATCH' })).to.equal(false);
  });

  it('exposes process and Node.js runtime metrics and stability levels in HELP', async () => {
    const m = await scrape();
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds',
      'process_open_fds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(m.has(name), name).to.equal(true);
    }
    expect(m.value('process_start_time_seconds')).to.be.within(Date.now() / 1000 - 3600, Date.now() / 1000);
    expect(m.help.get('apiserver_request_total')).to.match(/^\[STABLE\] Counter of apiserver requests/);
    expect(m.help.get('apiserver_request_duration_seconds')).to.match(/^\[STABLE\] /);
    expect(m.help.get('apiserver_longrunning_requests')).to.match(/^\[STABLE\] /);
    expect(m.help.get('authentication_attempts')).to.equal('[ALPHA] Counter of authenticated attempts.');
    expect(m.types.get('apiserver_request_duration_seconds')).to.equal('histogram');
  });
});

describe('--show-hidden-metrics-for-version', function () {
  this.timeout(90_000);

  it('starts with the previous minor release and serves /metrics', async () => {
    const t = await startTestServer(['--show-hidden-metrics-for-version=1.31']);
    try {
      const res = await t.get('/metrics');
      expect(res.status).to.equal(200);
      // The first request: its own series comes after its answer, the metric's HELP is there already.
      expect(parseExposition(res.text).help.get('apiserver_request_total')).to.match(/^\[STABLE\] /);
    } finally {
      await t.stop();
    }
  });

  it('stops the start with one line on any other value', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-metrics-flag-'));
    try {
      const err = await startServerProcess([`--data-dir=${dataDir}`, '--etcd-servers=http://127.0.0.1:1', '--secure-port=0',
        '--show-hidden-metrics-for-version=1.30']).then(() => undefined, (e: Error) => e);
      expect(err?.message).to.match(/server exited during start-up \(2\)/);
      expect(err?.message).to.contain("--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed");
      expect(err!.message.trim().split('\n')).to.have.length(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
