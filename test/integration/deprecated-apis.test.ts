/**
 * Deprecated API versions through the real server: every request to admissionregistration
 * v1beta1 webhook configurations (get, list, watch, create, an error) answers Kubernetes'
 * `Warning`, sets apiserver_requested_deprecated_apis and records the `orch.io/deprecated` and
 * `orch.io/removed-release` audit annotations; v1 answers none. And the shared warning limits:
 * a webhook's many long warnings plus field validation's stay within kube-apiserver's budget.
 */
import { expect } from 'chai';
import { readAuditEvents } from '../helpers/audit-log';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestServer, WITHOUT_NAMESPACE_DEFAULTS, eventually, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, allow, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { warningTexts } from '../helpers/warning-headers';
import { parseExposition } from '../helpers/prom-text';

const GROUP = 'admissionregistration.orch.io';
const warningFor = (kind: string) =>
  `${GROUP}/v1beta1 ${kind} is deprecated in v1.16+, unavailable in v1.22+; use ${GROUP}/v1 ${kind}`;
const MUTATING = warningFor('MutatingWebhookConfiguration');
const VALIDATING = warningFor('ValidatingWebhookConfiguration');

describe('deprecated API versions', function () {
  this.timeout(120_000);
  let t: TestServer;
  let dir: string;
  let logFile: string;
  const beta = (kind: string, name = '') => `/apis/${GROUP}/v1beta1/${kind}webhookconfigurations${name ? `/${name}` : ''}`;
  const v1 = (kind: string, name = '') => `/apis/${GROUP}/v1/${kind}webhookconfigurations${name ? `/${name}` : ''}`;
  const config = (kind: 'Mutating' | 'Validating', version: string, name: string) => ({
    apiVersion: `${GROUP}/${version}`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks: [],
  });
  const eventsOf = (id: string) => eventually(async () => {
    const evs = readAuditEvents(logFile).filter((e) => e.auditID === id);
    return evs.find((e) => e.stage === 'ResponseComplete');
  });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'deprecated-apis-'));
    logFile = path.join(dir, 'audit.log');
    writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
    // admissionregistration v1beta1 is off by default (as in 1.32): switched on here.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, `--runtime-config=${GROUP}/v1beta1=true`, `--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${logFile}`]);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create, get, list and watch through v1beta1 each answer the deprecation warning', async () => {
    const created = await t.post(beta('mutating'), config('Mutating', 'v1beta1', 'dep-m'));
    expect(created.status, created.text).to.equal(201);
    expect(warningTexts(created.headers)).to.deep.equal([MUTATING]);
    const got = await t.get(beta('mutating', 'dep-m'));
    expect(got.status).to.equal(200);
    expect(warningTexts(got.headers)).to.deep.equal([MUTATING]);
    const listed = await t.get(beta('validating'));
    expect(listed.status).to.equal(200);
    expect(warningTexts(listed.headers)).to.deep.equal([VALIDATING]);
    const watched = await t.get(`${beta('mutating')}?watch=true&timeoutSeconds=1`);
    expect(watched.status).to.equal(200);
    expect(warningTexts(watched.headers)).to.deep.equal([MUTATING]);
    const deleted = await t.del(beta('mutating', 'dep-m'));
    expect(deleted.status).to.equal(200);
    expect(warningTexts(deleted.headers)).to.deep.equal([MUTATING]);
  });

  it('an error answer carries the warning too', async () => {
    const missing = await t.get(beta('validating', 'no-such'));
    expect(missing.status).to.equal(404);
    expect(warningTexts(missing.headers)).to.deep.equal([VALIDATING]);
    const invalid = await t.post(beta('validating'), { ...config('Validating', 'v1beta1', 'Bad_Name') });
    expect(invalid.status).to.equal(422);
    expect(warningTexts(invalid.headers)).to.deep.equal([VALIDATING]);
  });

  it('v1 answers no warning', async () => {
    const created = await t.post(v1('validating'), config('Validating', 'v1', 'plain-v'));
    expect(created.status, created.text).to.equal(201);
    expect(created.headers.warning).to.equal(undefined);
    expect((await t.get(v1('validating', 'plain-v'))).headers.warning).to.equal(undefined);
    expect((await t.get(v1('mutating'))).headers.warning).to.equal(undefined);
    await t.del(v1('validating', 'plain-v'));
  });

  it('sets apiserver_requested_deprecated_apis to 1 for each requested resource, with removed_release', async () => {
    await t.get(beta('mutating'));
    await t.get(beta('validating'));
    const m = parseExposition(await t.server.metrics.render());
    expect(m.help.get('apiserver_requested_deprecated_apis')).to.match(/^\[STABLE\] Gauge of deprecated APIs that have been requested/);
    const labels = { group: GROUP, version: 'v1beta1', subresource: '', removed_release: '1.22' };
    const samples = m.samples.filter((s) => s.name === 'apiserver_requested_deprecated_apis');
    expect(samples.map((s) => s.labels).sort((a, b) => a.resource.localeCompare(b.resource))).to.deep.equal([
      { ...labels, resource: 'mutatingwebhookconfigurations' },
      { ...labels, resource: 'validatingwebhookconfigurations' },
    ]);
    expect(samples.every((s) => s.value === 1)).to.equal(true);
  });

  it('records the deprecated and removed-release audit annotations, none for v1', async () => {
    const dep = await t.get(beta('mutating'));
    const event = await eventsOf(dep.headers['audit-id'] as string);
    expect(event.annotations).to.include({ 'orch.io/deprecated': 'true', 'orch.io/removed-release': '1.22' });
    const plain = await t.get(v1('mutating'));
    const plainEvent = await eventsOf(plain.headers['audit-id'] as string);
    expect(plainEvent.annotations ?? {}).to.not.have.property('orch.io/deprecated');
  });

  describe('warnings from everywhere share the limits', () => {
    let hooks: AdmissionWebhookServer;
    let configs: WebhookConfigs;

    before(async () => {
      hooks = await startAdmissionWebhookServer();
      configs = new WebhookConfigs(t);
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'warn' } })).status).to.equal(201);
    });
    after(async () => {
      await configs?.clear();
      await hooks?.stop();
    });

    it('a webhook\'s many long warnings and an unknown field come out deduplicated, cut to 256 runes, within 4096 runes', async () => {
      // 30 distinct warnings of 600 runes (multi-byte included), each sent twice, and an empty one.
      const long = Array.from({ length: 30 }, (_, i) => `hook warning ${String(i).padStart(2, '0')} ${'ü'.repeat(300)}${'x'.repeat(283)}`);
      hooks.handlers.set('/warn', (c) => allow(c, { warnings: [...long, ...long, ''] }));
      await configs.create('validating', 'warns', [hookEntry(hooks, '/warn')]);
      const res = await t.post('/api/v1/namespaces/warn/configmaps',
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' }, data: { a: '1' }, bogus: true });
      expect(res.status, res.text).to.equal(201);
      const texts = warningTexts(res.headers);
      // Field validation warned first; the webhook's came after, cut and counted.
      expect(texts[0]).to.equal('unknown field "bogus"');
      expect(new Set(texts).size).to.equal(texts.length);
      const runes = texts.map((w) => [...w].length);
      expect(Math.max(...runes)).to.equal(256);
      expect(texts[1]).to.equal([...long[0]].slice(0, 256).join(''));
      // Written until the 4096-rune budget is spent (the last one may overshoot it), then dropped.
      const total = runes.reduce((a, b) => a + b, 0);
      expect(total).to.be.at.least(4096).and.below(4096 + 256);
      expect(texts).to.have.length(1 + 16);
    });
  });
});
