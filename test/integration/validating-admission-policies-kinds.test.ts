/**
 * The ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding kinds over HTTPS against a
 * real etcd: defaults, Kubernetes' validation rows of both kinds (field path, reason, message;
 * expressions compiled where they are written) with nothing stored, the status written only
 * through /status and by the status controller (observedGeneration, typeChecking), and the
 * Table columns kubectl prints.
 */
import { expect } from 'chai';
import { TestServer, WITHOUT_NAMESPACE_DEFAULTS, eventually, startTestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';

type Obj = Record<string, any>;
const RULES = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };

describe('ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding kinds', function () {
  this.timeout(60_000);
  let t: TestServer;
  let group: string;
  let seq = 0;
  const policies = () => `/apis/${group}/v1/validatingadmissionpolicies`;
  const bindings = () => `/apis/${group}/v1/validatingadmissionpolicybindings`;
  const policy = (spec: Obj, name = `p-${++seq}`): Obj => ({ apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
  const binding = (spec: Obj, name = `b-${++seq}`): Obj => ({ apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
  const validPolicy = (extra: Obj = {}) => ({ matchConstraints: RULES, validations: [{ expression: 'true' }], ...extra });

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    group = t.server.naming.group('admissionregistration');
  });
  after(async () => { await t?.stop(); });

  it('defaults failurePolicy Fail, matchPolicy Equivalent, empty selectors, scope * and parameterNotFoundAction Deny', async () => {
    const p = await t.post(policies(), policy(validPolicy()));
    expect(p.status, p.text).to.equal(201);
    expect(p.body.spec.failurePolicy).to.equal('Fail');
    expect(p.body.spec.matchConstraints).to.deep.include({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
    expect(p.body.spec.matchConstraints.resourceRules[0].scope).to.equal('*');
    const b = await t.post(bindings(), binding({ policyName: 'x', paramRef: { name: 'params' }, validationActions: ['Deny'] }));
    expect(b.status, b.text).to.equal(201);
    expect(b.body.spec.paramRef).to.deep.equal({ name: 'params', parameterNotFoundAction: 'Deny' });
  });

  const policyRows: Array<[string, Obj, Cause[]]> = [
    ['matchConstraints missing', { validations: [{ expression: 'true' }] }, [{ field: 'spec.matchConstraints', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['no resourceRules', { matchConstraints: {}, validations: [{ expression: 'true' }] }, [{ field: 'spec.matchConstraints.resourceRules', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['neither validations nor auditAnnotations', { matchConstraints: RULES }, [
      { field: 'spec.validations', reason: 'FieldValueRequired', message: 'Required value: validations or auditAnnotations must contain at least one item' },
      { field: 'spec.auditAnnotations', reason: 'FieldValueRequired', message: 'Required value: validations or auditAnnotations must contain at least one item' },
    ]],
    ['a validation that is not bool', validPolicy({ validations: [{ expression: '"yes"' }] }),
      [{ field: 'spec.validations[0].expression', reason: 'FieldValueInvalid', message: 'Invalid value: "\\"yes\\"": must evaluate to bool' }]],
    ['an unsupported reason', validPolicy({ validations: [{ expression: 'true', reason: 'Gone' }] }),
      [{ field: 'spec.validations[0].reason', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Gone": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"' }]],
    ['a message with a line break', validPolicy({ validations: [{ expression: 'true', message: 'a\nb' }] }),
      [{ field: 'spec.validations[0].message', reason: 'FieldValueInvalid', message: 'Invalid value: "a\\nb": message must not contain line breaks' }]],
    ['a blank messageExpression', validPolicy({ validations: [{ expression: 'true', messageExpression: ' ' }] }),
      [{ field: 'spec.validations[0].messageExpression', reason: 'FieldValueInvalid', message: 'Invalid value: " ": must be non-empty if specified' }]],
    ['a messageExpression that is not a string', validPolicy({ validations: [{ expression: 'true', messageExpression: '1 + 1' }] }),
      [{ field: 'spec.validations[0].messageExpression', reason: 'FieldValueInvalid', message: 'Invalid value: "1 + 1": must evaluate to string' }]],
    ['an unsupported failurePolicy', validPolicy({ failurePolicy: 'Sometimes' }),
      [{ field: 'spec.failurePolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"' }]],
    ['a variable name that is no CEL identifier', validPolicy({ variables: [{ name: '1st', expression: 'true' }] }),
      [{ field: 'spec.variables[0].name', reason: 'FieldValueInvalid', message: 'Invalid value: "1st": name is not a valid CEL identifier' }]],
    ['a paramKind without kind', validPolicy({ paramKind: { apiVersion: 'v1' } }),
      [{ field: 'spec.paramKind.kind', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['a duplicate audit annotation key', validPolicy({ auditAnnotations: [{ key: 'k', valueExpression: '"a"' }, { key: 'k', valueExpression: '"b"' }] }),
      [{ field: 'spec.auditAnnotations[1].key', reason: 'FieldValueDuplicate', message: 'Duplicate value: "k"' }]],
    ['a matchCondition without expression', validPolicy({ matchConditions: [{ name: 'm', expression: '' }] }),
      [{ field: 'spec.matchConditions[0].expression', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['an unsupported matchPolicy', { matchConstraints: { ...RULES, matchPolicy: 'Close' }, validations: [{ expression: 'true' }] },
      [{ field: 'spec.matchConstraints.matchPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Close": supported values: "Equivalent", "Exact"' }]],
  ];
  for (const [title, spec, causes] of policyRows) {
    it(`policy refused: ${title}`, async () => {
      const res = await rejectedLeavingStore(t, policies(), () => t.post(policies(), policy(spec)));
      expectInvalidCauses(res, 'ValidatingAdmissionPolicy', causes);
    });
  }

  it('policy refused: an expression that does not compile names the compiler\'s error', async () => {
    const res = await rejectedLeavingStore(t, policies(), () => t.post(policies(), policy(validPolicy({ validations: [{ expression: 'object.x ==' }] }))));
    expect(res.status).to.equal(422);
    const [cause] = res.body.details.causes;
    expect(cause.field).to.equal('spec.validations[0].expression');
    expect(cause.message).to.match(/^Invalid value: "object\.x ==": compilation failed: ERROR: /);
  });

  const bindingRows: Array<[string, Obj, Cause[]]> = [
    ['no policyName', { validationActions: ['Deny'] }, [{ field: 'spec.policyName', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['no validationActions', { policyName: 'p' }, [{ field: 'spec.validationActions', reason: 'FieldValueRequired', message: 'Required value: at least one validation action is required' }]],
    ['Deny and Warn together', { policyName: 'p', validationActions: ['Deny', 'Warn'] }, [{
      field: 'spec.validationActions', reason: 'FieldValueInvalid',
      message: 'Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    }]],
    ['an unsupported action', { policyName: 'p', validationActions: ['Block'] },
      [{ field: 'spec.validationActions[0]', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"' }]],
    ['paramRef with name and selector', { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'a', selector: {} } }, [
      { field: 'spec.paramRef.name', reason: 'FieldValueForbidden', message: 'Forbidden: name and selector are mutually exclusive' },
      { field: 'spec.paramRef.selector', reason: 'FieldValueForbidden', message: 'Forbidden: name and selector are mutually exclusive' },
    ]],
    ['paramRef with neither', { policyName: 'p', validationActions: ['Deny'], paramRef: { namespace: 'x' } },
      [{ field: 'spec.paramRef', reason: 'FieldValueRequired', message: 'Required value: one of name or selector must be specified' }]],
    ['an unsupported parameterNotFoundAction', { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'a', parameterNotFoundAction: 'Maybe' } },
      [{ field: 'spec.paramRef.parameterNotFoundAction', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "Deny", "Allow"' }]],
  ];
  for (const [title, spec, causes] of bindingRows) {
    it(`binding refused: ${title}`, async () => {
      const res = await rejectedLeavingStore(t, bindings(), () => t.post(bindings(), binding(spec)));
      expectInvalidCauses(res, 'ValidatingAdmissionPolicyBinding', causes);
    });
  }

  it('status: the controller writes observedGeneration and typeChecking; writes of the policy cannot set it', async () => {
    const name = `status-${++seq}`;
    const res = await t.post(policies(), { ...policy(validPolicy(), name), status: { observedGeneration: 99 } });
    expect(res.status).to.equal(201);
    expect(res.body.status, 'status dropped on create').to.equal(undefined);
    const settled = await eventually(async () => {
      const got = (await t.get(`${policies()}/${name}`)).body;
      return got.status?.observedGeneration === 1 ? got : undefined;
    });
    expect(settled.status.typeChecking).to.deep.equal({});
    const changed = await mergePatch(t, `${policies()}/${name}`, { spec: { validations: [{ expression: 'false' }] }, status: { observedGeneration: 7 } });
    expect(changed.body.metadata.generation).to.equal(2);
    expect(changed.body.status.observedGeneration, 'status kept by a write of the policy').to.equal(1);
    await eventually(async () => (await t.get(`${policies()}/${name}`)).body.status?.observedGeneration === 2);
    const bad = await mergePatch(t, `${policies()}/${name}/status`, { status: { typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression' }] } } });
    expectInvalidCauses(bad, 'ValidatingAdmissionPolicy', [{ field: 'status.typeChecking.expressionWarnings[0].warning', reason: 'FieldValueRequired', message: 'Required value' }]);
  });

  it('Tables: VALIDATIONS and PARAMKIND for policies, POLICYNAME and PARAMREF for bindings', async () => {
    const p = `tbl-${++seq}`;
    expect((await t.post(policies(), policy(validPolicy({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }, { expression: 'true' }] }), p))).status).to.equal(201);
    const b = `tbl-${++seq}`;
    expect((await t.post(bindings(), binding({ policyName: p, paramRef: { name: 'limits', namespace: 'default' }, validationActions: ['Deny'] }, b))).status).to.equal(201);
    const pt = await t.get(`${policies()}/${p}`, TABLE);
    expect(pt.body.columnDefinitions.map((c: Obj) => c.name)).to.deep.equal(['Name', 'Validations', 'ParamKind', 'Age']);
    expect(pt.body.rows[0].cells.slice(0, 3)).to.deep.equal([p, 2, 'v1/ConfigMap']);
    const bt = await t.get(`${bindings()}/${b}`, TABLE);
    expect(bt.body.columnDefinitions.map((c: Obj) => c.name)).to.deep.equal(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(bt.body.rows[0].cells.slice(0, 3)).to.deep.equal([b, p, 'default/limits']);
  });
});
