/**
 * Dynamic admission webhooks, which requests reach them and what they receive: a webhook server
 * of the test's own (HTTPS, its own CA) registered through MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration objects. Every request field of AdmissionReview v1 for create,
 * update (PUT and the status subresource) and delete; rules with and without a match (operations,
 * groups, versions, `*`, `* / *`, `namespaces/*`, `* /status`, scope); objectSelector on the
 * object or the old object; namespaceSelector on the namespace, on a Namespace's own labels, and
 * no effect on other cluster-scoped kinds; the configuration kinds never sent to webhooks.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, WITHOUT_NAMESPACE_DEFAULTS, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';

const NS = 'hooked';

/** Retries a create until the RBAC policy index has caught up with a new binding. */
async function eventuallyCreated(make: () => Promise<HttpResponse>): Promise<HttpResponse> {
  let res = await make();
  for (let i = 0; i < 50 && res.status === 403; i++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await make();
  }
  return res;
}

describe('Admission webhooks: matching and review contents', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  let n = 0;
  const cm = (labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}`, ...(labels ? { labels } : {}) }, data: { a: '1' } });
  const createCm = async (ns = NS, labels?: Record<string, string>) => {
    const res = await t.post(`/api/v1/namespaces/${ns}/configmaps`, cm(labels));
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  before(async () => {
    // No controller writes into new namespaces: every call a webhook gets is the test's.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    hooks = await startAdmissionWebhookServer();
    configs = new WebhookConfigs(t);
    for (const [name, labels] of [[NS, { team: 'a' }], ['other', { team: 'b' }]] as const) {
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })).status).to.equal(201);
    }
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

  it('sends every request field of a v1 review for create, update and delete', async () => {
    const all = { operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };
    await configs.create('validating', 'review-fields', [hookEntry(hooks, '/fields', { rules: [all] })]);
    const created = await t.post(`/api/v1/namespaces/${NS}/configmaps?fieldManager=tester`, cm({ x: 'y' }));
    expect(created.status, created.text).to.equal(201);
    const name = created.body.metadata.name;
    const [c] = hooks.callsTo('/fields');
    expect(c.timeout).to.equal('5s');
    expect(c.headers['content-type']).to.equal('application/json');
    expect(c.review.apiVersion).to.equal('admission.orch.io/v1');
    expect(c.review.kind).to.equal('AdmissionReview');
    const r = c.review.request;
    expect(r.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(r.kind).to.deep.equal({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(r.resource).to.deep.equal({ group: '', version: 'v1', resource: 'configmaps' });
    expect(r.requestKind).to.deep.equal({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(r.requestResource).to.deep.equal({ group: '', version: 'v1', resource: 'configmaps' });
    expect(r).to.not.have.property('subResource');
    expect(r.name).to.equal(name);
    expect(r.namespace).to.equal(NS);
    expect(r.operation).to.equal('CREATE');
    expect(r.userInfo.username).to.equal('orch-admin');
    expect(r.userInfo.groups).to.include.members(['system:masters', 'system:authenticated']);
    expect(r.object).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(r.object.metadata).to.include({ name, namespace: NS });
    expect(r.object.data).to.deep.equal({ a: '1' });
    expect(r.oldObject).to.equal(null);
    expect(r.dryRun).to.equal(false);
    expect(r.options).to.deep.equal({ kind: 'CreateOptions', apiVersion: 'meta.orch.io/v1', fieldManager: 'tester' });

    const current = (await t.get(`/api/v1/namespaces/${NS}/configmaps/${name}`)).body;
    const updated = await t.put(`/api/v1/namespaces/${NS}/configmaps/${name}?fieldManager=tester`, { ...current, data: { a: '2' } });
    expect(updated.status, updated.text).to.equal(200);
    const u = hooks.callsTo('/fields')[1].review.request;
    expect(u.operation).to.equal('UPDATE');
    expect(u.object.data).to.deep.equal({ a: '2' });
    expect(u.oldObject.data).to.deep.equal({ a: '1' });
    expect(u.oldObject).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(u.options).to.deep.equal({ kind: 'UpdateOptions', apiVersion: 'meta.orch.io/v1', fieldManager: 'tester' });

    const deleted = await t.del(`/api/v1/namespaces/${NS}/configmaps/${name}?dryRun=All`, { propagationPolicy: 'Foreground' });
    expect(deleted.status, deleted.text).to.equal(200);
    const d = hooks.callsTo('/fields')[2].review.request;
    expect(d.operation).to.equal('DELETE');
    expect(d.object).to.equal(null);
    expect(d.oldObject.data).to.deep.equal({ a: '2' });
    expect(d.dryRun).to.equal(true);
    expect(d.options).to.deep.equal({ kind: 'DeleteOptions', apiVersion: 'meta.orch.io/v1', propagationPolicy: 'Foreground', dryRun: ['All'] });
  });

  it('carries the user, uid, groups and extra of the requester', async () => {
    const rbac = 'rbac.authorization.orch.io';
    const binding = {
      apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'carol-edit' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'User', apiGroup: rbac, name: 'carol' }],
    };
    expect((await t.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, binding)).status).to.equal(201);
    await configs.create('validating', 'user-info', [hookEntry(hooks, '/user')]);
    const res = await eventuallyCreated(() => t.post(`/api/v1/namespaces/${NS}/configmaps`, cm(), {
      headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'devs', 'Impersonate-Uid': 'u-123', 'Impersonate-Extra-Scopes': 'read' },
    }));
    expect(res.status, res.text).to.equal(201);
    const r = hooks.callsTo('/user')[0].review.request;
    expect(r.userInfo).to.deep.equal({ username: 'carol', uid: 'u-123', groups: ['devs', 'system:authenticated'], extra: { scopes: ['read'] } });
  });

  it('matches operations, groups, versions and resources, and nothing else', async () => {
    await configs.create('validating', 'rules', [
      hookEntry(hooks, '/create-only'),
      hookEntry(hooks, '/update-only', { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
      hookEntry(hooks, '/other-group', { rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['*'], resources: ['*'] }] }),
      hookEntry(hooks, '/other-version', { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v2'], resources: ['configmaps'] }] }),
      hookEntry(hooks, '/secrets', { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] }),
      hookEntry(hooks, '/star', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
    ]);
    await createCm();
    const paths = hooks.calls.map((c) => c.path).sort();
    expect(paths).to.deep.equal(['/create-only', '/star']);
  });

  it('tells subresources apart: * and namespaces leave them out, */*, namespaces/* and */status take them', async () => {
    const rule = (resources: string[]) => [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources }];
    await configs.create('validating', 'subresources', [
      hookEntry(hooks, '/star', { rules: rule(['*']) }),
      hookEntry(hooks, '/star-star', { rules: rule(['*/*']) }),
      hookEntry(hooks, '/ns', { rules: rule(['namespaces']) }),
      hookEntry(hooks, '/ns-any', { rules: rule(['namespaces/*']) }),
      hookEntry(hooks, '/any-status', { rules: rule(['*/status']) }),
      hookEntry(hooks, '/ns-status', { rules: rule(['namespaces/status']) }),
      hookEntry(hooks, '/ns-finalize', { rules: rule(['namespaces/finalize']) }),
    ]);
    const ns = (await t.get(`/api/v1/namespaces/${NS}`)).body;
    const res = await t.put(`/api/v1/namespaces/${NS}/status`, ns);
    expect(res.status, res.text).to.equal(200);
    expect(hooks.calls.map((c) => c.path).sort()).to.deep.equal(['/any-status', '/ns-any', '/ns-status', '/star-star']);
    const r = hooks.callsTo('/ns-status')[0].review.request;
    expect(r.subResource).to.equal('status');
    expect(r.requestSubResource).to.equal('status');
    expect(r.name).to.equal(NS);

    hooks.calls.length = 0;
    const again = (await t.get(`/api/v1/namespaces/${NS}`)).body;
    expect((await t.put(`/api/v1/namespaces/${NS}`, again)).status).to.equal(200);
    expect(hooks.calls.map((c) => c.path).sort()).to.deep.equal(['/ns', '/ns-any', '/star', '/star-star']);
  });

  it('matches scope: Namespaced objects, Cluster objects (Namespaces among them), or both', async () => {
    const rule = (scope: string) => [{ operations: ['CREATE'], apiGroups: ['', 'rbac.authorization.orch.io'], apiVersions: ['v1'], resources: ['configmaps', 'namespaces', 'clusterroles'], scope }];
    await configs.create('validating', 'scope', [
      hookEntry(hooks, '/namespaced', { rules: rule('Namespaced') }),
      hookEntry(hooks, '/cluster', { rules: rule('Cluster') }),
      hookEntry(hooks, '/all', { rules: rule('*') }),
    ]);
    await createCm();
    expect(hooks.calls.map((c) => c.path).sort()).to.deep.equal(['/all', '/namespaced']);
    hooks.calls.length = 0;
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scoped-ns' } })).status).to.equal(201);
    expect(hooks.calls.map((c) => c.path).sort()).to.deep.equal(['/all', '/cluster']);
    hooks.calls.length = 0;
    const role = { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRole', metadata: { name: 'scoped-role' }, rules: [] };
    expect((await t.post('/apis/rbac.authorization.orch.io/v1/clusterroles', role)).status).to.equal(201);
    expect(hooks.calls.map((c) => c.path).sort()).to.deep.equal(['/all', '/cluster']);
  });

  it('objectSelector: the object or the old object must match', async () => {
    const update = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };
    await configs.create('validating', 'object-selector', [
      hookEntry(hooks, '/selected', { rules: [update], objectSelector: { matchLabels: { watch: 'yes' } } }),
      hookEntry(hooks, '/absent', { rules: [update], objectSelector: { matchExpressions: [{ key: 'watch', operator: 'DoesNotExist' }] } }),
    ]);
    const plain = await createCm(NS);
    expect(hooks.calls.map((c) => c.path)).to.deep.equal(['/absent']);
    hooks.calls.length = 0;
    const watched = await createCm(NS, { watch: 'yes' });
    expect(hooks.calls.map((c) => c.path)).to.deep.equal(['/selected']);
    hooks.calls.length = 0;
    // The label removed: the old object still matches.
    const { labels: _l, ...meta } = watched.metadata;
    expect((await t.put(`/api/v1/namespaces/${NS}/configmaps/${meta.name}`, { ...watched, metadata: meta })).status).to.equal(200);
    expect(hooks.calls.map((c) => c.path).sort()).to.deep.equal(['/absent', '/selected']);
    hooks.calls.length = 0;
    expect((await t.put(`/api/v1/namespaces/${NS}/configmaps/${plain.metadata.name}`, { ...plain, data: { b: '2' } })).status).to.equal(200);
    expect(hooks.calls.map((c) => c.path)).to.deep.equal(['/absent']);
  });

  it('namespaceSelector: the namespace\'s labels, a Namespace\'s own, and no effect on other cluster-scoped kinds', async () => {
    const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['', 'rbac.authorization.orch.io'], apiVersions: ['v1'], resources: ['configmaps', 'namespaces', 'clusterroles'] }];
    await configs.create('validating', 'namespace-selector', [
      hookEntry(hooks, '/team-a', { rules, namespaceSelector: { matchLabels: { team: 'a' } } }),
    ]);
    await createCm(NS);
    expect(hooks.calls.length).to.equal(1);
    await createCm('other');
    expect(hooks.calls.length).to.equal(1);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a-2', labels: { team: 'a' } } })).status).to.equal(201);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c', labels: { team: 'c' } } })).status).to.equal(201);
    expect(hooks.calls.map((c) => c.review.request.name)).to.deep.equal([hooks.calls[0].review.request.name, 'team-a-2']);
    const role = { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRole', metadata: { name: 'ns-selector-role' }, rules: [] };
    expect((await t.post('/apis/rbac.authorization.orch.io/v1/clusterroles', role)).status).to.equal(201);
    expect(hooks.calls.length).to.equal(3);
    expect(hooks.calls[2].review.request.kind.kind).to.equal('ClusterRole');
  });

  it('never sends the webhook configuration kinds themselves', async () => {
    const everything = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }];
    await configs.create('validating', 'everything', [hookEntry(hooks, '/everything', { rules: everything })]);
    await configs.create('mutating', 'also-everything', [hookEntry(hooks, '/everything-m', { rules: everything })]);
    expect(hooks.calls).to.have.length(0);
    await configs.remove('validating', 'everything');
    await createCm();
    expect(hooks.calls.map((c) => c.review.request.kind.kind)).to.include('ConfigMap');
    expect(hooks.calls.filter((c) => /WebhookConfiguration$/.test(c.review.request.kind.kind))).to.have.length(0);
  });
});
