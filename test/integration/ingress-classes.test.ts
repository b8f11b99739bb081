/**
 * networking/v1 IngressClass over HTTPS against a real etcd: Kubernetes 1.32's defaults
 * (parameters.scope Cluster) and validation (controller required, domain-prefixed, at most 250
 * bytes and immutable; parameters kind, name, apiGroup, scope and namespace rules), each refusal
 * a 422 with Kubernetes' causes and nothing stored; generation; kubectl's table cells.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';

type Body = Record<string, any>;
const DNS1123 = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('IngressClass (networking/v1)', () => {
  let t: TestServer;
  let group: string;
  const path = (name = '') => `/apis/${group}/v1/ingressclasses${name ? `/${name}` : ''}`;
  const klass = (name: string, spec: Body): Body => ({ apiVersion: `${group}/v1`, kind: 'IngressClass', metadata: { name }, spec });
  const expectInvalid = (res: HttpResponse, causes: Cause[]) => expectInvalidCauses(res, 'IngressClass', causes);

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('networking');
  });
  after(async () => { await t?.stop(); });

  it('defaults parameters.scope to Cluster and starts at generation 1', async () => {
    const res = await t.post(path(), klass('defaults', { controller: 'example.com/ingress', parameters: { kind: 'Params', name: 'p' } }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec).to.deep.equal({ controller: 'example.com/ingress', parameters: { kind: 'Params', name: 'p', scope: 'Cluster' } });
    expect(res.body.metadata.generation).to.equal(1);
  });

  it('accepts a namespaced parameters reference', async () => {
    const spec = { controller: 'acme.io/ingress-controller', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external', scope: 'Namespace', namespace: 'infra' } };
    const res = await t.post(path(), klass('namespaced', spec));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec).to.deep.equal(spec);
  });

  const invalid: Array<[string, Body, Cause[]]> = [
    ['no controller', {}, [{ field: 'spec.controller', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['a controller without a path', { controller: 'example.com' }, [
      { field: 'spec.controller', reason: 'FieldValueInvalid', message: 'Invalid value: "example.com": must be a domain-prefixed path (such as "acme.io/foo")' }]],
    ['a controller whose domain is no DNS subdomain', { controller: 'Example_com/x' }, [
      { field: 'spec.controller', reason: 'FieldValueInvalid', message: `Invalid value: "Example_com": ${DNS1123}` }]],
    ['a controller with a bad path', { controller: 'example.com/a b' }, [
      { field: 'spec.controller', reason: 'FieldValueInvalid', message: "Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')" }]],
    ['a controller over 250 bytes', { controller: `example.com/${'a'.repeat(240)}` }, [
      { field: 'spec.controller', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 250 bytes' }]],
    ['parameters without kind and name', { controller: 'example.com/x', parameters: { scope: 'Cluster' } }, [
      { field: 'spec.parameters.kind', reason: 'FieldValueRequired', message: 'Required value' },
      { field: 'spec.parameters.name', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['a parameters kind with a slash', { controller: 'example.com/x', parameters: { kind: 'a/b', name: 'n' } }, [
      { field: 'spec.parameters.kind', reason: 'FieldValueInvalid', message: 'Invalid value: "a/b": may not contain \'/\'' }]],
    ['a bad parameters apiGroup', { controller: 'example.com/x', parameters: { apiGroup: 'Bad', kind: 'K', name: 'n' } }, [
      { field: 'spec.parameters.apiGroup', reason: 'FieldValueInvalid', message: `Invalid value: "Bad": ${DNS1123}` }]],
    ['an unknown scope', { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Global' } }, [
      { field: 'spec.parameters.scope', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Global": supported values: "Cluster", "Namespace"' }]],
    ['scope Namespace without namespace', { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } }, [
      { field: 'spec.parameters.namespace', reason: 'FieldValueRequired', message: "Required value: `parameters.scope` is set to 'Namespace'" }]],
    ['scope Namespace with a bad namespace', { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Namespace', namespace: 'Infra' } }, [
      { field: 'spec.parameters.namespace', reason: 'FieldValueInvalid', message: `Invalid value: "Infra": ${LABEL}` }]],
    ['scope Cluster with a namespace', { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'infra' } }, [
      { field: 'spec.parameters.namespace', reason: 'FieldValueForbidden', message: "Forbidden: `parameters.scope` is set to 'Cluster'" }]],
  ];
  invalid.forEach(([what, spec, causes], i) => {
    it(`refuses ${what}, storing nothing`, async () => {
      expectInvalid(await rejectedLeavingStore(t, path(), () => t.post(path(), klass(`invalid-${i}`, spec))), causes);
    });
  });

  it('keeps spec.controller immutable; other spec changes bump generation', async () => {
    expect((await t.post(path(), klass('immutable', { controller: 'example.com/one' }))).status).to.equal(201);
    const res = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('immutable'), { spec: { controller: 'example.com/two' } }));
    expectInvalid(res, [{ field: 'spec.controller', reason: 'FieldValueInvalid', message: 'Invalid value: "example.com/two": field is immutable' }]);
    const changed = await mergePatch(t, path('immutable'), { spec: { parameters: { kind: 'K', name: 'n' } } });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.metadata.generation).to.equal(2);
    expect(changed.body.spec.parameters.scope).to.equal('Cluster');
  });

  it('prints NAME CONTROLLER PARAMETERS AGE as kubectl does', async () => {
    await t.post(path(), klass('tbl-none', { controller: 'example.com/none' }));
    await t.post(path(), klass('tbl-group', { controller: 'example.com/g', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } }));
    await t.post(path(), klass('tbl-core', { controller: 'example.com/c', parameters: { kind: 'ConfigMap', name: 'cm', scope: 'Namespace', namespace: 'ns' } }));
    const res = await t.get(path(), TABLE);
    expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Controller', 'Parameters', 'Age']);
    const rows = new Map<string, unknown[]>(res.body.rows.map((r: Body) => [r.cells[0], r.cells.slice(0, 3)]));
    expect(rows.get('tbl-none')).to.deep.equal(['tbl-none', 'example.com/none', '<none>']);
    expect(rows.get('tbl-group')).to.deep.equal(['tbl-group', 'example.com/g', 'Params.k8s.example.com/p']);
    expect(rows.get('tbl-core')).to.deep.equal(['tbl-core', 'example.com/c', 'ConfigMap/cm']);
  });

  describe('--runtime-config', () => {
    let off: TestServer;
    before(async () => { off = await startTestServer(['--flavor=kubernetes', '--runtime-config=networking.k8s.io/v1=false']); });
    after(async () => { await off?.stop(); });

    it('networking.k8s.io/v1=false takes the group version out of discovery and its paths', async () => {
      expect((await off.get('/apis/networking.k8s.io/v1')).status).to.equal(404);
      expect((await off.get('/apis/networking.k8s.io/v1/ingressclasses')).status).to.equal(404);
      const groups = (await off.get('/apis')).body.groups.map((g: Body) => g.name);
      expect(groups).not.to.include('networking.k8s.io');
      expect(groups).to.include('apps');
    });
  });
});
