/**
 * Dynamic admission webhooks, what their answers do: denials with and without a status; each
 * failurePolicy with a webhook that is down, slow past timeoutSeconds, or answering nonsense;
 * JSON patches applied in order across two webhooks (identity fields kept, unknown fields
 * dropped); reinvocation of IfNeeded webhooks; dry run with each sideEffects value; a v1beta1
 * configuration's defaults and reviews; warnings as Warning headers; service references resolved
 * through the plugin's resolver; and the rejection counts.
 */
import { expect } from 'chai';
import { TestServer, WITHOUT_NAMESPACE_DEFAULTS, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, ReviewCall, WebhookConfigs, allow, deny, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { MutatingWebhookPlugin, ValidatingWebhookPlugin } from '../../lib/admission/webhook/index';

const NS = 'calls';
const DOWN_URL = 'https://127.0.0.1:1/down';

describe('Admission webhooks: answers, failures and side effects', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  let n = 0;
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  const cm = (labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}`, ...(labels ? { labels } : {}) }, data: { a: '1' } });
  const stored = async (name: string) => (await t.get(`${base}/${name}`)).status === 200;

  before(async () => {
    // v1beta1 configurations are tested too: off by default (as in 1.32), switched on here.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, '--runtime-config=admissionregistration.orch.io/v1beta1=true']);
    hooks = await startAdmissionWebhookServer({ serviceNames: ['hooks.webhooks.svc'] });
    configs = new WebhookConfigs(t);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  afterEach(async () => {
    await configs.clear();
    hooks.calls.length = 0;
    hooks.handlers.clear();
  });
  after(async () => {
    await hooks?.stop();
    await t?.stop();
  });

  it('a denial answers the webhook\'s code and message, 400 "without explanation" when it gives none', async () => {
    await configs.create('validating', 'deny', [hookEntry(hooks, '/deny')]);
    hooks.handlers.set('/deny', (c) => deny(c, { code: 403, message: 'no configmaps on Tuesdays', reason: 'Forbidden' }));
    const body = cm();
    const res = await t.post(base, body);
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'admission webhook "deny.hooks.test.io" denied the request: no configmaps on Tuesdays' });
    expect(await stored(body.metadata.name)).to.equal(false);
    hooks.handlers.set('/deny', (c) => deny(c));
    const bare = await t.post(base, cm());
    expect(bare.status).to.equal(400);
    expect(bare.body.message).to.equal('admission webhook "deny.hooks.test.io" denied the request without explanation');
    expect(bare.body).to.not.have.property('reason');
  });

  it('failurePolicy: a webhook that is down fails the request with Fail and is skipped with Ignore', async () => {
    await configs.create('validating', 'down', [
      hookEntry(hooks, '/fail', { clientConfig: { url: DOWN_URL, caBundle: hooks.caBundle }, failurePolicy: 'Fail' }),
    ]);
    const body = cm();
    const res = await t.post(base, body);
    expect(res.status).to.equal(500);
    expect(res.body.reason).to.equal('InternalError');
    expect(res.body.message).to.equal(
      'Internal error occurred: failed calling webhook "fail.hooks.test.io": failed to call webhook: Post "https://127.0.0.1:1/down?timeout=5s": dial tcp 127.0.0.1:1: connect: connection refused');
    expect(await stored(body.metadata.name)).to.equal(false);
    await configs.clear();
    await configs.create('mutating', 'down-ignored', [
      hookEntry(hooks, '/ignore', { clientConfig: { url: DOWN_URL, caBundle: hooks.caBundle }, failurePolicy: 'Ignore' }),
    ]);
    const ok = await t.post(base, cm());
    expect(ok.status, ok.text).to.equal(201);
  });

  it('timeoutSeconds ends a slow call: Fail answers 500 in about that time, Ignore lets the request through', async () => {
    hooks.handlers.set('/slow', (c) => ({ ...allow(c), delayMs: 4000 }));
    await configs.create('validating', 'slow', [hookEntry(hooks, '/slow', { timeoutSeconds: 1, failurePolicy: 'Fail' })]);
    const started = Date.now();
    const res = await t.post(base, cm());
    const took = Date.now() - started;
    expect(res.status).to.equal(500);
    expect(res.body.message).to.equal('Internal error occurred: failed calling webhook "slow.hooks.test.io": failed to call webhook: Post "https://127.0.0.1:'
      + `${hooks.port}/slow?timeout=1s": context deadline exceeded`);
    expect(took).to.be.within(900, 3500);
    expect(hooks.callsTo('/slow')[0].timeout).to.equal('1s');
    await configs.clear();
    await configs.create('validating', 'slow-ignored', [hookEntry(hooks, '/slow', { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
    expect((await t.post(base, cm())).status).to.equal(201);
  });

  it('a reply that breaks the protocol is a failed call', async () => {
    await configs.create('validating', 'bad-replies', [hookEntry(hooks, '/bad')]);
    const answers: Array<[(c: ReviewCall) => ReturnType<typeof allow>, string]> = [
      [() => ({ response: { uid: 'someone-else', allowed: true } }), 'received invalid webhook response: expected response.uid='],
      [(c) => allow(c, { patch: Buffer.from('[]').toString('base64') }), 'received invalid webhook response: validating webhook may not return response.patch'],
      [(c) => ({ ...allow(c), apiVersion: 'admission.orch.io/v1beta1' }), 'received invalid webhook response: expected webhook response of admission.orch.io/v1, Kind=AdmissionReview, got admission.orch.io/v1beta1, Kind=AdmissionReview'],
      [() => ({ raw: 'not json' }), 'received invalid webhook response: the reply is not JSON'],
      [() => ({ status: 500, raw: 'boom' }), 'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding'],
    ];
    for (const [answer, text] of answers) {
      hooks.handlers.set('/bad', answer);
      const res = await t.post(base, cm());
      expect(res.status, text).to.equal(500);
      expect(res.body.message, text).to.contain(`failed calling webhook "bad.hooks.test.io": ${text}`);
    }
  });

  it('patches apply in order: the second webhook sees the first one\'s change, and both are stored', async () => {
    hooks.handlers.set('/first', (c) => allow(c, {}, [{ op: 'add', path: '/metadata/labels', value: { step: 'one' } }]));
    hooks.handlers.set('/second', (c) => allow(c, {}, [
      { op: 'add', path: '/data/seen', value: c.review.request.object.metadata.labels?.step ?? 'nothing' },
      // Identity fields stay the server's; fields the kind does not have are dropped.
      { op: 'replace', path: '/metadata/uid', value: 'forged' },
      { op: 'add', path: '/bogus', value: true },
    ]));
    await configs.create('mutating', 'b-second', [hookEntry(hooks, '/second')]);
    await configs.create('mutating', 'a-first', [hookEntry(hooks, '/first')]);
    const res = await t.post(base, cm());
    expect(res.status, res.text).to.equal(201);
    expect(hooks.calls.map((c) => c.path)).to.deep.equal(['/first', '/second']);
    const got = (await t.get(`${base}/${res.body.metadata.name}`)).body;
    expect(got.metadata.labels).to.deep.equal({ step: 'one' });
    expect(got.data).to.deep.equal({ a: '1', seen: 'one' });
    expect(got.metadata.uid).to.equal(res.body.metadata.uid).and.not.equal('forged');
    expect(got).to.not.have.property('bogus');
  });

  it('reinvocationPolicy IfNeeded: called again after a later webhook changed the object; Never: once', async () => {
    const labeler = (key: string) => (c: ReviewCall) => (c.review.request.object.metadata.labels?.[key]
      ? allow(c) : allow(c, {}, [{ op: 'add', path: `/metadata/labels/${key}`, value: 'yes' }]));
    hooks.handlers.set('/again', labeler('again'));
    hooks.handlers.set('/later', labeler('later'));
    await configs.create('mutating', 'a-again', [hookEntry(hooks, '/again', { reinvocationPolicy: 'IfNeeded' })]);
    await configs.create('mutating', 'b-later', [hookEntry(hooks, '/later')]);
    const res = await t.post(base, cm({ start: 'x' }));
    expect(res.status, res.text).to.equal(201);
    expect(hooks.calls.map((c) => c.path)).to.deep.equal(['/again', '/later', '/again']);
    expect(hooks.calls[2].review.request.object.metadata.labels).to.deep.equal({ start: 'x', again: 'yes', later: 'yes' });
    expect(res.body.metadata.labels).to.deep.equal({ start: 'x', again: 'yes', later: 'yes' });
    await configs.clear();
    hooks.calls.length = 0;
    await configs.create('mutating', 'a-once', [hookEntry(hooks, '/again', { reinvocationPolicy: 'Never' })]);
    await configs.create('mutating', 'b-later', [hookEntry(hooks, '/later')]);
    expect((await t.post(base, cm({ start: 'x' }))).status).to.equal(201);
    expect(hooks.calls.map((c) => c.path)).to.deep.equal(['/again', '/later']);
  });

  it('dry run: None and NoneOnDryRun webhooks are called with dryRun true, Unknown and Some refuse the request uncalled', async () => {
    await configs.create('validating', 'dry-ok', [
      hookEntry(hooks, '/none', { sideEffects: 'None' }),
      hookEntry(hooks, '/none-on-dry-run', { sideEffects: 'NoneOnDryRun' }),
    ]);
    const body = cm();
    const res = await t.post(`${base}?dryRun=All`, body);
    expect(res.status, res.text).to.equal(201);
    expect(hooks.calls.map((c) => [c.path, c.review.request.dryRun]).sort()).to.deep.equal([['/none', true], ['/none-on-dry-run', true]]);
    expect(hooks.calls[0].review.request.options.dryRun).to.deep.equal(['All']);
    expect(await stored(body.metadata.name)).to.equal(false);
    await configs.clear();
    hooks.calls.length = 0;
    for (const sideEffects of ['Unknown', 'Some']) {
      await configs.create('mutating', `dry-${sideEffects.toLowerCase()}`, [
        { ...hookEntry(hooks, '/effects', { sideEffects, admissionReviewVersions: ['v1beta1'] }), name: `${sideEffects.toLowerCase()}.hooks.test.io` },
      ], 'v1beta1');
      const refused = await t.post(`${base}?dryRun=All`, cm());
      expect(refused.status).to.equal(400);
      expect(refused.body).to.deep.include({ reason: 'BadRequest', message: `admission webhook "${sideEffects.toLowerCase()}.hooks.test.io" does not support dry run` });
      expect(hooks.calls).to.have.length(0);
      // Without dry run the same webhook is called.
      expect((await t.post(base, cm())).status).to.equal(201);
      expect(hooks.calls).to.have.length(1);
      hooks.calls.length = 0;
      await configs.clear();
    }
  });

  it('a v1beta1 configuration: failurePolicy Ignore, v1beta1 reviews, 30 s timeout by default', async () => {
    const group = t.server.naming.group('admissionregistration');
    const v1beta1 = (p: string, url: string) => ({ name: `${p.slice(1)}.hooks.test.io`, clientConfig: { url, caBundle: hooks.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] });
    await configs.create('validating', 'old-style', [v1beta1('/old', hooks.url('/old')), v1beta1('/old-down', DOWN_URL)], 'v1beta1');
    const read = (await t.get(`/apis/${group}/v1/validatingwebhookconfigurations/old-style`)).body;
    expect(read.webhooks[0]).to.include({ failurePolicy: 'Ignore', matchPolicy: 'Exact', sideEffects: 'Unknown', timeoutSeconds: 30 });
    expect(read.webhooks[0].admissionReviewVersions).to.deep.equal(['v1beta1']);
    const res = await t.post(base, cm());
    expect(res.status, res.text).to.equal(201);
    const [c] = hooks.callsTo('/old');
    expect(c.review.apiVersion).to.equal('admission.orch.io/v1beta1');
    expect(c.timeout).to.equal('30s');
    expect(c.review.request.kind).to.deep.equal({ group: '', version: 'v1', kind: 'ConfigMap' });
  });

  it('passes warnings on as Warning headers', async () => {
    hooks.handlers.set('/warn', (c) => allow(c, { warnings: ['configmap "a" is deprecated', 'second thought'] }));
    await configs.create('validating', 'warns', [hookEntry(hooks, '/warn')]);
    const res = await t.post(base, cm());
    expect(res.status).to.equal(201);
    const header = ([] as string[]).concat(res.headers.warning as string | string[]).join(', ');
    expect(header).to.contain('299 - "configmap \\"a\\" is deprecated"').and.contain('299 - "second thought"');
  });

  it('a patch on a delete is an internal error', async () => {
    const made = await t.post(base, cm());
    await configs.create('mutating', 'patch-delete', [hookEntry(hooks, '/on-delete', {
      rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    })]);
    hooks.handlers.set('/on-delete', (c) => allow(c, {}, [{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]));
    const res = await t.del(`${base}/${made.body.metadata.name}`);
    expect(res.status).to.equal(500);
    expect(res.body.message).to.equal('Internal error occurred: admission webhook "on-delete.hooks.test.io" attempted to modify the object, which is not supported for this operation');
  });

  it('a service reference goes where the resolver says, checked for <name>.<namespace>.svc; unresolvable, it fails per policy', async () => {
    const plugins = t.server.admission.plugins;
    const validating = plugins.find((p) => p.name === 'ValidatingAdmissionWebhook') as ValidatingWebhookPlugin;
    const mutating = plugins.find((p) => p.name === 'MutatingAdmissionWebhook') as MutatingWebhookPlugin;
    const service = { namespace: 'webhooks', name: 'hooks', path: '/svc', port: hooks.port };
    await configs.create('validating', 'by-service', [hookEntry(hooks, '/svc', { clientConfig: { service, caBundle: hooks.caBundle } })]);
    const unresolved = await t.post(base, cm());
    expect(unresolved.status).to.equal(500);
    expect(unresolved.body.message).to.contain(`failed calling webhook "svc.hooks.test.io": failed to call webhook: Post "https://hooks.webhooks.svc:${hooks.port}/svc?timeout=5s": dial tcp: lookup hooks.webhooks.svc: no such host (this server serves no Services`);
    try {
      validating.setServiceResolver(async (ns, name, port) => (ns === 'webhooks' && name === 'hooks' ? { host: '127.0.0.1', port } : Promise.reject(new Error('unknown'))));
      mutating.setServiceResolver(async (_ns, _name, port) => ({ host: '127.0.0.1', port }));
      const res = await t.post(base, cm());
      expect(res.status, res.text).to.equal(201);
      expect(hooks.callsTo('/svc')[0].headers.host).to.equal(`hooks.webhooks.svc:${hooks.port}`);
      // The webhook's certificate names hooks.webhooks.svc, not other.webhooks.svc.
      await configs.create('mutating', 'wrong-name', [hookEntry(hooks, '/svc-wrong', { clientConfig: { service: { ...service, name: 'other' }, caBundle: hooks.caBundle } })]);
      const wrong = await t.post(base, cm());
      expect(wrong.status).to.equal(500);
      expect(wrong.body.message).to.contain('tls: failed to verify certificate: x509:');
    } finally {
      validating.setServiceResolver(async () => Promise.reject(new Error('no')));
      mutating.setServiceResolver(async () => Promise.reject(new Error('no')));
    }
  });

  it('counts rejections by webhook, operation, type, error type and code', async () => {
    const before = await t.server.admissionMetrics.webhookRejections();
    const count = async (labels: Record<string, unknown>) => {
      const find = (list: typeof before) => list.find((s) => Object.entries(labels).every(([k, v]) => (s.labels as unknown as Record<string, unknown>)[k] === v))?.value ?? 0;
      return find(await t.server.admissionMetrics.webhookRejections()) - find(before);
    };
    hooks.handlers.set('/counted-deny', (c) => deny(c, { code: 422, message: 'no' }));
    await configs.create('validating', 'counted', [
      hookEntry(hooks, '/counted-deny', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], objectSelector: { matchLabels: { deny: 'yes' } } }),
      hookEntry(hooks, '/counted-down', { clientConfig: { url: DOWN_URL, caBundle: hooks.caBundle }, objectSelector: { matchLabels: { down: 'yes' } } }),
      hookEntry(hooks, '/counted-big', { objectSelector: { matchLabels: { big: 'yes' } } }),
    ]);
    hooks.handlers.set('/counted-big', (c) => deny(c, { code: 999 }));
    expect((await t.post(base, cm({ deny: 'yes' }))).status).to.equal(422);
    expect((await t.post(base, cm({ down: 'yes' }))).status).to.equal(500);
    expect((await t.post(base, cm({ big: 'yes' }))).status).to.equal(999);
    expect(await count({ name: 'counted-deny.hooks.test.io', operation: 'CREATE', type: 'validating', error_type: 'no_error', rejection_code: 422 })).to.equal(1);
    expect(await count({ name: 'counted-down.hooks.test.io', type: 'validating', error_type: 'calling_webhook_error', rejection_code: 503 })).to.equal(1);
    expect(await count({ name: 'counted-big.hooks.test.io', error_type: 'no_error', rejection_code: 600 })).to.equal(1);
  });
});
