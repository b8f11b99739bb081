/**
 * Admission webhooks as the audit log shows them, through the real server: a mutating webhook
 * served by the test that patches created ConfigMaps and one that does not. Each call leaves
 * `mutation.webhook.admission.orch.io/round_0_index_<i>` in the ResponseComplete event from level
 * Metadata up; the patch itself (`patch.webhook...`) only from level Request up, as Kubernetes'
 * AddAnnotationWithLevel. A validating webhook's denial is the event's responseStatus.
 */
import { expect } from 'chai';
import { readAuditEvents } from '../helpers/audit-log';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestServer, WITHOUT_NAMESPACE_DEFAULTS, eventually, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, allow, deny, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';

const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
rules:
  - level: Metadata
    namespaces: ["hooks-meta"]
    resources: [{group: "", resources: ["configmaps"]}]
  - level: Request
    namespaces: ["hooks-req"]
    resources: [{group: "", resources: ["configmaps"]}]
  - level: RequestResponse
    namespaces: ["hooks-rr"]
    resources: [{group: "", resources: ["configmaps"]}]
  - level: None
`;

const MUTATION = 'mutation.webhook.admission.orch.io/';
const PATCH = 'patch.webhook.admission.orch.io/';
type Event = Record<string, any>;

describe('audit annotations of admission webhooks', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  let dir: string;
  let logFile: string;

  const readEvents = (): Event[] => readAuditEvents(logFile);
  /** The ResponseComplete event of the request that answered `r`. */
  const completed = (r: { headers: Record<string, unknown> }) => eventually(async () =>
    readEvents().find((e) => e.auditID === r.headers['audit-id'] && e.stage === 'ResponseComplete'));
  const cm = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data: { a: '1' } });

  // The patch as a webhook may well send it, keys in any order; Kubernetes logs each operation
  // with its keys sorted (jsonpatch.Operation is a Go map).
  const sentPatch = [{ value: 'yes', path: '/data/patched', op: 'add' }];
  const loggedPatch = [{ op: 'add', path: '/data/patched', value: 'yes' }];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'audit-hooks-'));
    logFile = path.join(dir, 'audit.log');
    writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
    // No controller creates ConfigMaps in new namespaces: the webhooks see only the test's.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, `--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${logFile}`]);
    hooks = await startAdmissionWebhookServer();
    configs = new WebhookConfigs(t);
    for (const ns of ['hooks-meta', 'hooks-req', 'hooks-rr']) {
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).to.equal(201);
    }
    hooks.handlers.set('/patcher', (c) => allow(c, {}, sentPatch));
    hooks.handlers.set('/deny', (c) => deny(c, { code: 403, reason: 'Forbidden', message: 'no configmaps labelled deny' }));
    await configs.create('mutating', 'audit-hooks', [hookEntry(hooks, '/patcher'), hookEntry(hooks, '/quiet')]);
    await configs.create('validating', 'audit-deny', [hookEntry(hooks, '/deny', { objectSelector: { matchLabels: { deny: 'yes' } } })]);
  });
  after(async () => {
    await hooks?.stop();
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const mutationValue = (webhook: string, mutated: boolean) => JSON.stringify({ configuration: 'audit-hooks', webhook, mutated });
  const patchValue = JSON.stringify({ configuration: 'audit-hooks', webhook: 'patcher.hooks.test.io', patch: loggedPatch, patchType: 'JSONPatch' });

  it('Metadata: one mutation annotation per webhook called, no patch annotation', async () => {
    const r = await t.post('/api/v1/namespaces/hooks-meta/configmaps', cm('m1'));
    expect(r.status, r.text).to.equal(201);
    expect(r.body.data).to.deep.equal({ a: '1', patched: 'yes' });
    const ev = await completed(r);
    expect(ev.level).to.equal('Metadata');
    expect(ev.annotations[`${MUTATION}round_0_index_0`]).to.equal(mutationValue('patcher.hooks.test.io', true));
    expect(ev.annotations[`${MUTATION}round_0_index_1`]).to.equal(mutationValue('quiet.hooks.test.io', false));
    expect(Object.keys(ev.annotations).filter((k) => k.startsWith(PATCH))).to.deep.equal([]);
    expect(JSON.stringify(ev)).to.not.contain('/data/patched');
  });

  for (const level of ['Request', 'RequestResponse']) {
    it(`${level}: the mutation annotations and the patch of the webhook that patched`, async () => {
      const ns = level === 'Request' ? 'hooks-req' : 'hooks-rr';
      const r = await t.post(`/api/v1/namespaces/${ns}/configmaps`, cm('c1'));
      expect(r.status, r.text).to.equal(201);
      const ev = await completed(r);
      expect(ev.level).to.equal(level);
      expect(ev.annotations[`${MUTATION}round_0_index_0`]).to.equal(mutationValue('patcher.hooks.test.io', true));
      expect(ev.annotations[`${MUTATION}round_0_index_1`]).to.equal(mutationValue('quiet.hooks.test.io', false));
      expect(ev.annotations[`${PATCH}round_0_index_0`]).to.equal(patchValue);
      // A webhook that answered without a patch has no patch annotation.
      expect(ev.annotations).to.not.have.property(`${PATCH}round_0_index_1`);
      // The request object is what the client sent, before the webhook's patch.
      expect(ev.requestObject.data).to.deep.equal({ a: '1' });
      if (level === 'RequestResponse') expect(ev.responseObject.data).to.deep.equal({ a: '1', patched: 'yes' });
      else expect(ev).to.not.have.property('responseObject');
    });
  }

  it('a validating webhook\'s denial is the event\'s responseStatus', async () => {
    const r = await t.post('/api/v1/namespaces/hooks-meta/configmaps', cm('denied', { deny: 'yes' }));
    expect(r.status).to.equal(403);
    const ev = await completed(r);
    expect(ev.responseStatus).to.deep.equal({
      metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'admission webhook "deny.hooks.test.io" denied the request: no configmaps labelled deny',
    });
    // The mutating webhooks ran before the denial and are recorded as well.
    expect(ev.annotations[`${MUTATION}round_0_index_0`]).to.equal(mutationValue('patcher.hooks.test.io', true));
  });
});
