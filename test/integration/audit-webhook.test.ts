/**
 * The audit webhook backend through the real server: --audit-policy-file decides the level,
 * --audit-webhook-config-file (kubeconfig: the test's CA, a bearer token) names an HTTPS
 * service the test serves; events arrive as EventList batches. A failing webhook is retried, one
 * that keeps failing costs counted errors, and one that never answers does not hold requests.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, HookAnswer, ReviewCall, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { parseExposition } from '../helpers/prom-text';
import { startFailureLine, startServerProcess } from '../helpers/server-process';

const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/metrics"]
  - level: Metadata
`;
const TOKEN = 'audit-sink-token-b2';

type Event = Record<string, any>;
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { secretish: 'value-b2' } });

describe('audit webhook backend', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hook: AdmissionWebhookServer;
  let dir: string;
  /** How the sink answers now. */
  let answer: (call: ReviewCall) => HookAnswer = () => ({ raw: '{}' });

  const idOf = (r: { headers: Record<string, unknown> }) => r.headers['audit-id'] as string;
  const batches = () => hook.callsTo('/audit');
  /** The events of every batch received with a 2xx (or not: every batch sent) so far. */
  const received = (calls = batches()): Event[] => calls.flatMap((c) => c.review?.items ?? []);
  const errorTotal = async () => parseExposition((await t.get('/metrics')).text).value('apiserver_audit_error_total', { plugin: 'webhook' });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'audit-webhook-'));
    hook = await startAdmissionWebhookServer();
    hook.handlers.set('/audit', (c) => answer(c));
    const caFile = path.join(dir, 'ca.crt');
    writeFileSync(caFile, hook.caPem);
    const kubeconfig = path.join(dir, 'audit-webhook.kubeconfig');
    writeFileSync(kubeconfig, [
      'apiVersion: v1', 'kind: Config',
      'clusters:', '- name: sink', '  cluster:', `    server: ${hook.url('/audit')}`, `    certificate-authority: ${caFile}`,
      'users:', '- name: apiserver', '  user:', `    token: ${TOKEN}`,
      'contexts:', '- name: default', '  context: {cluster: sink, user: apiserver}',
      'current-context: default', '',
    ].join('\n'));
    const policy = path.join(dir, 'policy.yaml');
    writeFileSync(policy, POLICY);
    t = await startTestServer([
      `--audit-policy-file=${policy}`, `--audit-webhook-config-file=${kubeconfig}`,
      '--audit-webhook-batch-max-wait=1s', '--audit-webhook-initial-backoff=100ms',
    ]);
  });

  after(async () => {
    // The sink first: a call it holds then fails at once instead of holding the server's shutdown.
    await hook?.stop();
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('POSTs the requests\' events as audit.orch.io/v1 EventList batches with the kubeconfig\'s CA and token', async () => {
    const created = await t.post('/api/v1/namespaces/default/configmaps', cm('wh-a'));
    expect(created.status).to.equal(201);
    const got = await t.get('/api/v1/namespaces/default/configmaps/wh-a');
    expect(got.status).to.equal(200);
    const ids = [idOf(created), idOf(got)];
    const events = await eventually(async () => {
      const evs = received().filter((e) => ids.includes(e.auditID));
      return evs.length >= 2 ? evs : undefined;
    });
    const call = batches().find((c) => (c.review?.items ?? []).some((e: Event) => e.auditID === ids[0]))!;
    expect(call.review.kind).to.equal('EventList');
    expect(call.review.apiVersion).to.equal('audit.orch.io/v1');
    expect(call.headers.authorization).to.equal(`Bearer ${TOKEN}`);
    expect(call.headers['content-type']).to.equal('application/json');
    const create = events.find((e) => e.auditID === ids[0])!;
    expect(create).to.include({ level: 'Metadata', stage: 'ResponseComplete', verb: 'create', requestURI: '/api/v1/namespaces/default/configmaps' });
    expect(create.objectRef).to.include({ resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    expect(create.responseStatus.code).to.equal(201);
    expect(events.find((e) => e.auditID === ids[1])).to.include({ verb: 'get', stage: 'ResponseComplete' });
    // The policy's omitStages and Metadata level hold: one stage each, no objects.
    expect(events.map((e) => e.stage)).to.deep.equal(['ResponseComplete', 'ResponseComplete']);
    expect(JSON.stringify(received())).to.not.include('value-b2');
  });

  it('counts events and policy levels (apiserver_audit_event_total, apiserver_audit_level_total)', async () => {
    const read = async () => parseExposition((await t.get('/metrics')).text);
    const before = await read();
    const r = await t.get('/api/v1/namespaces/default/configmaps/wh-a');
    expect(r.status).to.equal(200);
    const after = await read();
    // The get: one Metadata request, one event (RequestReceived omitted); /metrics itself is level None.
    expect(after.value('apiserver_audit_level_total', { level: 'Metadata' }) - before.value('apiserver_audit_level_total', { level: 'Metadata' })).to.equal(1);
    expect(after.value('apiserver_audit_event_total') - before.value('apiserver_audit_event_total')).to.equal(1);
    expect(after.value('apiserver_audit_level_total', { level: 'None' })).to.be.greaterThan(0);
    expect(after.help.get('apiserver_audit_error_total')).to.equal(
      '[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.');
  });

  it('batches: events of requests made together arrive in one EventList', async () => {
    const before = batches().length;
    const rs = await Promise.all([1, 2, 3, 4, 5].map((i) => t.post('/api/v1/namespaces/default/configmaps', cm(`wh-batch-${i}`))));
    const ids = rs.map(idOf);
    const call = await eventually(async () => batches().slice(before)
      .find((c) => ids.every((id) => (c.review?.items ?? []).some((e: Event) => e.auditID === id))));
    expect(call.review.items.length).to.be.at.least(5);
  });

  it('a webhook that fails is retried until it takes the batch; nothing is lost or counted', async () => {
    const errorsBefore = await errorTotal();
    let failures = 0;
    answer = () => (failures++ < 2 ? { status: 500, raw: '{}' } : { raw: '{}' });
    const r = await t.post('/api/v1/namespaces/default/configmaps', cm('wh-retry'));
    expect(r.status).to.equal(201);
    const calls = await eventually(async () => {
      const cs = batches().filter((c) => (c.review?.items ?? []).some((e: Event) => e.auditID === idOf(r)));
      return cs.length >= 3 ? cs : undefined;
    });
    // The same batch sent three times: twice refused, then taken.
    expect(calls.map((c) => c.review.items.map((e: Event) => e.auditID))).to.satisfy((l: string[][]) => l.every((ids) => JSON.stringify(ids) === JSON.stringify(l[0])));
    expect(failures).to.be.at.least(3);
    answer = () => ({ raw: '{}' });
    expect(await errorTotal()).to.equal(errorsBefore);
  });

  it('a webhook that keeps failing: the batch is counted in apiserver_audit_error_total{plugin="webhook"} after the retries', async () => {
    const errorsBefore = await errorTotal();
    answer = () => ({ status: 503, raw: '{}' });
    const r = await t.post('/api/v1/namespaces/default/configmaps', cm('wh-lost'));
    expect(r.status).to.equal(201);
    const attempts = await eventually(async () => {
      const cs = batches().filter((c) => (c.review?.items ?? []).some((e: Event) => e.auditID === idOf(r)));
      return cs.length >= 5 ? cs : undefined;
    });
    const lost = attempts[0].review.items.length;
    await eventually(async () => (await errorTotal()) >= errorsBefore + lost);
    answer = () => ({ raw: '{}' });
    // Five attempts, as kube-apiserver, then no more.
    await new Promise((res) => setTimeout(res, 1500));
    expect(batches().filter((c) => (c.review?.items ?? []).some((e: Event) => e.auditID === idOf(r)))).to.have.length(5);
  });

  it('a webhook that never answers does not hold requests', async () => {
    answer = () => 'hang';
    const first = await t.post('/api/v1/namespaces/default/configmaps', cm('wh-hang-0'));
    expect(first.status).to.equal(201);
    // The sink now holds a batch unanswered (its call lasts up to 30 s) ...
    const held = await eventually(async () => batches().find((c) => (c.review?.items ?? []).some((e: Event) => e.auditID === idOf(first))));
    // ... while requests keep being served, each one, though their events queue behind it.
    for (let i = 1; i <= 10; i++) {
      const r = await t.post('/api/v1/namespaces/default/configmaps', cm(`wh-hang-${i}`));
      expect(r.status).to.equal(201);
      expect((await t.get(`/api/v1/namespaces/default/configmaps/wh-hang-${i}`)).status).to.equal(200);
    }
    // Were requests to wait on the sink, each would take its 30 s call and retries: past this test's time.
    expect(held.review.kind).to.equal('EventList');
    expect((await t.get('/api/v1/namespaces/default/configmaps?limit=500')).body.items.length).to.be.at.least(11);
  });
});

describe('audit webhook flags at start-up', function () {
  this.timeout(60_000);

  it('a missing or broken webhook kubeconfig stops the start with one line naming the flag', async () => {
    expect(await startFailureLine(['--audit-webhook-config-file=/nonexistent/audit.kubeconfig']))
      .to.include('--audit-webhook-config-file /nonexistent/audit.kubeconfig');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'audit-webhook-bad-'));
    try {
      const file = path.join(dir, 'kubeconfig');
      writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\n');
      expect(await startFailureLine([`--audit-webhook-config-file=${file}`])).to.include(`--audit-webhook-config-file ${file}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown mode stops the start with kube-apiserver\'s message', async () => {
    expect(await startFailureLine(['--audit-webhook-config-file=/x', '--audit-webhook-mode=async']))
      .to.include('invalid audit webhook mode async, allowed modes are "batch,blocking,blocking-strict"');
  });
});
