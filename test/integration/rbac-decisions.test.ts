/**
 * RBAC decisions, end to end: one policy (roles of every shape, bound to users, groups and a
 * service account), then a table of who x request x expected answer. The expectations are what
 * kube-apiserver decides for the same policy under its RBAC semantics (rules only add; a
 * RoleBinding grants in its namespace; resourceNames never match list or create, but for a list or
 * watch that names the object with a `metadata.name` field selector; `*\/status`;
 * non-resource URLs with `*` suffixes; system:discovery and system:public-info-viewer from the
 * bootstrap policy): an allowed request reaches the handler (200/201, or 404 when the object or
 * path does not exist), a refused one is 403 with Kubernetes' sentence.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';

const RBAC = '/apis/rbac.authorization.orch.io/v1';
const G = 'rbac.authorization.orch.io';

type Who = 'admin' | 'alice' | 'dora' | 'builder' | 'auditor' | 'carol' | 'dave' | 'erin' | 'frank' | 'nobody' | 'anonymous';

interface Row {
  who: Who;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  /** The 403's message, when it matters. */
  message?: string;
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describe('RBAC decisions (users x requests)', function () {
  this.timeout(120_000);
  let t: TestServer;
  let ids: Record<Who, { certPem: string; keyPem: string } | null | undefined>;

  before(async () => {
    t = await startTestServer(['--authorization-mode=RBAC']);
    ids = {
      admin: undefined,
      alice: t.identity('alice'),
      dora: t.identity('dora', ['devs']),
      builder: t.identity('system:serviceaccount:team:builder', ['system:serviceaccounts', 'system:serviceaccounts:team']),
      auditor: t.identity('ann', ['auditors']),
      carol: t.identity('carol'),
      dave: t.identity('dave'),
      erin: t.identity('erin'),
      frank: t.identity('frank'),
      nobody: t.identity('nobody'),
      anonymous: null,
    };
    const must = async (r: Promise<HttpResponse>) => {
      const res = await r;
      if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
    };
    for (const ns of ['team', 'other']) await must(t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    const clusterRole = (name: string, rules: unknown[]) => must(t.post(`${RBAC}/clusterroles`, { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name }, rules }));
    const role = (name: string, rules: unknown[]) => must(t.post(`${RBAC}/namespaces/team/roles`, { apiVersion: `${G}/v1`, kind: 'Role', metadata: { name }, rules }));
    const subject = (kind: string, name: string, namespace?: string) =>
      (kind === 'ServiceAccount' ? { kind, name, namespace } : { kind, name, apiGroup: G });
    const clusterBinding = (name: string, roleName: string, subjects: unknown[]) => must(t.post(`${RBAC}/clusterrolebindings`, {
      apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName }, subjects,
    }));
    const binding = (name: string, kind: string, roleName: string, subjects: unknown[]) => must(t.post(`${RBAC}/namespaces/team/rolebindings`, {
      apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind, name: roleName }, subjects,
    }));
    await role('cm-editor', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'] }]);
    await role('named-secret', [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['app-secret'], verbs: ['get', 'update', 'list'] }]);
    await clusterRole('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
    await clusterRole('status-updater', [{ apiGroups: [''], resources: ['*/status'], verbs: ['update', 'patch', 'get'] }]);
    await clusterRole('health-checker', [{ nonResourceURLs: ['/healthz', '/healthz/*', '/metrics'], verbs: ['get'] }]);
    await clusterRole('storage-admin', [{ apiGroups: ['storage.orch.io'], resources: ['*'], verbs: ['*'] }]);
    await clusterRole('impersonator', [{ apiGroups: [''], resources: ['users'], resourceNames: ['bob-target'], verbs: ['impersonate'] }]);
    await binding('cm', 'Role', 'cm-editor', [subject('User', 'alice')]);
    await binding('secret', 'Role', 'named-secret', [subject('Group', 'devs')]);
    await binding('pods', 'ClusterRole', 'pod-reader', [subject('ServiceAccount', 'builder', 'team')]);
    await clusterBinding('readers', 'pod-reader', [subject('Group', 'auditors')]);
    await clusterBinding('status', 'status-updater', [subject('User', 'carol')]);
    await clusterBinding('health', 'health-checker', [subject('User', 'dave')]);
    await clusterBinding('storage', 'storage-admin', [subject('User', 'erin')]);
    await clusterBinding('imp', 'impersonator', [subject('User', 'frank')]);
    await must(t.post('/api/v1/namespaces/team/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app-secret' } }));
    await must(t.post('/api/v1/namespaces/team/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-secret' } }));
    await must(t.post('/api/v1/namespaces/team/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] },
    }));
  });
  after(async () => { await t?.stop(); });

  const rows: Row[] = [
    // A Role through a RoleBinding: only its verbs, only in its namespace.
    { who: 'alice', method: 'GET', path: '/api/v1/namespaces/team/configmaps', status: 200 },
    { who: 'alice', method: 'POST', path: '/api/v1/namespaces/team/configmaps', body: cm('a1'), status: 201 },
    { who: 'alice', method: 'DELETE', path: '/api/v1/namespaces/team/configmaps/a1', status: 200 },
    { who: 'alice', method: 'GET', path: '/api/v1/namespaces/team/configmaps?watch=1&timeoutSeconds=1', status: 403,
      message: 'configmaps is forbidden: User "alice" cannot watch resource "configmaps" in API group "" in the namespace "team"' },
    { who: 'alice', method: 'DELETE', path: '/api/v1/namespaces/team/configmaps', status: 403,
      message: 'configmaps is forbidden: User "alice" cannot deletecollection resource "configmaps" in API group "" in the namespace "team"' },
    { who: 'alice', method: 'GET', path: '/api/v1/namespaces/other/configmaps', status: 403,
      message: 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "other"' },
    { who: 'alice', method: 'GET', path: '/api/v1/configmaps', status: 403,
      message: 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope' },
    { who: 'alice', method: 'GET', path: '/api/v1/namespaces/team/secrets/app-secret', status: 403,
      message: 'secrets "app-secret" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "team"' },
    // resourceNames: the named object only, never list.
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets/app-secret', status: 200 },
    { who: 'dora', method: 'PUT', path: '/api/v1/namespaces/team/secrets/app-secret', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app-secret' }, data: { a: 'Yg==' } }, status: 200 },
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets/db-secret', status: 403 },
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets', status: 403 },
    { who: 'dora', method: 'DELETE', path: '/api/v1/namespaces/team/secrets/app-secret', status: 403 },
    // A list naming the object with a metadata.name field selector is a list of that name, as
    // kube-apiserver authorizes it (kube-scheduler lists extension-apiserver-authentication so).
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%3Dapp-secret', status: 200 },
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%3D%3Dapp-secret%2Cmetadata.namespace%3Dteam', status: 200 },
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%3Ddb-secret', status: 403 },
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%21%3Dapp-secret', status: 403 },
    { who: 'dora', method: 'GET', path: '/api/v1/namespaces/team/secrets?watch=1&fieldSelector=metadata.name%3Dapp-secret', status: 403,
      message: 'secrets "app-secret" is forbidden: User "dora" cannot watch resource "secrets" in API group "" in the namespace "team"' },
    // A ClusterRole through a RoleBinding to a service account: that namespace only.
    { who: 'builder', method: 'GET', path: '/api/v1/namespaces/team/pods', status: 200 },
    { who: 'builder', method: 'GET', path: '/api/v1/namespaces/team/pods/p', status: 200 },
    { who: 'builder', method: 'GET', path: '/api/v1/namespaces/other/pods', status: 403 },
    { who: 'builder', method: 'GET', path: '/api/v1/pods', status: 403 },
    { who: 'builder', method: 'DELETE', path: '/api/v1/namespaces/team/pods/p', status: 403,
      message: 'pods "p" is forbidden: User "system:serviceaccount:team:builder" cannot delete resource "pods" in API group "" in the namespace "team"' },
    // A ClusterRole through a ClusterRoleBinding to a group: everywhere, all namespaces included.
    { who: 'auditor', method: 'GET', path: '/api/v1/pods', status: 200 },
    { who: 'auditor', method: 'GET', path: '/api/v1/namespaces/other/pods', status: 200 },
    { who: 'auditor', method: 'GET', path: '/api/v1/namespaces/team/pods/p/status', status: 403 },
    { who: 'auditor', method: 'POST', path: '/api/v1/namespaces/team/pods', body: {}, status: 403 },
    // */status: the status subresource of any resource of the group, not the resource itself.
    { who: 'carol', method: 'GET', path: '/api/v1/namespaces/team/pods/p/status', status: 200 },
    { who: 'carol', method: 'GET', path: '/api/v1/namespaces/team/status', status: 200 },
    { who: 'carol', method: 'GET', path: '/api/v1/namespaces/team/pods/p', status: 403,
      message: 'pods "p" is forbidden: User "carol" cannot get resource "pods" in API group "" in the namespace "team"' },
    { who: 'carol', method: 'GET', path: '/apis/storage.orch.io/v1/storageclasses/x/status', status: 403 },
    // Non-resource URLs, with a `*` suffix; an allowed path that does not exist is 404, not 403.
    { who: 'dave', method: 'GET', path: '/healthz/etcd', status: 200 },
    { who: 'dave', method: 'GET', path: '/metrics', status: 200 },
    { who: 'dave', method: 'GET', path: '/healthz/no-such-check', status: 404 },
    { who: 'nobody', method: 'GET', path: '/healthz/etcd', status: 403, message: 'forbidden: User "nobody" cannot get path "/healthz/etcd"' },
    { who: 'nobody', method: 'GET', path: '/metrics', status: 403, message: 'forbidden: User "nobody" cannot get path "/metrics"' },
    // `*` on a group: every resource and verb of it, nothing outside.
    { who: 'erin', method: 'POST', path: '/apis/storage.orch.io/v1/storageclasses', body: { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x.io/p' }, status: 201 },
    { who: 'erin', method: 'DELETE', path: '/apis/storage.orch.io/v1/storageclasses', status: 200 },
    { who: 'erin', method: 'GET', path: '/api/v1/namespaces/team/pods', status: 403 },
    // Impersonation: verb impersonate on users, limited by resourceNames; then the target's own rights.
    { who: 'frank', method: 'GET', path: '/api/v1/namespaces', headers: { 'Impersonate-User': 'bob-target' }, status: 403,
      message: 'namespaces is forbidden: User "bob-target" cannot list resource "namespaces" in API group "" at the cluster scope' },
    { who: 'frank', method: 'GET', path: '/version', headers: { 'Impersonate-User': 'bob-target' }, status: 200 },
    { who: 'frank', method: 'GET', path: '/version', headers: { 'Impersonate-User': 'someone' }, status: 403,
      message: 'users "someone" is forbidden: User "frank" cannot impersonate resource "users" in API group "" at the cluster scope' },
    { who: 'alice', method: 'GET', path: '/version', headers: { 'Impersonate-User': 'bob-target' }, status: 403 },
    // The bootstrap policy: discovery for authenticated users, health and version for everyone.
    { who: 'nobody', method: 'GET', path: '/api', status: 200 },
    { who: 'nobody', method: 'GET', path: '/apis', status: 200 },
    { who: 'nobody', method: 'GET', path: '/version', status: 200 },
    { who: 'nobody', method: 'GET', path: '/api/v1/namespaces', status: 403 },
    { who: 'nobody', method: 'GET', path: '/openapi/v2', status: 200 },
    { who: 'anonymous', method: 'GET', path: '/healthz', status: 200 },
    { who: 'anonymous', method: 'GET', path: '/readyz', status: 200 },
    { who: 'anonymous', method: 'GET', path: '/version', status: 200 },
    { who: 'anonymous', method: 'GET', path: '/api', status: 403, message: 'forbidden: User "system:anonymous" cannot get path "/api"' },
    { who: 'anonymous', method: 'GET', path: '/openapi/v2', status: 403 },
    { who: 'anonymous', method: 'GET', path: '/api/v1/namespaces/team/configmaps', status: 403 },
    // system:masters: everything.
    { who: 'admin', method: 'GET', path: '/api/v1/secrets', status: 200 },
    { who: 'admin', method: 'GET', path: '/metrics', status: 200 },
  ];

  for (const row of rows) {
    const label = `${row.who}: ${row.method} ${row.path}${row.headers ? ` as ${Object.values(row.headers).join(',')}` : ''} -> ${row.status}`;
    it(label, async () => {
      const res = await t.request(row.method, row.path, { body: row.body, headers: row.headers, identity: ids[row.who] });
      expect(res.status, res.text).to.equal(row.status);
      if (row.status === 403) {
        expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
        if (row.message) expect(res.body.message).to.equal(row.message);
      }
    });
  }
});
