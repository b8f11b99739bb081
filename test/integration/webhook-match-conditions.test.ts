/**
 * Webhook matchConditions (admissionregistration v1) through HTTP: a webhook served by the test
 * is called only for requests whose conditions are all true (object, request and authorizer
 * variables), for validating and mutating webhooks; a condition that errs refuses the request
 * under failurePolicy Fail (403 with Kubernetes' message, nothing stored) and skips the webhook
 * under Ignore; the match-condition metrics count exclusions and errors; configurations with bad
 * conditions are refused with Kubernetes' field paths and messages and leave the store untouched.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, WITHOUT_NAMESPACE_DEFAULTS, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { parseExposition } from '../helpers/prom-text';

const NS = 'matched';
type Obj = Record<string, any>;

describe('Webhook matchConditions', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
  const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    hooks = await startAdmissionWebhookServer();
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

  it('calls a validating webhook only for objects its conditions select', async () => {
    await configs.create('validating', 'by-name', [hookEntry(hooks, '/by-name', {
      matchConditions: [
        { name: 'prefixed', expression: "object.metadata.name.startsWith('hook-')" },
        { name: 'is-create', expression: "request.operation == 'CREATE' && request.namespace == '" + NS + "'" },
      ],
    })]);
    expect((await t.post(cmPath(), cm('hook-a'))).status).to.equal(201);
    expect((await t.post(cmPath(), cm('plain-a'))).status).to.equal(201);
    const names = hooks.callsTo('/by-name').map((c) => c.review.request.name);
    expect(names).to.deep.equal(['hook-a']);
  });

  it('a webhook skipped by its conditions cannot refuse; one selected can', async () => {
    hooks.handlers.set('/deny', (call) => ({ response: { uid: call.review.request.uid, allowed: false, status: { code: 403, message: 'no thanks' } } }));
    await configs.create('validating', 'deny-labelled', [hookEntry(hooks, '/deny', {
      matchConditions: [{ name: 'labelled', expression: "has(object.metadata.labels) && 'guarded' in object.metadata.labels" }],
    })]);
    expect((await t.post(cmPath(), cm('free'))).status).to.equal(201);
    const guarded = { ...cm('guarded'), metadata: { name: 'guarded', labels: { guarded: 'yes' } } };
    const res = await t.post(cmPath(), guarded);
    expect(res.status, res.text).to.equal(403);
    expect(res.body.message).to.contain('no thanks');
    expect((await t.get(cmPath('guarded'))).status).to.equal(404);
  });

  it('reads the user\'s rights through the authorizer variable', async () => {
    const rbac = 'rbac.authorization.orch.io';
    const role = { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'cm-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }] };
    const binding = { apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-cm' },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'cm-writer' }, subjects: [{ kind: 'User', apiGroup: rbac, name: 'bob' }] };
    expect((await t.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, role)).status).to.equal(201);
    expect((await t.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, binding)).status).to.equal(201);
    // Called only for users who may not read secrets here (the admin may: skipped).
    await configs.create('validating', 'by-rights', [hookEntry(hooks, '/by-rights', {
      matchConditions: [
        { name: 'not-secret-reader', expression: "!authorizer.group('').resource('secrets').namespace(request.namespace).check('get').allowed()" },
        { name: 'may-create-this', expression: "authorizer.requestResource.check('create').allowed()" },
      ],
    })]);
    expect((await t.post(cmPath(), cm('by-admin'))).status).to.equal(201);
    let res: HttpResponse = await t.post(cmPath(), cm('by-bob'), { headers: { 'Impersonate-User': 'bob' } });
    for (let i = 0; i < 50 && res.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.post(cmPath(), cm('by-bob'), { headers: { 'Impersonate-User': 'bob' } });
    }
    expect(res.status, res.text).to.equal(201);
    expect(hooks.callsTo('/by-rights').map((c) => c.review.request.name)).to.deep.equal(['by-bob']);
  });

  it('calls a mutating webhook only when its conditions hold, and applies its patch', async () => {
    hooks.handlers.set('/mutate', (call) => ({ response: {
      uid: call.review.request.uid, allowed: true, patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/mutated', value: 'yes' }])).toString('base64'),
    } }));
    await configs.create('mutating', 'mutate-some', [hookEntry(hooks, '/mutate', {
      matchConditions: [{ name: 'wants-it', expression: "object.data.a == 'mutate-me'" }],
    })]);
    const yes = await t.post(cmPath(), cm('m-yes', { a: 'mutate-me' }));
    const no = await t.post(cmPath(), cm('m-no', { a: 'leave-me' }));
    expect(yes.status, yes.text).to.equal(201);
    expect(no.status, no.text).to.equal(201);
    expect(yes.body.data).to.deep.equal({ a: 'mutate-me', mutated: 'yes' });
    expect(no.body.data).to.deep.equal({ a: 'leave-me' });
    expect(hooks.callsTo('/mutate')).to.have.length(1);
  });

  it('a condition that errs under failurePolicy Fail refuses the request (403) and stores nothing', async () => {
    await configs.create('validating', 'errs-fail', [hookEntry(hooks, '/errs-fail', {
      failurePolicy: 'Fail',
      matchConditions: [{ name: 'missing-key', expression: "object.data.nothere == 'x'" }],
    })]);
    const res = await t.post(cmPath(), cm('err-fail'));
    expect(res.status, res.text).to.equal(403);
    expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(res.body.message).to.match(/^configmaps "err-fail" is forbidden: expression 'object\.data\.nothere == 'x'' resulted in error: /);
    expect(hooks.callsTo('/errs-fail')).to.have.length(0);
    expect((await t.get(cmPath('err-fail'))).status).to.equal(404);
  });

  it('a condition that errs under failurePolicy Ignore skips the webhook; a false beside an error skips it too', async () => {
    await configs.create('validating', 'errs-ignore', [
      hookEntry(hooks, '/errs-ignore', { failurePolicy: 'Ignore', matchConditions: [{ name: 'missing-key', expression: "object.data.nothere == 'x'" }] }),
      hookEntry(hooks, '/false-and-error', { failurePolicy: 'Fail', matchConditions: [
        { name: 'errs', expression: "object.data.nothere == 'x'" }, { name: 'false', expression: 'false' },
      ] }),
    ]);
    const res = await t.post(cmPath(), cm('err-ignore'));
    expect(res.status, res.text).to.equal(201);
    expect(hooks.calls).to.have.length(0);
  });

  it('records apiserver_admission_match_condition_* metrics by webhook, kind, type and operation', async () => {
    const hookName = 'metrics-hook.hooks.test.io';
    await configs.create('validating', 'metrics', [hookEntry(hooks, '/metrics-hook', {
      name: hookName, failurePolicy: 'Ignore',
      matchConditions: [{ name: 'c', expression: "object.metadata.name != 'excluded' && object.data.a == '1'" }],
    })]);
    await t.post(cmPath(), cm('excluded'));
    await t.post(cmPath(), cm('erring', { b: '2' }));
    await t.post(cmPath(), cm('included'));
    const m = parseExposition((await t.get('/metrics')).text);
    const labels = { name: hookName, kind: 'webhook', type: 'validating', operation: 'CREATE' };
    expect(m.value('apiserver_admission_match_condition_exclusions_total', labels)).to.equal(2);
    expect(m.value('apiserver_admission_match_condition_evaluation_errors_total', labels)).to.equal(1);
    expect(m.value('apiserver_admission_match_condition_evaluation_seconds_count', labels)).to.equal(3);
    expect(hooks.callsTo('/metrics-hook').map((c) => c.review.request.name)).to.deep.equal(['included']);
  });

  describe('validation (422 with Kubernetes\' field and message; nothing stored)', () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const rows: Array<[string, Obj[], string, string, RegExp | string]> = [
      ['a repeated name', [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'false' }],
        'webhooks[0].matchConditions[1].name', 'FieldValueDuplicate', 'Duplicate value: "a"'],
      ['a name that is not a qualified name', [{ name: 'not a name!', expression: 'true' }],
        'webhooks[0].matchConditions[0].name', 'FieldValueInvalid', /^Invalid value: "not a name!": name part must consist of alphanumeric characters/],
      ['no name', [{ expression: 'true' }], 'webhooks[0].matchConditions[0].name', 'FieldValueRequired', 'Required value'],
      ['no expression', [{ name: 'a', expression: '  ' }], 'webhooks[0].matchConditions[0].expression', 'FieldValueRequired', 'Required value'],
      ['an undeclared variable', [{ name: 'a', expression: 'params.x == 1' }],
        'webhooks[0].matchConditions[0].expression', 'FieldValueInvalid', /^Invalid value: "params\.x == 1": compilation failed: ERROR: /],
      ['a result that is not a bool', [{ name: 'a', expression: "'yes'" }],
        'webhooks[0].matchConditions[0].expression', 'FieldValueInvalid', 'Invalid value: "\'yes\'": must evaluate to bool'],
      ['a dyn result (Kubernetes wants bool)', [{ name: 'a', expression: 'object.spec' }],
        'webhooks[0].matchConditions[0].expression', 'FieldValueInvalid', 'Invalid value: "object.spec": must evaluate to bool'],
      ['more than 64', many, 'webhooks[0].matchConditions', 'FieldValueTooMany', 'Too many: 65: must have at most 64 items'],
    ];
    for (const kind of ['validating', 'mutating'] as const) {
      for (const [what, conditions, field, reason, message] of rows) {
        it(`${kind}: ${what}`, async () => {
          const name = `invalid-${kind}-${what.replace(/[^a-z0-9]+/g, '-')}`.slice(0, 60).replace(/-$/, '');
          const group = t.server.naming.group('admissionregistration');
          const res = await t.post(configs.path(kind), {
            apiVersion: `${group}/v1`, kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
            metadata: { name }, webhooks: [hookEntry(hooks, '/never', { matchConditions: conditions })],
          });
          expect(res.status, res.text).to.equal(422);
          expect(res.body).to.include({ kind: 'Status', reason: 'Invalid', code: 422 });
          const cause = (res.body.details?.causes ?? []).find((c: Obj) => c.field === field);
          expect(cause, JSON.stringify(res.body.details?.causes)).to.not.equal(undefined);
          expect(cause.reason).to.equal(reason);
          if (typeof message === 'string') expect(cause.message).to.equal(message);
          else expect(cause.message).to.match(message);
          expect((await t.get(configs.path(kind, 'v1', name))).status).to.equal(404);
        });
      }
    }

    it('accepts 64 conditions and every variable (object, oldObject, request, authorizer, namespaceObject)', async () => {
      const ok = [
        ...Array.from({ length: 60 }, (_, i) => ({ name: `n${i}`, expression: 'true' })),
        { name: 'old', expression: 'oldObject == null || oldObject.metadata.name == object.metadata.name' },
        { name: 'req', expression: "request.userInfo.username != ''" },
        { name: 'authz', expression: "authorizer.path('/healthz').check('get').allowed() || true" },
        { name: 'ns', expression: 'namespaceObject == null' },
      ];
      await configs.create('validating', 'sixty-four', [hookEntry(hooks, '/sixty-four', { matchConditions: ok })]);
      expect((await t.post(cmPath(), cm('all-vars'))).status).to.equal(201);
      expect(hooks.callsTo('/sixty-four')).to.have.length(1);
    });
  });
});
