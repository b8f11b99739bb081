/**
 * Authorization as stock kubectl (1.32) exercises it against the real server process with
 * --authorization-mode=RBAC and the bootstrap policy: `auth can-i` (exit 0 for yes, 1 for no;
 * --as, --as-group, subresources, non-resource URLs, --list), `auth reconcile -f`, and service
 * accounts bound through RoleBindings to view, edit and a custom Role, used through their own
 * tokens (`create token`, `--token`), each allowed exactly what its role grants and refused with
 * the 403 kubectl prints.
 *
 * --flavor=kubernetes: kubectl sends `authorization.k8s.io/v1` reviews and
 * `rbac.authorization.k8s.io/v1` objects.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { useKubectlServer } from '../helpers/e2e-server';
import { Kubectl, KubectlResult, kubectlFor, parseTable } from '../helpers/kubectl';
import { eventually } from '../helpers/server-harness';

const NS = 'demo';
const RBAC = 'rbac.authorization.k8s.io';
const LIST_COLUMNS = ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'];

/** `auth can-i --list`'s table, whose headers have spaces in them: cells cut at the headers' columns. */
function rulesTable(stdout: string): Array<Record<string, string>> {
  const [header, ...lines] = stdout.split('\n').filter((l) => l.trim() !== '');
  const starts = LIST_COLUMNS.map((c) => header.indexOf(c));
  expect(starts.every((at, i) => at >= 0 && (i === 0 || at > starts[i - 1])), header).to.equal(true);
  expect(header.slice(starts[3]).trim()).to.equal('Verbs');
  return lines.map((l) => Object.fromEntries(LIST_COLUMNS.map((c, i) => [c, l.slice(starts[i], starts[i + 1]).trim()])));
}

const sa = (name: string) => `system:serviceaccount:${NS}:${name}`;
const forbidden = (user: string, verb: string, resource: string, group = '', namespace = NS) =>
  `Error from server (Forbidden): ${resource}${group ? `.${group}` : ''} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`;

