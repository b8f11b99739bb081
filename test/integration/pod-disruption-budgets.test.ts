/**
 * policy/v1 PodDisruptionBudget over HTTPS against a real etcd: Kubernetes 1.32's validation
 * (each bad spec or status answered 422 with the cause's field path, reason and message, and
 * nothing stored), status reset on create, generation bumped by spec changes only, status
 * written only through /status (which ignores the spec), the resourceVersion every update must
 * name, kubectl's table cells, discovery and `--runtime-config=policy/v1=false`.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses } from '../helpers/kind-checks';

const NS = 'pdbs';
const path = (name = '') => `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const pdb = (name: string, spec: Body, extra: Body = {}): Body =>
  ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec, ...extra });

const PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
const REASON = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
  + " (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";
const NOW = '2026-01-02T03:04:05Z';

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'PodDisruptionBudget', causes);
  expect(res.body.details).to.include({ group: 'policy' });
}

describe('PodDisruptionBudget (policy/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('validation (ValidatePodDisruptionBudgetSpec)', () => {
    const valid: Array<[string, Body]> = [
      ['minAvailable 0', { minAvailable: 0 }],
      ['minAvailable as a percentage', { minAvailable: '100%', selector: { matchLabels: { app: 'a' } } }],
      ['maxUnavailable as an integer', { maxUnavailable: 3, selector: {} }],
      ['maxUnavailable 0%', { maxUnavailable: '0%' }],
      ['neither bound', { selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } }],
      ['unhealthyPodEvictionPolicy AlwaysAllow', { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' }],
      ['unhealthyPodEvictionPolicy IfHealthyBudget', { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'IfHealthyBudget' }],
      ['an empty spec', {}],
    ];
    valid.forEach(([what, spec], i) => {
      it(`accepts ${what}`, async () => {
        const res = await t.post(path(), pdb(`valid-${i}`, spec));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.spec).to.deep.equal(spec);
      });
    });

    const invalid: Array<[string, Body, Cause[]]> = [
      ['both bounds', { minAvailable: 1, maxUnavailable: 1, selector: { matchLabels: { a: 'b' } } }, [{
        field: 'spec', reason: 'FieldValueInvalid',
        message: 'Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(0xc000000000), '
          + 'MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set',
      }]],
      ['a negative minAvailable', { minAvailable: -1 }, [
        { field: 'spec.minAvailable', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['a negative maxUnavailable', { maxUnavailable: -2 }, [
        { field: 'spec.maxUnavailable', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' }]],
      ['a string that is not a percentage', { minAvailable: 'half' }, [
        { field: 'spec.minAvailable', reason: 'FieldValueInvalid', message: `Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: ${PERCENT}` }]],
      ['a fractional percentage', { maxUnavailable: '50.5%' }, [
        { field: 'spec.maxUnavailable', reason: 'FieldValueInvalid', message: `Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"50.5%"}: ${PERCENT}` }]],
      ['more than 100%', { minAvailable: '101%' }, [
        { field: 'spec.minAvailable', reason: 'FieldValueInvalid', message: 'Invalid value: "101%": must not be greater than 100%' }]],
      ['maxUnavailable above 100%', { maxUnavailable: '250%' }, [
        { field: 'spec.maxUnavailable', reason: 'FieldValueInvalid', message: 'Invalid value: "250%": must not be greater than 100%' }]],
      ['an unknown unhealthyPodEvictionPolicy', { unhealthyPodEvictionPolicy: 'Never' }, [{
        field: 'spec.unhealthyPodEvictionPolicy', reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
      }]],
      ['a bad matchLabels value', { selector: { matchLabels: { app: 'a b' } } }, [{
        field: 'spec.selector.matchLabels', reason: 'FieldValueInvalid',
        message: "Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      }]],
      ['In without values', { selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }, [{
        field: 'spec.selector.matchExpressions[0].values', reason: 'FieldValueRequired',
        message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      }]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await t.post(path(), pdb(`invalid-${i}`, spec));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('checks an updated spec too (the spec is mutable)', async () => {
      const created = await t.post(path(), pdb('mutable', { minAvailable: 1 }));
      expect(created.status, created.text).to.equal(201);
      const bad = await t.put(path('mutable'), { ...created.body, spec: { minAvailable: '120%' } });
      expectInvalid(bad, [{ field: 'spec.minAvailable', reason: 'FieldValueInvalid', message: 'Invalid value: "120%": must not be greater than 100%' }]);
      const good = await t.put(path('mutable'), { ...created.body, spec: { maxUnavailable: '20%', selector: { matchLabels: { app: 'x' } } } });
      expect(good.status, good.text).to.equal(200);
      expect(good.body.spec).to.deep.equal({ maxUnavailable: '20%', selector: { matchLabels: { app: 'x' } } });
    });
  });

  describe('strategy', () => {
    it('resets the status on create and starts at generation 1', async () => {
      const res = await t.post(path(), pdb('created', { minAvailable: 2 }, { status: { disruptionsAllowed: 5, expectedPods: 9, observedGeneration: 3 } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.status).to.deep.equal({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
      expect(res.body.metadata.generation).to.equal(1);
    });

    it('writes an absent spec as {} (a Go struct is never omitted)', async () => {
      const res = await t.post(path(), { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'no-spec' } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({});
    });

    it('bumps the generation on a spec change only, and keeps the status on a main update', async () => {
      const created = (await t.post(path(), pdb('generations', { minAvailable: 1 }))).body;
      const labelled = await t.put(path('generations'), { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { disruptionsAllowed: 7 } });
      expect(labelled.status, labelled.text).to.equal(200);
      expect(labelled.body.metadata.generation).to.equal(1);
      expect(labelled.body.status.disruptionsAllowed).to.equal(0);
      const changed = await t.put(path('generations'), { ...labelled.body, spec: { minAvailable: 2 } });
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.body.metadata.generation).to.equal(2);
    });

    it('writes the status only through /status, which ignores the spec and keeps the generation', async () => {
      const created = (await t.post(path(), pdb('with-status', { minAvailable: 1 }))).body;
      const status = {
        observedGeneration: 1, disruptedPods: { 'pod-a': NOW }, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3,
        conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: NOW, observedGeneration: 1 }],
      };
      const res = await t.put(path('with-status/status'), { ...created, spec: { maxUnavailable: 4 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec).to.deep.equal({ minAvailable: 1 });
      expect(res.body.metadata.generation).to.equal(1);
      const got = await t.get(path('with-status/status'));
      expect(got.body.status).to.deep.equal(status);
      // Counts left out read back as Go's zeros.
      const partial = await t.put(path('with-status/status'), { ...res.body, status: { disruptionsAllowed: 2 } });
      expect(partial.body.status).to.deep.equal({ disruptionsAllowed: 2, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    });

    it('refuses a bad status (ValidatePodDisruptionBudgetStatusUpdate at v1)', async () => {
      const created = (await t.post(path(), pdb('bad-status', { minAvailable: 1 }))).body;
      const res = await t.put(path('bad-status/status'), {
        ...created,
        status: {
          disruptionsAllowed: -1, currentHealthy: -2, desiredHealthy: -3, expectedPods: -4,
          conditions: [
            { type: 'DisruptionAllowed', status: 'Maybe', reason: 'bad reason', message: '', lastTransitionTime: NOW, observedGeneration: -1 },
            { type: 'DisruptionAllowed', status: 'True', reason: '', message: '' },
          ],
        },
      });
      expectInvalid(res, [
        { field: 'status.conditions[0].status', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' },
        { field: 'status.conditions[0].observedGeneration', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to zero' },
        { field: 'status.conditions[0].reason', reason: 'FieldValueInvalid', message: `Invalid value: "bad reason": ${REASON}` },
        { field: 'status.conditions[1].type', reason: 'FieldValueDuplicate', message: 'Duplicate value: "DisruptionAllowed"' },
        { field: 'status.conditions[1].lastTransitionTime', reason: 'FieldValueRequired', message: 'Required value: must be set' },
        { field: 'status.conditions[1].reason', reason: 'FieldValueRequired', message: 'Required value: must be set' },
        { field: 'status.disruptionsAllowed', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.currentHealthy', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' },
        { field: 'status.desiredHealthy', reason: 'FieldValueInvalid', message: 'Invalid value: -3: must be greater than or equal to 0' },
        { field: 'status.expectedPods', reason: 'FieldValueInvalid', message: 'Invalid value: -4: must be greater than or equal to 0' },
      ]);
    });

    it('needs a resourceVersion to update, and PUT does not create', async () => {
      const created = (await t.post(path(), pdb('conditional', { minAvailable: 1 }))).body;
      const { resourceVersion: _rv, ...meta } = created.metadata;
      const res = await t.put(path('conditional'), { ...created, metadata: meta });
      expectInvalid(res, [{ field: 'metadata.resourceVersion', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update' }]);
      const missing = await t.put(path('missing'), pdb('missing', { minAvailable: 1 }, { metadata: { name: 'missing', resourceVersion: created.metadata.resourceVersion } }));
      expect(missing.status, missing.text).to.equal(404);
      // Without a resourceVersion too: the object is looked for first, as Kubernetes does (NotFound, not Invalid).
      const missingNoRv = await t.put(path('missing'), pdb('missing', { minAvailable: 1 }));
      expect(missingNoRv.status, missingNoRv.text).to.equal(404);
      expect(missingNoRv.body.reason).to.equal('NotFound');
      expect((await t.get(path('missing'))).status).to.equal(404);
    });
  });

  describe('reads', () => {
    it('prints NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE, N/A for an unset bound', async () => {
      await t.post(path(), pdb('table-min', { minAvailable: '50%' }));
      await t.post(path(), pdb('table-max', { maxUnavailable: 2 }));
      const table = (name: string) => t.get(path(name), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      const min = await table('table-min');
      expect(min.body.columnDefinitions.map((c: Body) => [c.name, c.type])).to.deep.equal([
        ['Name', 'string'], ['Min Available', 'string'], ['Max Unavailable', 'string'], ['Allowed Disruptions', 'integer'], ['Age', 'string']]);
      expect(min.body.rows[0].cells.slice(0, 4)).to.deep.equal(['table-min', '50%', 'N/A', 0]);
      expect((await table('table-max')).body.rows[0].cells.slice(0, 4)).to.deep.equal(['table-max', 'N/A', '2', 0]);
    });

    it('is in discovery as policy/v1 poddisruptionbudgets (pdb) with its status subresource', async () => {
      const groups = await t.get('/apis');
      const policy = groups.body.groups.find((g: Body) => g.name === 'policy');
      expect(policy).to.deep.include({ preferredVersion: { groupVersion: 'policy/v1', version: 'v1' } });
      const list = await t.get('/apis/policy/v1');
      const names = list.body.resources.map((r: Body) => r.name);
      expect(names).to.deep.equal(['poddisruptionbudgets', 'poddisruptionbudgets/status']);
      expect(list.body.resources[0]).to.deep.include({ kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], singularName: 'poddisruptionbudget' });
      expect(list.body.resources[1].verbs).to.deep.equal(['get', 'patch', 'update']);
    });
  });
});

describe('--runtime-config=policy/v1=false', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(['--runtime-config=policy/v1=false']); });
  after(async () => { await t?.stop(); });

  it('serves no policy group', async () => {
    expect((await t.get('/apis')).body.groups.map((g: Body) => g.name)).not.to.include('policy');
    expect((await t.get(path())).status).to.equal(404);
  });
});
