/**
 * kubectl (1.32) with the RBAC kinds, against a server with --flavor=kubernetes (kubectl's
 * rbac commands speak rbac.authorization.k8s.io): `create role/clusterrole/rolebinding/
 * clusterrolebinding` (protobuf bodies, kubectl's own checks against discovery), `get` with the
 * kinds' columns and `-o wide`, a refused roleRef change as kubectl prints it, and delete.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const NS = 'default';
const AGE = /^\d+s$/;

describe('kubectl with the RBAC kinds', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-rbac-kinds', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;
  const json = async (args: string[]) => JSON.parse((await ok([...args, '-o', 'json'])).stdout);

  it('api-resources lists the four kinds without short names; explain reads their schema', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=rbac.authorization.k8s.io'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.NAMESPACED, r.KIND])).to.have.deep.members([
      ['clusterrolebindings', '', 'false', 'ClusterRoleBinding'], ['clusterroles', '', 'false', 'ClusterRole'],
      ['rolebindings', '', 'true', 'RoleBinding'], ['roles', '', 'true', 'Role'],
    ]);
    const explain = (await ok(['explain', 'rolebinding.roleRef'])).stdout;
    expect(explain).to.contain('immutable').and.match(/name\s+<string> -required-/);
  });

  it('kubectl create role / clusterrole store the rules kubectl built', async () => {
    expect((await ok(['create', 'role', 'pod-reader', '-n', NS, '--verb=get,list,watch', '--resource=pods,pods/log', '--resource-name=web'])).stdout)
      .to.contain('role.rbac.authorization.k8s.io/pod-reader created');
    const role = await json(['get', 'role', 'pod-reader', '-n', NS]);
    expect(role.rules).to.deep.equal([{ apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web'], verbs: ['get', 'list', 'watch'] }]);

    await ok(['create', 'clusterrole', 'log-reader', '--verb=get', '--non-resource-url=/logs/*', '--non-resource-url=/healthz']);
    expect((await json(['get', 'clusterrole', 'log-reader'])).rules).to.deep.equal([{ nonResourceURLs: ['/logs/*', '/healthz'], verbs: ['get'] }]);

    await ok(['create', 'clusterrole', 'monitoring', '--aggregation-rule=rbac.example.com/aggregate-to-monitoring=true']);
    expect((await json(['get', 'clusterrole', 'monitoring'])).aggregationRule)
      .to.deep.equal({ clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] });

    const [header, ...lines] = (await ok(['get', 'roles', '-n', NS])).stdout.trim().split('\n');
    expect(header).to.match(/^NAME\s+CREATED AT$/);
    expect(lines.find((l) => l.startsWith('pod-reader '))).to.match(/^pod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('kubectl create rolebinding / clusterrolebinding, and get -o wide shows role and subjects', async () => {
    expect((await ok(['create', 'rolebinding', 'read-pods', '-n', NS, '--role=pod-reader', '--user=jane', '--user=joe', '--group=devs', '--serviceaccount=default:builder'])).stdout)
      .to.contain('rolebinding.rbac.authorization.k8s.io/read-pods created');
    await ok(['create', 'rolebinding', 'view-here', '-n', NS, '--clusterrole=view', '--group=auditors']);
    await ok(['create', 'clusterrolebinding', 'read-logs', '--clusterrole=log-reader', '--serviceaccount=kube-system:collector']);

    const binding = await json(['get', 'rolebinding', 'read-pods', '-n', NS]);
    expect(binding.roleRef).to.deep.equal({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
    expect(binding.subjects).to.deep.equal([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'joe' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
    ]);

    const wide = parseTable((await ok(['get', 'rolebindings', '-n', NS, '-o', 'wide'])).stdout);
    expect(wide.columns).to.deep.equal(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    const row = wide.rows.find((r) => r.NAME === 'read-pods')!;
    expect(row).to.deep.include({ ROLE: 'Role/pod-reader', USERS: 'jane, joe', GROUPS: 'devs', SERVICEACCOUNTS: 'default/builder' });
    expect(row.AGE).to.match(AGE);
    expect(wide.rows.find((r) => r.NAME === 'view-here')).to.deep.include({ ROLE: 'ClusterRole/view', GROUPS: 'auditors' });

    const narrow = parseTable((await ok(['get', 'clusterrolebinding', 'read-logs'])).stdout);
    expect(narrow.columns).to.deep.equal(['NAME', 'ROLE', 'AGE']);
    expect(narrow.rows[0]).to.deep.include({ NAME: 'read-logs', ROLE: 'ClusterRole/log-reader' });
  });

  it('a roleRef change is refused with Kubernetes\' message; subjects may change', async () => {
    const r = await fails(['patch', 'rolebinding', 'read-pods', '-n', NS, '--type=merge', '-p', '{"roleRef":{"name":"other"}}']);
    expect(r.stderr).to.contain('The RoleBinding "read-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef');
    await ok(['patch', 'rolebinding', 'read-pods', '-n', NS, '--type=merge', '-p', '{"subjects":[{"kind":"User","name":"solo"}]}']);
    expect((await json(['get', 'rolebinding', 'read-pods', '-n', NS])).subjects).to.deep.equal([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'solo' }]);
  });

  it('an invalid role is refused before anything is stored', async () => {
    const p = e2e.manifest('bad-role.yaml', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'bad', namespace: NS }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    });
    const r = await fails(['create', '-f', p]);
    expect(r.stderr).to.contain('rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs');
    expect((await fails(['get', 'role', 'bad', '-n', NS])).stderr).to.contain('roles.rbac.authorization.k8s.io "bad" not found');
  });

  it('kubectl delete removes each kind', async () => {
    await ok(['delete', 'rolebinding', 'read-pods', 'view-here', '-n', NS]);
    await ok(['delete', 'role', 'pod-reader', '-n', NS]);
    await ok(['delete', 'clusterrolebinding', 'read-logs']);
    await ok(['delete', 'clusterrole', 'log-reader', 'monitoring']);
    expect(parseTable((await ok(['get', 'rolebindings', '-n', NS])).stdout).rows.map((r) => r.NAME)).to.not.include('read-pods');
  });
});