describe('kubectl authorization against the server process (kubernetes flavor, RBAC)', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('authz', ['--flavor=kubernetes', '--authorization-mode=RBAC']);
  const { ok, fails } = e2e;
  /** kubectl with a kubeconfig holding only the server, its CA and the namespace: the token comes as --token. */
  let tokenKubectl: Kubectl;
  const tokens: Record<string, string> = {};
  const as = (account: string, args: string[]) => tokenKubectl([`--token=${tokens[account]}`, ...args]);

  /** `kubectl auth can-i ...`: the printed answer and the exit code together. */
  const canI = async (args: string[], run: Kubectl = e2e.kubectl): Promise<string> => {
    const r = await run(['auth', 'can-i', ...args]);
    expect(r.timedOut).to.equal(false);
    const answer = r.stdout.trim();
    expect(r.code, `can-i ${args.join(' ')}: ${answer} ${r.stderr}`).to.equal(answer === 'yes' ? 0 : 1);
    return answer;
  };

  before(async () => {
    const admin = parseYaml(readFileSync(e2e.server.kubeconfigPath, 'utf8'));
    const kubeconfig = path.join(e2e.dir, 'token.kubeconfig');
    writeFileSync(kubeconfig, stringifyYaml({
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'orch', cluster: { server: admin.clusters[0].cluster.server, 'certificate-authority': path.join(e2e.dir, 'data', 'pki', 'ca.crt') } }],
      users: [{ name: 'sa', user: {} }],
      contexts: [{ name: 'orch', context: { cluster: 'orch', user: 'sa', namespace: NS } }],
      'current-context': 'orch',
    }), { mode: 0o600 });
    tokenKubectl = kubectlFor(kubeconfig, path.join(e2e.dir, 'kube-cache'));

    await ok(['create', 'namespace', NS]);
    await ok(['create', 'namespace', 'elsewhere']);
    for (const name of ['viewer', 'editor', 'reader']) await ok(['create', 'serviceaccount', name, '-n', NS]);
    await ok(['create', 'rolebinding', 'viewer-view', '--clusterrole=view', `--serviceaccount=${NS}:viewer`, '-n', NS]);
    await ok(['create', 'rolebinding', 'editor-edit', '--clusterrole=edit', `--serviceaccount=${NS}:editor`, '-n', NS]);
    await ok(['create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps', '-n', NS]);
    await ok(['create', 'rolebinding', 'reader-cm', '--role=cm-reader', `--serviceaccount=${NS}:reader`, '-n', NS]);
    await ok(['create', 'configmap', 'settings', '--from-literal=a=1', '-n', NS]);
    for (const name of ['viewer', 'editor', 'reader']) tokens[name] = (await ok(['create', 'token', name, '-n', NS])).stdout.trim();
    // view and edit are aggregated by the controller, and the policy index follows the watch
    // caches: wait until both grants are seen.
    await eventually(async () => (await e2e.kubectl(['auth', 'can-i', 'create', 'pods/eviction', '-n', NS, `--as=${sa('editor')}`])).code === 0
      && (await e2e.kubectl(['auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', NS, `--as=${sa('viewer')}`])).code === 0
      && (await e2e.kubectl(['auth', 'can-i', 'list', 'configmaps', '-n', NS, `--as=${sa('reader')}`])).code === 0, 30_000, 250);
  });

  describe('auth can-i', () => {
    it('yes with exit code 0, no with exit code 1: the admin, and others through --as and --as-group', async () => {
      expect(await canI(['create', 'pods'])).to.equal('yes');
      expect(await canI(['delete', 'nodes'])).to.equal('yes');
      expect(await canI(['create', 'pods', '--as=bob'])).to.equal('no');
      expect(await canI(['create', 'pods', '--as=bob', '--as-group=system:masters'])).to.equal('yes');
      expect(await canI(['list', 'pods', '-n', NS, `--as=${sa('viewer')}`])).to.equal('yes');
      expect(await canI(['list', 'pods', '-n', 'elsewhere', `--as=${sa('viewer')}`])).to.equal('no');
      expect(await canI(['delete', 'pods', '-n', NS, `--as=${sa('viewer')}`])).to.equal('no');
    });

    it('subresources: create pods/eviction and get pods --subresource=log as each role grants them', async () => {
      expect(await canI(['create', 'pods/eviction', '-n', NS, `--as=${sa('editor')}`])).to.equal('yes');
      expect(await canI(['create', 'pods/eviction', '-n', NS, `--as=${sa('viewer')}`])).to.equal('no');
      expect(await canI(['get', 'pods', '--subresource=log', '-n', NS, `--as=${sa('viewer')}`])).to.equal('yes');
      expect(await canI(['get', 'pods', '--subresource=log', '-n', NS, `--as=${sa('reader')}`])).to.equal('no');
      expect(await canI(['create', 'pods', '--subresource=exec', '-n', NS, `--as=${sa('editor')}`])).to.equal('yes');
    });

    it('non-resource URLs: /healthz for everyone (system:public-info-viewer), /metrics for nobody but the admin', async () => {
      expect(await canI(['get', '/healthz', '--as=bob'])).to.equal('yes');
      expect(await canI(['get', '/version', '--as=bob'])).to.equal('yes');
      expect(await canI(['get', '/metrics', '--as=bob'])).to.equal('no');
      expect(await canI(['get', '/metrics'])).to.equal('yes');
      expect(await canI(['post', '/healthz', '--as=bob'])).to.equal('no');
    });

    it('a service account asks for itself with its own token', async () => {
      expect(await canI(['get', 'configmaps'], (args) => as('reader', args))).to.equal('yes');
      expect(await canI(['create', 'configmaps'], (args) => as('reader', args))).to.equal('no');
      expect(await canI(['get', 'configmaps', '-n', 'elsewhere'], (args) => as('reader', args))).to.equal('no');
    });

    it('--list prints the rules table: the custom Role\'s rules in its namespace, the self reviews and discovery everywhere', async () => {
      const table = rulesTable((await as('reader', ['auth', 'can-i', '--list'])).stdout);
      const byResource = (rows: typeof table) => Object.fromEntries(rows.filter((r) => r.Resources).map((r) => [r.Resources, r.Verbs]));
      expect(byResource(table)).to.deep.include({
        configmaps: '[get list]',
        'selfsubjectaccessreviews.authorization.k8s.io': '[create]',
        'selfsubjectrulesreviews.authorization.k8s.io': '[create]',
      });
      expect(byResource(table)).to.not.have.any.keys('pods', 'secrets', '*.*');
      const urls = table.filter((r) => !r.Resources).map((r) => r['Non-Resource URLs']);
      expect(urls).to.include.members(['[/healthz]', '[/api]', '[/apis/*]', '[/version]']);

      const elsewhere = rulesTable((await as('reader', ['auth', 'can-i', '--list', '-n', 'elsewhere'])).stdout);
      expect(byResource(elsewhere)).to.not.have.any.keys('configmaps');
      // The admin's own list: cluster-admin's "everything" through system:masters' bootstrap binding.
      const adminList = rulesTable((await ok(['auth', 'can-i', '--list'])).stdout);
      expect(adminList).to.deep.include({ Resources: '*.*', 'Non-Resource URLs': '[]', 'Resource Names': '[]', Verbs: '[*]' });
    });
  });

  describe('auth reconcile', () => {
    it('creates a Role and RoleBinding from a file, then adds what a changed file adds', async () => {
      const role = {
        apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'secret-reader', namespace: NS },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      };
      const binding = {
        apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'secret-reader', namespace: NS },
        roleRef: { apiGroup: RBAC, kind: 'Role', name: 'secret-reader' },
        subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }],
      };
      const file = (r: unknown, b: unknown) => e2e.manifest('rbac.yaml', { apiVersion: 'v1', kind: 'List', items: [r, b] });
      const first = await ok(['auth', 'reconcile', '-f', file(role, binding)]);
      expect(first.stdout.trim().split('\n')).to.deep.equal([
        `role.${RBAC}/secret-reader reconciled`, `rolebinding.${RBAC}/secret-reader reconciled`,
      ]);
      expect(first.stderr).to.include('reconciliation required create');
      await eventually(async () => (await e2e.kubectl(['auth', 'can-i', 'get', 'secrets', '-n', NS, '--as=carol'])).code === 0);
      expect(await canI(['list', 'secrets', '-n', NS, '--as=carol'])).to.equal('no');

      const again = await ok(['auth', 'reconcile', '-f', file(role, binding)]);
      expect(again.stderr, 'nothing to do the second time').to.not.include('reconciliation required');

      const wider = { ...role, rules: [...role.rules, { apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] };
      const more = { ...binding, subjects: [...binding.subjects, { kind: 'User', apiGroup: RBAC, name: 'dan' }] };
      const changed = await ok(['auth', 'reconcile', '-f', file(wider, more)]);
      expect(changed.stderr).to.include('reconciliation required update');
      expect(changed.stderr).to.include('missing rules added');
      expect(changed.stderr).to.include('missing subjects added');
      await eventually(async () => (await e2e.kubectl(['auth', 'can-i', 'list', 'secrets', '-n', NS, '--as=carol'])).code === 0);
      expect(await canI(['get', 'secrets', '-n', NS, '--as=dan'])).to.equal('yes');
      const stored = parseYaml((await ok(['get', 'rolebinding', 'secret-reader', '-n', NS, '-o', 'yaml'])).stdout);
      expect(stored.subjects.map((s: { name: string }) => s.name)).to.deep.equal(['carol', 'dan']);
    });
  });

  describe('service accounts bound to view, edit and a custom Role, through their tokens', () => {
    const expectForbidden = (r: KubectlResult, message: string) => {
      expect(r.code, r.stdout).to.equal(1);
      expect(r.stderr.trim()).to.equal(message);
    };

    it('view: reads the namespace, writes nothing, no secrets; a 403 as kubectl prints it', async () => {
      expect((await as('viewer', ['get', 'configmap', 'settings', '-o', 'name'])).stdout.trim()).to.equal('configmap/settings');
      expect((await as('viewer', ['get', 'pods'])).code).to.equal(0);
      expectForbidden(await as('viewer', ['run', 'web', '--image=busybox']), forbidden(sa('viewer'), 'create', 'pods'));
      expectForbidden(await as('viewer', ['get', 'secrets']), forbidden(sa('viewer'), 'list', 'secrets'));
      expectForbidden(await as('viewer', ['delete', 'configmap', 'settings']),
        'Error from server (Forbidden): configmaps "settings" is forbidden: User "system:serviceaccount:demo:viewer" cannot delete resource "configmaps" in API group "" in the namespace "demo"');
      expectForbidden(await as('viewer', ['get', 'configmaps', '-n', 'elsewhere']), forbidden(sa('viewer'), 'list', 'configmaps', '', 'elsewhere'));
    });

    it('edit: writes workloads, configmaps and secrets, but neither roles nor bindings', async () => {
      expect((await as('editor', ['create', 'configmap', 'made-by-editor', '--from-literal=b=2'])).stdout.trim()).to.equal('configmap/made-by-editor created');
      expect((await as('editor', ['run', 'web', '--image=busybox'])).stdout.trim()).to.equal('pod/web created');
      expect((await as('editor', ['create', 'secret', 'generic', 'token-store', '--from-literal=k=v'])).code).to.equal(0);
      expect((await as('editor', ['get', 'secret', 'token-store', '-o', 'name'])).stdout.trim()).to.equal('secret/token-store');
      expectForbidden(await as('editor', ['create', 'rolebinding', 'escalate', '--clusterrole=admin', `--serviceaccount=${NS}:editor`]),
        `error: failed to create rolebinding: rolebindings.${RBAC} is forbidden: User "${sa('editor')}" cannot create resource "rolebindings" in API group "${RBAC}" in the namespace "${NS}"`);
      expectForbidden(await as('editor', ['get', 'roles']), forbidden(sa('editor'), 'list', 'roles', RBAC));
      expectForbidden(await as('editor', ['get', 'namespaces']),
        `Error from server (Forbidden): namespaces is forbidden: User "${sa('editor')}" cannot list resource "namespaces" in API group "" at the cluster scope`);
    });

    it('a custom Role (get, list configmaps): exactly that', async () => {
      const got = parseTable((await as('reader', ['get', 'configmaps'])).stdout);
      expect(got.rows.map((r) => r.NAME)).to.include('settings');
      expectForbidden(await as('reader', ['get', 'configmaps', '--watch', '--request-timeout=5s']), forbidden(sa('reader'), 'watch', 'configmaps'));
      expectForbidden(await as('reader', ['create', 'configmap', 'x', '--from-literal=a=b']),
        `error: failed to create configmap: configmaps is forbidden: User "${sa('reader')}" cannot create resource "configmaps" in API group "" in the namespace "${NS}"`);
      expectForbidden(await as('reader', ['get', 'pods']), forbidden(sa('reader'), 'list', 'pods'));
    });
  });
});
