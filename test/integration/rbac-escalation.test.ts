/**
 * RBAC escalation prevention through the real server: users (client certificates) who may write
 * roles or bindings still cannot grant what they do not hold, unless they have `escalate` (roles)
 * or `bind` (bindings) on the role; system:masters always may. Refusals are kube-apiserver's 403
 * with its message, and leave the store untouched.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;
const NS = `${RBAC}/namespaces/esc`;
type Rule = Record<string, string[]>;
type Identity = { certPem: string; keyPem: string };

const role = (name: string, rules: Rule[], extra: Record<string, unknown> = {}) => ({ apiVersion: `${G}/v1`, kind: 'Role', metadata: { name, ...extra }, rules });
const clusterRole = (name: string, rules: Rule[], more: Record<string, unknown> = {}) => ({ apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name }, rules, ...more });
const user = (name: string) => ({ kind: 'User', apiGroup: G, name });
const roleBinding = (name: string, kind: string, roleName: string, who: string) =>
  ({ apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind, name: roleName }, subjects: [user(who)] });
const clusterRoleBinding = (name: string, roleName: string, who: string) =>
  ({ apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName }, subjects: [user(who)] });

const PODS_DELETE = '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}';
const notHeld = (who: string, groups: string) => `user "${who}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n`;

function expectForbidden(res: HttpResponse, resource: string, name: string, reason: string): void {
  expect(res.status, res.text).to.equal(403);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
  expect(res.body.message).to.equal(`${resource}.${G} "${name}" is forbidden: ${reason}`);
  expect(res.body.details).to.deep.equal({ name, group: G, kind: resource });
}

describe('RBAC escalation prevention', function () {
  this.timeout(120_000);
  let t: TestServer;
  let bob: Identity;
  let carl: Identity;
  let dan: Identity;

  const must = async (r: Promise<HttpResponse>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
    return res;
  };
  /** Waits until the policy just written is in the authorizer's memory (the user may do `path`). */
  const granted = (who: Identity, path: string) => eventually(async () => (await t.get(path, { identity: who })).status === 200);

  before(async () => {
    t = await startTestServer(['--authorization-mode=RBAC']);
    bob = t.identity('bob', ['g1']);
    carl = t.identity('carl');
    dan = t.identity('dan');
    await must(t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'esc' } }));
    // bob and carl may write roles in esc and read pods there; neither may delete pods.
    await must(t.post(`${NS}/roles`, role('role-writer', [
      { apiGroups: [G], resources: ['roles'], verbs: ['create', 'get', 'list', 'update', 'patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ])));
    await must(t.post(`${NS}/rolebindings`, roleBinding('bob-writes-roles', 'Role', 'role-writer', 'bob')));
    await must(t.post(`${NS}/rolebindings`, roleBinding('carl-writes-roles', 'Role', 'role-writer', 'carl')));
    // carl is also bound to a ClusterRole that does not exist: a resolution error.
    await must(t.post(`${NS}/rolebindings`, roleBinding('carl-ghost', 'ClusterRole', 'ghost', 'carl')));
    // bob may also write ClusterRoles (but holds nothing cluster-wide beyond that).
    await must(t.post(`${RBAC}/clusterroles`, clusterRole('clusterrole-writer', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['create', 'get', 'list'] }])));
    await must(t.post(`${RBAC}/clusterrolebindings`, clusterRoleBinding('bob-writes-clusterroles', 'clusterrole-writer', 'bob')));
    // Roles to bind: what dan holds in esc, and more.
    await must(t.post(`${NS}/roles`, role('pod-viewer', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }])));
    await must(t.post(`${NS}/roles`, role('pod-admin', [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }])));
    await must(t.post(`${RBAC}/clusterroles`, clusterRole('cluster-pod-viewer', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }])));
    // dan may write bindings in esc and cluster-wide, and reads pods in esc only.
    await must(t.post(`${NS}/roles`, role('binding-writer', [{ apiGroups: [G], resources: ['rolebindings'], verbs: ['create', 'get', 'list', 'update', 'patch'] }])));
    await must(t.post(`${NS}/rolebindings`, roleBinding('dan-writes-bindings', 'Role', 'binding-writer', 'dan')));
    await must(t.post(`${NS}/rolebindings`, roleBinding('dan-views-pods', 'Role', 'pod-viewer', 'dan')));
    await must(t.post(`${RBAC}/clusterroles`, clusterRole('crb-writer', [{ apiGroups: [G], resources: ['clusterrolebindings'], verbs: ['create', 'get', 'list'] }])));
    await must(t.post(`${RBAC}/clusterrolebindings`, clusterRoleBinding('dan-writes-crbs', 'crb-writer', 'dan')));
    await granted(bob, `${RBAC}/clusterroles`);
    await granted(carl, `${NS}/roles`);
    await granted(dan, `${RBAC}/clusterrolebindings`);
    await granted(dan, '/api/v1/namespaces/esc/pods');
  });
  after(async () => { await t?.stop(); });

  describe('roles', () => {
    it('refuses a Role granting what the user does not hold, in kube-apiserver words, and stores nothing', async () => {
      const res = await t.post(`${NS}/roles`, role('deleter', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }]), { identity: bob });
      expectForbidden(res, 'roles', 'deleter', `${notHeld('bob', '["g1" "system:authenticated"]')}${PODS_DELETE}`);
      expect((await t.get(`${NS}/roles/deleter`)).status).to.equal(404);
    });

    it('lists every missing permission, compacted by resource and sorted; a dry run is refused the same way', async () => {
      const res = await t.post(`${NS}/roles?dryRun=All`, role('wide', [
        { apiGroups: [''], resources: ['secrets', 'pods'], verbs: ['delete', 'get', 'watch'] },
        { apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'], verbs: ['update'] },
      ]), { identity: bob });
      expectForbidden(res, 'roles', 'wide', `${notHeld('bob', '["g1" "system:authenticated"]')}${[
        '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["update"]}',
        '{APIGroups:[""], Resources:["pods"], ResourceNames:["b"], Verbs:["update"]}',
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "watch"]}',
        '{APIGroups:[""], Resources:["secrets"], Verbs:["delete" "get" "watch"]}',
      ].join('\n')}`);
    });

    it('allows a Role within what the user holds, and refuses an update that adds more (the stored role unchanged)', async () => {
      const created = await t.post(`${NS}/roles`, role('reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]), { identity: bob });
      expect(created.status, created.text).to.equal(201);
      const widened = { ...created.body, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }] };
      expectForbidden(await t.put(`${NS}/roles/reader`, widened, { identity: bob }), 'roles', 'reader', `${notHeld('bob', '["g1" "system:authenticated"]')}${PODS_DELETE}`);
      const stored = await t.get(`${NS}/roles/reader`);
      expect(stored.body.rules).to.deep.equal([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
      expect(stored.body.metadata.resourceVersion).to.equal(created.body.metadata.resourceVersion);
    });

    it('lets an update that only touches finalizers through, as the garbage collector needs; a label change is checked', async () => {
      const patch = (body: unknown) => t.request('PATCH', `${NS}/roles/pod-admin`, {
        identity: bob, raw: JSON.stringify(body), headers: { 'content-type': 'application/merge-patch+json' },
      });
      const added = await patch({ metadata: { finalizers: ['example.com/hold'] } });
      expect(added.status, added.text).to.equal(200);
      expect((await patch({ metadata: { finalizers: null } })).status).to.equal(200);
      const res = await patch({ metadata: { labels: { team: 'x' } } });
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.contain('is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["*"]}');
    });

    it('appends the binding resolution errors met while collecting the user\'s rules', async () => {
      const res = await t.post(`${NS}/roles`, role('secret-deleter', [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }]), { identity: carl });
      expectForbidden(res, 'roles', 'secret-deleter', `${notHeld('carl', '["system:authenticated"]')}`
        + `{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}; resolution errors: [clusterroles.${G} "ghost" not found]`);
    });

    it('checks a ClusterRole against cluster-wide rules only, and an aggregationRule needs full authority', async () => {
      // bob reads pods in esc, not cluster-wide.
      const res = await t.post(`${RBAC}/clusterroles`, clusterRole('pod-getter', [
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['get'] },
      ]), { identity: bob });
      expectForbidden(res, 'clusterroles', 'pod-getter', `${notHeld('bob', '["g1" "system:authenticated"]')}${[
        '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}', '{NonResourceURLs:["/logs/*"], Verbs:["get"]}', '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      ].join('\n')}`);
      const agg = clusterRole('aggregate', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } });
      expectForbidden(await t.post(`${RBAC}/clusterroles`, agg, { identity: bob }), 'clusterroles', 'aggregate', 'must have cluster-admin privileges to use the aggregationRule');
      expect((await t.get(`${RBAC}/clusterroles/aggregate`)).status).to.equal(404);
    });

    it('allows any rules to a user with escalate on roles in that namespace', async () => {
      await must(t.post(`${NS}/roles`, role('escalator', [{ apiGroups: [G], resources: ['roles'], verbs: ['escalate'] }])));
      await must(t.post(`${NS}/rolebindings`, roleBinding('bob-escalates', 'Role', 'escalator', 'bob')));
      const deleter = role('deleter', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }]);
      const res = await eventually(async () => {
        const r = await t.post(`${NS}/roles`, deleter, { identity: bob });
        return r.status === 403 ? undefined : r;
      });
      expect(res.status, res.text).to.equal(201);
      expect((await t.get(`${NS}/roles/deleter`)).body.rules).to.deep.equal(deleter.rules);
      // escalate in esc says nothing about ClusterRoles.
      expect((await t.post(`${RBAC}/clusterroles`, clusterRole('pod-getter', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]), { identity: bob })).status).to.equal(403);
    });
  });

  describe('bindings', () => {
    it('refuses binding a role with permissions the user does not hold, and stores nothing', async () => {
      const res = await t.post(`${NS}/rolebindings`, roleBinding('give-admin', 'Role', 'pod-admin', 'eve'), { identity: dan });
      expectForbidden(res, 'rolebindings', 'give-admin', `${notHeld('dan', '["system:authenticated"]')}{APIGroups:[""], Resources:["pods"], Verbs:["*"]}`);
      expect((await t.get(`${NS}/rolebindings/give-admin`)).status).to.equal(404);
    });

    it('allows binding a role whose permissions the user holds in the binding\'s namespace', async () => {
      const res = await t.post(`${NS}/rolebindings`, roleBinding('give-viewer', 'Role', 'pod-viewer', 'eve'), { identity: dan });
      expect(res.status, res.text).to.equal(201);
      // A ClusterRole bound in esc is compared with what dan holds in esc.
      const res2 = await t.post(`${NS}/rolebindings`, roleBinding('give-cluster-viewer', 'ClusterRole', 'cluster-pod-viewer', 'eve'), { identity: dan });
      expect(res2.status, res2.text).to.equal(201);
    });

    it('compares a ClusterRoleBinding with cluster-wide permissions only', async () => {
      const res = await t.post(`${RBAC}/clusterrolebindings`, clusterRoleBinding('give-viewer-everywhere', 'cluster-pod-viewer', 'eve'), { identity: dan });
      expectForbidden(res, 'clusterrolebindings', 'give-viewer-everywhere', `${notHeld('dan', '["system:authenticated"]')}{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`);
    });

    it('refuses binding a role that does not exist', async () => {
      expectForbidden(await t.post(`${NS}/rolebindings`, roleBinding('give-nothing', 'Role', 'nope', 'eve'), { identity: dan }),
        'rolebindings', 'give-nothing', `roles.${G} "nope" not found`);
    });

    it('allows binding with bind on that role (by name), and only that role', async () => {
      await must(t.post(`${NS}/roles`, role('pod-admin-binder', [{ apiGroups: [G], resources: ['roles'], verbs: ['bind'], resourceNames: ['pod-admin'] }])));
      await must(t.post(`${NS}/rolebindings`, roleBinding('dan-binds-pod-admin', 'Role', 'pod-admin-binder', 'dan')));
      const res = await eventually(async () => {
        const r = await t.post(`${NS}/rolebindings`, roleBinding('give-admin', 'Role', 'pod-admin', 'eve'), { identity: dan });
        return r.status === 403 ? undefined : r;
      });
      expect(res.status, res.text).to.equal(201);
      expect((await t.get(`${NS}/rolebindings/give-admin`)).body.roleRef.name).to.equal('pod-admin');
      expect((await t.post(`${NS}/rolebindings`, roleBinding('give-writer', 'Role', 'role-writer', 'eve'), { identity: dan })).status).to.equal(403);
    });

    it('allows a ClusterRoleBinding with bind on the ClusterRole cluster-wide', async () => {
      await must(t.post(`${RBAC}/clusterroles`, clusterRole('viewer-binder', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-pod-viewer'] }])));
      await must(t.post(`${RBAC}/clusterrolebindings`, clusterRoleBinding('dan-binds-viewer', 'viewer-binder', 'dan')));
      const res = await eventually(async () => {
        const r = await t.post(`${RBAC}/clusterrolebindings`, clusterRoleBinding('give-viewer-everywhere', 'cluster-pod-viewer', 'eve'), { identity: dan });
        return r.status === 403 ? undefined : r;
      });
      expect(res.status, res.text).to.equal(201);
    });
  });

  it('always allows system:masters, whatever it is bound to', async () => {
    const root = t.identity('root2', ['system:masters']);
    const everything: Rule[] = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }];
    expect((await t.post(`${RBAC}/clusterroles`, clusterRole('everything', everything), { identity: root })).status).to.equal(201);
    expect((await t.post(`${RBAC}/clusterrolebindings`, clusterRoleBinding('everyone', 'everything', 'eve'), { identity: root })).status).to.equal(201);
    const agg = clusterRole('root-aggregate', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } });
    expect((await t.post(`${RBAC}/clusterroles`, agg, { identity: root })).status).to.equal(201);
  });
});
