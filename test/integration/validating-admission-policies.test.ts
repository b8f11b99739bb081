/**
 * ValidatingAdmissionPolicy enforcement over HTTPS against a real etcd: policies and bindings
 * created through the API and enforced on ConfigMap writes by the ValidatingAdmissionPolicy
 * plugin (on by default): params from a ConfigMap and from a custom resource, each validation
 * action (Deny with Kubernetes' message and code, Warn as a `Warning` header, Audit as the
 * validation_failure audit annotation, with the policy's own auditAnnotations), matchConditions,
 * variables, messageExpression, namespaceSelector, parameterNotFoundAction, failurePolicy on a
 * runtime error, and a removed binding no longer enforcing. Each scenario binds through a
 * namespace label of its own, so scenarios never see each other's policies.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpResponse, TestServer, WITHOUT_NAMESPACE_DEFAULTS, eventually, startTestServer } from '../helpers/server-harness';
import { readAuditEvents } from '../helpers/audit-log';
import { warningTexts } from '../helpers/warning-headers';
import { crdHttp } from '../helpers/crd-http';

type Obj = Record<string, any>;

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Metadata
    resources: [{group: "", resources: ["configmaps"]}]
  - level: None
`;

describe('ValidatingAdmissionPolicy enforcement', function () {
  this.timeout(120_000);
  let t: TestServer;
  let group: string;
  let dir: string;
  let logFile: string;
  let seq = 0;

  const policies = () => `/apis/${group}/v1/validatingadmissionpolicies`;
  const bindings = () => `/apis/${group}/v1/validatingadmissionpolicybindings`;
  const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
  const cm = (name: string, data: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
  const ON_CONFIGMAPS = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] };

  /** A namespace labelled `scenario=<name>`, the label its binding selects. */
  async function scenarioNamespace(scenario: string): Promise<string> {
    const ns = `vap-${scenario}-${++seq}`;
    const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { scenario } } });
    expect(res.status, res.text).to.equal(201);
    return ns;
  }

  async function policy(name: string, spec: Obj): Promise<Obj> {
    const res = await t.post(policies(), { apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: ON_CONFIGMAPS, ...spec } });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  async function binding(name: string, policyName: string, scenario: string, spec: Obj = {}): Promise<Obj> {
    const res = await t.post(bindings(), {
      apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name },
      spec: { policyName, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { scenario } } }, ...spec },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  /** Waits until a dry-run create of `obj` in `ns` is answered `code` (the plugin has seen the policy and binding). */
  async function untilAnswered(ns: string, obj: Obj, code: number): Promise<HttpResponse> {
    return eventually(async () => {
      const res = await t.post(`${cms(ns)}?dryRun=All`, obj);
      return res.status === code ? res : undefined;
    });
  }

  async function expectStoredNothing(ns: string, name: string): Promise<void> {
    expect((await t.get(`${cms(ns)}/${name}`)).status).to.equal(404);
  }

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vap-'));
    logFile = path.join(dir, 'audit.log');
    writeFileSync(path.join(dir, 'policy.yaml'), AUDIT_POLICY);
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, `--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${logFile}`]);
    group = t.server.naming.group('admissionregistration');
  });
  after(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Deny with params from a ConfigMap: 422 with the messageExpression, nothing stored; other namespaces unaffected', async () => {
    const ns = await scenarioNamespace('cmparams');
    const other = await scenarioNamespace('unbound');
    expect((await t.post(cms(ns), cm('limits', { max: '2' }))).status).to.equal(201);
    await policy('max-keys', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConditions: [{ name: 'not-the-params', expression: 'object.metadata.name != "limits"' }],
      validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: '"too many keys: " + string(size(object.data))' }],
    });
    await binding('max-keys-binding', 'max-keys', 'cmparams', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    const big = cm('big', { a: '1', b: '2', c: '3' });
    await untilAnswered(ns, big, 422);
    const res = await t.post(cms(ns), big);
    expect(res.status).to.equal(422);
    const message = "ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-binding' denied request: too many keys: 3";
    expect(res.body.reason).to.equal('Invalid');
    expect(res.body.message).to.equal(`configmaps "big" is forbidden: ${message}`);
    expect(res.body.details.causes).to.deep.equal([{ message }]);
    await expectStoredNothing(ns, 'big');
    expect((await t.post(cms(ns), cm('small', { a: '1' }))).status).to.equal(201);
    expect((await t.post(cms(other), big)).status, 'namespace not selected by the binding').to.equal(201);
  });

  it('params from a custom resource selected by labels, and reason Forbidden answering 403 with the static message', async () => {
    const ns = await scenarioNamespace('crparams');
    const crGroup = 'vap.example.com';
    await crdHttp(() => t, ns).install(crGroup);
    const ct = (name: string, image: string) => ({ apiVersion: `${crGroup}/v1`, kind: 'CronTab', metadata: { name, labels: { role: 'allowed-image' } }, spec: { image } });
    expect((await t.post(`/apis/${crGroup}/v1/namespaces/${ns}/crontabs`, ct('allowed', 'nginx'))).status).to.equal(201);
    await policy('image-from-cr', {
      paramKind: { apiVersion: `${crGroup}/v1`, kind: 'CronTab' },
      validations: [{ expression: 'object.data.image == params.spec.image', message: 'image not allowed', reason: 'Forbidden' }],
    });
    await binding('image-from-cr-binding', 'image-from-cr', 'crparams', { paramRef: { selector: { matchLabels: { role: 'allowed-image' } }, parameterNotFoundAction: 'Deny' } });
    await untilAnswered(ns, cm('bad-image', { image: 'busybox' }), 403);
    const res = await t.post(cms(ns), cm('bad-image', { image: 'busybox' }));
    expect(res.status).to.equal(403);
    expect(res.body.reason).to.equal('Forbidden');
    expect(res.body.message).to.equal(`configmaps "bad-image" is forbidden: ValidatingAdmissionPolicy 'image-from-cr' with binding 'image-from-cr-binding' denied request: image not allowed`);
    expect((await t.post(cms(ns), cm('good-image', { image: 'nginx' }))).status).to.equal(201);
  });

  it('Warn: the object is created and the response has the Warning header', async () => {
    const ns = await scenarioNamespace('warn');
    await policy('warn-team', { validations: [{ expression: 'has(object.metadata.labels) && "team" in object.metadata.labels', message: 'a team label is expected' }] });
    await binding('warn-team-binding', 'warn-team', 'warn', { validationActions: ['Warn'] });
    const text = "Validation failed for ValidatingAdmissionPolicy 'warn-team' with binding 'warn-team-binding': a team label is expected";
    await eventually(async () => warningTexts((await t.post(`${cms(ns)}?dryRun=All`, cm('probe'))).headers).includes(text));
    const res = await t.post(cms(ns), cm('unlabelled'));
    expect(res.status).to.equal(201);
    expect(warningTexts(res.headers)).to.include(text);
  });

  it('Audit: the validation_failure annotation and the policy\'s auditAnnotations are in the audit event; the object is created', async () => {
    const ns = await scenarioNamespace('audit');
    await policy('audit-size', {
      validations: [{ expression: 'size(object.data) == 0', message: 'data is not empty' }],
      auditAnnotations: [{ key: 'keys', valueExpression: 'string(size(object.data))' }],
    });
    await binding('audit-size-binding', 'audit-size', 'audit', { validationActions: ['Audit'] });
    const event = await eventually(async () => {
      const res = await t.post(cms(ns), cm(`audited-${++seq}`, { a: '1' }));
      expect(res.status).to.equal(201);
      const e = await eventually(async () => readAuditEvents(logFile).find((x) => x.auditID === res.headers['audit-id'] && x.stage === 'ResponseComplete'));
      return e.annotations?.['validation.policy.admission.orch.io/validation_failure'] ? e : undefined;
    });
    expect(JSON.parse(event.annotations['validation.policy.admission.orch.io/validation_failure'])).to.deep.equal([
      { message: 'data is not empty', policy: 'audit-size', binding: 'audit-size-binding', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
    expect(event.annotations['audit-size/keys']).to.equal('1');
  });

  it('variables and matchConditions: only matching requests are validated, with the variable\'s value', async () => {
    const ns = await scenarioNamespace('vars');
    await policy('checked-owner', {
      matchConditions: [{ name: 'only-checked', expression: 'object.metadata.name.startsWith("checked-")' }],
      variables: [{ name: 'owner', expression: 'has(object.data.owner) ? object.data.owner : ""' }],
      validations: [{ expression: 'variables.owner != ""', messageExpression: '"owner missing on " + object.metadata.name' }],
    });
    await binding('checked-owner-binding', 'checked-owner', 'vars');
    await untilAnswered(ns, cm('checked-a'), 422);
    const res = await t.post(cms(ns), cm('checked-a'));
    expect(res.body.message).to.equal(`configmaps "checked-a" is forbidden: ValidatingAdmissionPolicy 'checked-owner' with binding 'checked-owner-binding' denied request: owner missing on checked-a`);
    expect((await t.post(cms(ns), cm('checked-b', { owner: 'me' }))).status).to.equal(201);
    expect((await t.post(cms(ns), cm('unchecked'))).status, 'matchCondition false: not validated').to.equal(201);
  });

  it('parameterNotFoundAction: Deny refuses with Kubernetes\' message, Allow admits', async () => {
    const denyNs = await scenarioNamespace('notfound-deny');
    const allowNs = await scenarioNamespace('notfound-allow');
    await policy('needs-params', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'false', message: 'never' }] });
    await binding('needs-params-deny', 'needs-params', 'notfound-deny', { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } });
    await binding('needs-params-allow', 'needs-params', 'notfound-allow', { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } });
    await untilAnswered(denyNs, cm('x'), 422);
    const res = await t.post(cms(denyNs), cm('x'));
    expect(res.body.message).to.equal("configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'needs-params' with binding 'needs-params-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction");
    expect((await t.post(cms(allowNs), cm('x'))).status).to.equal(201);
  });

  it('failurePolicy on a runtime error: Fail refuses with the expression\'s error, Ignore admits', async () => {
    const failNs = await scenarioNamespace('rt-fail');
    const ignoreNs = await scenarioNamespace('rt-ignore');
    const expression = 'object.data.missing == "x"';
    await policy('rt-fail', { failurePolicy: 'Fail', validations: [{ expression }] });
    await policy('rt-ignore', { failurePolicy: 'Ignore', validations: [{ expression }] });
    await binding('rt-fail-binding', 'rt-fail', 'rt-fail');
    await binding('rt-ignore-binding', 'rt-ignore', 'rt-ignore');
    await untilAnswered(failNs, cm('y', { a: '1' }), 422);
    const res = await t.post(cms(failNs), cm('y', { a: '1' }));
    expect(res.body.message).to.match(new RegExp(`^configmaps "y" is forbidden: ValidatingAdmissionPolicy 'rt-fail' with binding 'rt-fail-binding' denied request: expression 'object\\.data\\.missing == "x"' resulted in error: .+`));
    await expectStoredNothing(failNs, 'y');
    // The Ignore policy's binding is known once a probe of it has been admitted after the Fail one refused.
    expect((await t.post(cms(ignoreNs), cm('y', { a: '1' }))).status).to.equal(201);
  });

  it('a binding removed stops enforcing', async () => {
    const ns = await scenarioNamespace('removed');
    await policy('no-data', { validations: [{ expression: '!has(object.data)', message: 'no data allowed' }] });
    await binding('no-data-binding', 'no-data', 'removed');
    await untilAnswered(ns, cm('z', { a: '1' }), 422);
    expect((await t.del(`${bindings()}/no-data-binding`)).status).to.equal(200);
    await untilAnswered(ns, cm('z', { a: '1' }), 201);
    expect((await t.post(cms(ns), cm('z', { a: '1' }))).status).to.equal(201);
  });

  it('counts checks in apiserver_validating_admission_policy_check_total', async () => {
    const res = await t.get('/metrics');
    expect(res.text).to.match(/apiserver_validating_admission_policy_check_total\{[^}]*policy="max-keys"[^}]*policy_binding="max-keys-binding"[^}]*enforcement_action="deny"[^}]*error_type="no_error"[^}]*\} [1-9]/);
  });
});
