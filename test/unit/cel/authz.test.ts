/**
 * The authorizer CEL library as match conditions and admission policies use it: each builder
 * (path, group, resource, subresource, namespace, name, serviceAccount, fieldSelector,
 * labelSelector, requestResource) reaches the authorization callback with Kubernetes' attributes,
 * decisions read back through allowed/reason/errored/error, and Kubernetes' errors for bad input.
 * The callback is a fake that records what it was asked.
 */

import { expect } from 'chai';
import { AUTHORIZER_VARIABLE, CelAuthzAttributes, CelAuthzResult, celAuthorizer, celEnvironment, compile } from '../../../lib/cel';

const user = { name: 'alice', groups: ['devs', 'system:authenticated'] };

function fake(answer: (a: CelAuthzAttributes) => CelAuthzResult) {
  const asked: CelAuthzAttributes[] = [];
  const authorize = async (a: CelAuthzAttributes): Promise<CelAuthzResult> => {
    asked.push(a);
    return answer(a);
  };
  return { asked, authorize };
}

const env = celEnvironment({ purpose: 'match-condition', variables: [{ name: 'object', type: 'dyn' }, AUTHORIZER_VARIABLE] });

async function run(expr: string, authz: ReturnType<typeof fake>, request?: Parameters<typeof celAuthorizer>[2]) {
  const c = compile(env, expr);
  if (!c.ok) throw new Error(c.error);
  return c.program.evaluateAsync({ object: { metadata: { name: 'x' } }, authorizer: celAuthorizer(authz.authorize, user, request) });
}

describe('cel: the authorizer library', () => {
  const allowDeployments = () => fake((a) => (a.resource === 'deployments' ? { decision: 'allow', reason: 'rbac says yes' } : { decision: 'no-opinion', reason: 'nope' }));

  const table: Array<{ expr: string; value: unknown; asked?: Partial<CelAuthzAttributes> }> = [
    { expr: "authorizer.group('apps').resource('deployments').check('get').allowed()", value: true,
      asked: { verb: 'get', isResourceRequest: true, apiGroup: 'apps', apiVersion: '*', resource: 'deployments', subresource: '', namespace: '', name: '' } },
    { expr: "authorizer.group('').resource('pods').check('get').allowed()", value: false, asked: { apiGroup: '', resource: 'pods' } },
    { expr: "authorizer.group('apps').resource('deployments').subresource('status').namespace('ns').name('n').check('update').allowed()", value: true,
      asked: { verb: 'update', subresource: 'status', namespace: 'ns', name: 'n' } },
    { expr: "authorizer.group('apps').resource('deployments').check('get').reason()", value: 'rbac says yes' },
    { expr: "authorizer.group('').resource('pods').check('get').reason()", value: 'nope' },
    { expr: "authorizer.group('apps').resource('deployments').check('get').errored()", value: false },
    { expr: "authorizer.group('apps').resource('deployments').check('get').error()", value: '' },
    { expr: "authorizer.path('/healthz').check('get').allowed()", value: false,
      asked: { verb: 'get', isResourceRequest: false, path: '/healthz', resource: '' } },
    { expr: "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=x').check('list').allowed()", value: false,
      asked: { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x', verb: 'list' } },
  ];
  for (const row of table) {
    it(`${row.expr} → ${JSON.stringify(row.value)}`, async () => {
      const authz = allowDeployments();
      const r = await run(row.expr, authz);
      expect(r).to.deep.include({ ok: true, value: row.value });
      expect(authz.asked).to.have.length(1);
      expect(authz.asked[0].user).to.deep.equal(user);
      if (row.asked) expect(authz.asked[0]).to.deep.include(row.asked);
    });
  }

  it('checks as a service account with serviceAccount(namespace, name)', async () => {
    const authz = fake(() => ({ decision: 'allow', reason: '' }));
    const r = await run("authorizer.serviceAccount('kube-system', 'builder').group('').resource('secrets').check('get').allowed()", authz);
    expect(r).to.deep.include({ ok: true, value: true });
    expect(authz.asked[0].user).to.deep.equal({ name: 'system:serviceaccount:kube-system:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] });
  });

  it('checks the request\'s own resource with authorizer.requestResource', async () => {
    const authz = fake(() => ({ decision: 'allow', reason: '' }));
    const r = await run("authorizer.requestResource.check('approve').allowed()", authz,
      { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource: 'approval', name: 'csr1' });
    expect(r).to.deep.include({ ok: true, value: true });
    expect(authz.asked[0]).to.deep.include({ apiGroup: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource: 'approval', name: 'csr1', namespace: '', verb: 'approve' });
  });

  it('reports an authorizer error through errored() and error()', async () => {
    const authz = fake(() => ({ decision: 'no-opinion', reason: '', error: 'webhook unreachable' }));
    expect(await run("authorizer.path('/x').check('get').errored()", authz)).to.deep.include({ ok: true, value: true });
    expect(await run("authorizer.path('/x').check('get').error()", authz)).to.deep.include({ ok: true, value: 'webhook unreachable' });
  });

  it('combines checks with the rest of the expression (short-circuits)', async () => {
    const authz = allowDeployments();
    expect(await run("object.metadata.name == 'x' || authorizer.path('/a').check('get').allowed()", authz)).to.deep.include({ ok: true, value: true });
    expect(authz.asked).to.have.length(0);
  });

  const errors: Array<[string, string]> = [
    ["authorizer.path('  ').check('get').allowed()", 'path must not be empty'],
    ["authorizer.group('apps').resource('').check('get').allowed()", 'resource must not be empty'],
    ["authorizer.serviceAccount('ns', 'Not_Valid').group('').resource('pods').check('get').allowed()", 'Invalid service account name'],
    ["authorizer.serviceAccount('not.a.label', 'sa').group('').resource('pods').check('get').allowed()", 'Invalid service account namespace'],
  ];
  for (const [expr, message] of errors) {
    it(`${expr} is the evaluation error "${message}"`, async () => {
      const r = await run(expr, allowDeployments());
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.error).to.contain(message);
    });
  }

  it('type-checks: a check is a Decision, not a bool', () => {
    expect(compile(env, "authorizer.path('/a').check('get')", { resultTypes: ['bool'] }).ok).to.equal(false);
    expect(compile(env, "authorizer.path('/a').check('get').allowed()", { resultTypes: ['bool'] }).ok).to.equal(true);
    expect(compile(env, "authorizer.group('a').check('get')").ok).to.equal(false);
  });

  it('is not declared where Kubernetes has no authorizer (CRD rules)', () => {
    const crd = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: 'dyn' }] });
    expect(compile(crd, "authorizer.path('/a').check('get').allowed()").ok).to.equal(false);
  });
});
