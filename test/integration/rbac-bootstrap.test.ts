/**
 * The bootstrap RBAC policy over HTTPS: after start the default roles and bindings exist in both
 * flavors with Kubernetes' rules, label and annotation; through them an authenticated user reads
 * discovery, health and version but nothing else, and an anonymous caller only health and
 * version (as in Kubernetes since 1.14). A second server on the same etcd reconciles what was
 * changed meanwhile: deleted defaults and removed rules come back, user-added subjects stay, and
 * what is annotated autoupdate=false stays as its owner left it.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { LogCapture, captureLog } from '../helpers/log-capture';
import { setLogLevel } from '../../lib/logger';
import { Naming, flavors } from '../../lib/naming';

const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function expectStatus(res: HttpResponse, code: number, what = ''): void {
  expect(res.status, `${what} ${res.text}`).to.equal(code);
}

/** Paths and names of the flavor. */
function names(naming: Naming) {
  const rbac = naming.group('rbac.authorization');
  return {
    rbac,
    clusterRole: (n: string) => `/apis/${rbac}/v1/clusterroles/${n}`,
    clusterRoleBinding: (n: string) => `/apis/${rbac}/v1/clusterrolebindings/${n}`,
    role: (ns: string, n: string) => `/apis/${rbac}/v1/namespaces/${ns}/roles/${n}`,
    roleBinding: (ns: string, n: string) => `/apis/${rbac}/v1/namespaces/${ns}/rolebindings/${n}`,
    bootstrapLabel: `${naming.labelDomain}/bootstrapping`,
    autoupdate: `rbac.authorization.${naming.labelDomain}/autoupdate`,
    group: (name: string) => ({ kind: 'Group', apiGroup: rbac, name }),
    user: (name: string) => ({ kind: 'User', apiGroup: rbac, name }),
  };
}

for (const naming of [flavors.orch, flavors.kubernetes]) {
  describe(`RBAC bootstrap policy (${naming.flavor} flavor)`, () => {
    let t: TestServer;
    const n = names(naming);
    const get = async (p: string) => {
      const res = await t.get(p);
      expectStatus(res, 200, p);
      return res.body;
    };

    before(async () => { t = await startTestServer(['--authorization-mode=RBAC', `--flavor=${naming.flavor}`]); });
    after(async () => { await t?.stop(); });

    it('creates cluster-admin, discovery and self-review roles with Kubernetes\' rules, label and annotation', async () => {
      const admin = await get(n.clusterRole('cluster-admin'));
      expect(admin.rules).to.deep.equal([
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ]);
      expect(admin.metadata.labels).to.deep.equal({ [n.bootstrapLabel]: 'rbac-defaults' });
      expect(admin.metadata.annotations).to.deep.equal({ [n.autoupdate]: 'true' });
      expect((await get(n.clusterRole('system:discovery'))).rules).to.deep.equal([{
        verbs: ['get'],
        nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
      }]);
      expect((await get(n.clusterRole('system:public-info-viewer'))).rules).to.deep.equal([
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
      ]);
      expect((await get(n.clusterRole('system:basic-user'))).rules).to.deep.equal([
        { verbs: ['create'], apiGroups: [naming.group('authorization')], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
        { verbs: ['create'], apiGroups: [naming.group('authentication')], resources: ['selfsubjectreviews'] },
      ]);
      expect((await get(n.clusterRole('system:service-account-issuer-discovery'))).rules).to.deep.equal([{
        verbs: ['get'],
        nonResourceURLs: ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'],
      }]);
    });

    it('aggregates admin, edit and view by the flavor\'s aggregate-to-* labels', async () => {
      const selector = (to: string) => ({ clusterRoleSelectors: [{ matchLabels: { [`${n.rbac}/aggregate-to-${to}`]: 'true' } }] });
      const admin = await get(n.clusterRole('admin'));
      expect(admin.aggregationRule).to.deep.equal(selector('admin'));
      const edit = await get(n.clusterRole('edit'));
      expect(edit.aggregationRule).to.deep.equal(selector('edit'));
      expect(edit.metadata.labels).to.deep.equal({ [n.bootstrapLabel]: 'rbac-defaults', [`${n.rbac}/aggregate-to-admin`]: 'true' });
      expect((await get(n.clusterRole('view'))).metadata.labels).to.include({ [`${n.rbac}/aggregate-to-edit`]: 'true' });
      const toAdmin = await get(n.clusterRole('system:aggregate-to-admin'));
      expect(toAdmin.metadata.labels).to.include({ [`${n.rbac}/aggregate-to-admin`]: 'true' });
      expect(toAdmin.rules).to.deep.equal([
        { verbs: ['create'], apiGroups: [naming.group('authorization')], resources: ['localsubjectaccessreviews'] },
        { verbs: READ_WRITE, apiGroups: [n.rbac], resources: ['rolebindings', 'roles'] },
      ]);
      const toView = await get(n.clusterRole('system:aggregate-to-view'));
      expect(toView.rules[3]).to.deep.equal({ verbs: ['get', 'list', 'watch'], apiGroups: ['', naming.group('events')], resources: ['events'] });
      expect(toView.rules.flatMap((r: { resources: string[] }) => r.resources)).to.not.include('secrets');
    });

    it('gives admin, edit and view the rules of their aggregate-to-* roles, so that a RoleBinding to view lets a user read', async () => {
      const toView = (await get(n.clusterRole('system:aggregate-to-view'))).rules;
      const toEdit = (await get(n.clusterRole('system:aggregate-to-edit'))).rules;
      await eventually(async () => {
        const view = (await get(n.clusterRole('view'))).rules ?? [];
        const edit = (await get(n.clusterRole('edit'))).rules ?? [];
        return toView.every((r: unknown) => JSON.stringify(view).includes(JSON.stringify(r)))
          && [...toView, ...toEdit].every((r: unknown) => JSON.stringify(edit).includes(JSON.stringify(r)));
      });
      const bob = t.identity('bob', []);
      expectStatus(await t.get('/api/v1/namespaces/default/configmaps', { identity: bob }), 403);
      const res = await t.post(`/apis/${n.rbac}/v1/namespaces/default/rolebindings`, {
        apiVersion: `${n.rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-view' },
        roleRef: { apiGroup: n.rbac, kind: 'ClusterRole', name: 'view' }, subjects: [n.user('bob')],
      });
      expectStatus(res, 201);
      await eventually(async () => (await t.get('/api/v1/namespaces/default/configmaps', { identity: bob })).status === 200);
      expectStatus(await t.get('/api/v1/namespaces/default/secrets', { identity: bob }), 403);
    });

    it('creates the component, certificate and controller roles', async () => {
      const core = '';
      expect((await get(n.clusterRole('system:node-proxier'))).rules).to.deep.equal([
        { verbs: ['list', 'watch'], apiGroups: [core], resources: ['endpoints', 'services'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [core], resources: ['nodes'] },
        { verbs: ['create', 'patch', 'update'], apiGroups: [core, naming.group('events')], resources: ['events'] },
        { verbs: ['list', 'watch'], apiGroups: [naming.group('networking')], resources: ['servicecidrs'] },
        { verbs: ['list', 'watch'], apiGroups: [naming.group('discovery')], resources: ['endpointslices'] },
      ]);
      expect((await get(n.clusterRole(`system:${naming.group('certificates')}:kube-apiserver-client-approver`))).rules).to.deep.equal([{
        verbs: ['approve'], apiGroups: [naming.group('certificates')], resources: ['signers'], resourceNames: [`${naming.labelDomain}/kube-apiserver-client`],
      }]);
      expect((await get(n.clusterRole(`system:${naming.group('certificates')}:certificatesigningrequests:selfnodeclient`))).rules).to.deep.equal([
        { verbs: ['create'], apiGroups: [naming.group('certificates')], resources: ['certificatesigningrequests/selfnodeclient'] },
      ]);
      expect((await get(n.clusterRole('system:node'))).rules).to.deep.include(
        { verbs: ['get', 'list', 'watch'], apiGroups: [core], resources: ['configmaps', 'secrets'] });
      expect((await get(n.clusterRole('system:controller:namespace-controller'))).rules).to.deep.equal([
        { verbs: ['delete', 'get', 'list', 'watch'], apiGroups: [core], resources: ['namespaces'] },
        { verbs: ['update'], apiGroups: [core], resources: ['namespaces/finalize', 'namespaces/status'] },
        { verbs: ['delete', 'deletecollection', 'get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] },
      ]);
      expect((await get(n.clusterRole('system:controller:root-ca-cert-publisher'))).rules).to.deep.equal([
        { verbs: ['create', 'update'], apiGroups: [core], resources: ['configmaps'] },
        { verbs: ['create', 'patch', 'update'], apiGroups: [core, naming.group('events')], resources: ['events'] },
      ]);
      const listed = await get(`/apis/${n.rbac}/v1/clusterroles?labelSelector=${encodeURIComponent(`${n.bootstrapLabel}=rbac-defaults`)}`);
      const listedNames = listed.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      expect(listedNames).to.include.members(['system:kube-scheduler', 'system:kube-controller-manager', 'system:monitoring',
        'system:heapster', 'system:controller:generic-garbage-collector', 'system:controller:service-account-controller',
        'system:controller:ephemeral-volume-controller', 'system:controller:clusterrole-aggregation-controller']);
      expect(listedNames.length).to.be.greaterThan(60);
    });

    it('binds them as Kubernetes does', async () => {
      const subjects = async (name: string) => (await get(n.clusterRoleBinding(name))).subjects;
      const admin = await get(n.clusterRoleBinding('cluster-admin'));
      expect(admin.roleRef).to.deep.equal({ apiGroup: n.rbac, kind: 'ClusterRole', name: 'cluster-admin' });
      expect(admin.subjects).to.deep.equal([n.group('system:masters')]);
      expect(admin.metadata.annotations).to.deep.equal({ [n.autoupdate]: 'true' });
      expect(await subjects('system:discovery')).to.deep.equal([n.group('system:authenticated')]);
      expect(await subjects('system:basic-user')).to.deep.equal([n.group('system:authenticated')]);
      expect(await subjects('system:public-info-viewer')).to.deep.equal([n.group('system:authenticated'), n.group('system:unauthenticated')]);
      expect(await subjects('system:service-account-issuer-discovery')).to.deep.equal([n.group('system:serviceaccounts')]);
      expect(await subjects('system:node-proxier')).to.deep.equal([n.user('system:kube-proxy')]);
      expect(await subjects('system:node')).to.equal(undefined);
      expect(await subjects('system:controller:generic-garbage-collector')).to.deep.equal([
        { kind: 'ServiceAccount', name: 'generic-garbage-collector', namespace: naming.systemNamespace },
      ]);
    });

    it('creates the Roles and RoleBindings of the system and public namespaces', async () => {
      const reader = await get(n.role(naming.systemNamespace, 'extension-apiserver-authentication-reader'));
      expect(reader.rules).to.deep.equal([
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'] },
      ]);
      expect(reader.metadata.labels).to.deep.equal({ [n.bootstrapLabel]: 'rbac-defaults' });
      const binding = await get(n.roleBinding(naming.systemNamespace, 'system::extension-apiserver-authentication-reader'));
      expect(binding.roleRef).to.deep.equal({ apiGroup: n.rbac, kind: 'Role', name: 'extension-apiserver-authentication-reader' });
      expect(binding.subjects).to.deep.equal([n.user('system:kube-controller-manager'), n.user('system:kube-scheduler')]);
      const signer = await get(n.roleBinding(naming.publicNamespace, 'system:controller:bootstrap-signer'));
      expect(signer.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: naming.systemNamespace }]);
      expect((await get(n.role(naming.publicNamespace, 'system:controller:bootstrap-signer'))).rules[1]).to.deep.equal(
        { verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] });
    });

    it('reports the post-start hook poststarthook/rbac/bootstrap-roles', async () => {
      for (const endpoint of ['/healthz', '/readyz', '/livez']) {
        const res = await t.get(`${endpoint}?verbose`);
        expectStatus(res, 200, endpoint);
        expect(res.text).to.include('[+]poststarthook/rbac/bootstrap-roles ok');
      }
    });

    it('an authenticated user without bindings reads discovery, version and health, and nothing else', async () => {
      const alice = t.identity('alice', []);
      for (const p of ['/api', '/apis', '/version', '/healthz', '/livez', '/readyz', `/apis/${n.rbac}/v1`]) {
        expectStatus(await t.get(p, { identity: alice }), 200, p);
      }
      const res = await t.get('/api/v1/namespaces', { identity: alice });
      expectStatus(res, 403);
      expect(res.body).to.deep.include({
        reason: 'Forbidden', code: 403,
        message: 'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope',
      });
      expectStatus(await t.get(n.clusterRole('cluster-admin'), { identity: alice }), 403);
    });

    it('an anonymous caller reads health and version only: discovery is for authenticated users', async () => {
      for (const p of ['/healthz', '/livez', '/readyz', '/version']) expectStatus(await t.get(p, { identity: null }), 200, p);
      for (const p of ['/api', '/apis']) {
        const res = await t.get(p, { identity: null });
        expectStatus(res, 403, p);
        expect(res.body.message).to.equal(`forbidden: User "system:anonymous" cannot get path "${p}"`);
      }
    });
  });
}

/** A second server on the first one's etcd, and an HTTPS client with its admin certificate. */
describe('RBAC bootstrap policy after a restart', () => {
  const naming = flavors.orch;
  const n = names(naming);
  let t: TestServer;
  let second: TestServer | undefined;
  let log: LogCapture | undefined;
  const alice = n.user('alice');
  const userRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };

  const write = async (method: 'PUT' | 'POST' | 'DELETE', p: string, body?: unknown) => {
    const res = await t.request(method, p, { body });
    expectStatus(res, method === 'POST' ? 201 : 200, `${method} ${p}`);
    return res.body;
  };
  const edit = async (p: string, change: (o: any) => void) => {
    const obj = (await t.get(p)).body;
    change(obj);
    return write('PUT', p, obj);
  };

  before(async function () {
    this.timeout(120_000);
    t = await startTestServer(['--authorization-mode=RBAC']);
    // A deleted default role and binding.
    await write('DELETE', n.clusterRole('system:basic-user'));
    await write('DELETE', n.roleBinding(naming.systemNamespace, 'system:controller:token-cleaner'));
    // A default role that lost its first rule and its bootstrap label.
    await edit(n.clusterRole('system:node-proxier'), (o) => { o.rules = o.rules.slice(1); delete o.metadata.labels; });
    // A default role its owner took over: fewer rules, its own rule, autoupdate=false.
    await edit(n.clusterRole('system:kube-dns'), (o) => { o.rules = [userRule]; o.metadata.annotations[n.autoupdate] = 'false'; });
    // A protected binding whose subjects were removed.
    await edit(n.clusterRoleBinding('system:monitoring'), (o) => { o.subjects = [alice]; o.metadata.annotations[n.autoupdate] = 'false'; });
    // A user added a subject to one binding and removed the default subject of another.
    await edit(n.clusterRoleBinding('system:discovery'), (o) => { o.subjects.push(alice); });
    await edit(n.clusterRoleBinding('system:basic-user'), (o) => { o.subjects = [alice]; });
    // A default binding re-made by hand to another role (roleRef cannot change in place).
    await write('DELETE', n.clusterRoleBinding('system:kube-scheduler'));
    await write('POST', `/apis/${n.rbac}/v1/clusterrolebindings`, {
      apiVersion: `${n.rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'system:kube-scheduler' },
      roleRef: { apiGroup: n.rbac, kind: 'ClusterRole', name: 'view' }, subjects: [alice],
    });
    await t.server.stop();
    log = captureLog();
    second = await startTestServer(['--authorization-mode=RBAC', '--log-level=info'], { etcd: t.etcd });
    log.stop();
    setLogLevel('error');
  });
  after(async () => {
    log?.stop();
    await second?.stop();
    await t?.stop();
  });

  const get = async (p: string) => {
    const res = await second!.get(p);
    expectStatus(res, 200, p);
    return res.body;
  };

  it('recreates a deleted default role and role binding', async () => {
    const basic = await get(n.clusterRole('system:basic-user'));
    expect(basic.rules).to.have.length(2);
    expect(basic.metadata.annotations).to.deep.equal({ [n.autoupdate]: 'true' });
    expect((await get(n.roleBinding(naming.systemNamespace, 'system:controller:token-cleaner'))).subjects).to.deep.equal([
      { kind: 'ServiceAccount', name: 'token-cleaner', namespace: naming.systemNamespace },
    ]);
  });

  it('adds a removed rule and label back, after the rules the role kept', async () => {
    const proxier = await get(n.clusterRole('system:node-proxier'));
    expect(proxier.rules).to.have.length(5);
    expect(proxier.rules[4]).to.deep.equal({ verbs: ['list', 'watch'], apiGroups: [''], resources: ['endpoints', 'services'] });
    expect(proxier.metadata.labels).to.deep.equal({ [n.bootstrapLabel]: 'rbac-defaults' });
  });

  it('leaves a role and a binding annotated autoupdate=false as their owner left them', async () => {
    const dns = await get(n.clusterRole('system:kube-dns'));
    expect(dns.rules).to.deep.equal([userRule]);
    expect(dns.metadata.annotations).to.deep.equal({ [n.autoupdate]: 'false' });
    expect((await get(n.clusterRoleBinding('system:monitoring'))).subjects).to.deep.equal([alice]);
  });

  it('keeps subjects users added to a default binding and adds back the ones removed', async () => {
    expect((await get(n.clusterRoleBinding('system:discovery'))).subjects).to.deep.equal([n.group('system:authenticated'), alice]);
    expect((await get(n.clusterRoleBinding('system:basic-user'))).subjects).to.deep.equal([alice, n.group('system:authenticated')]);
  });

  it('recreates a default binding that points at another role', async () => {
    const scheduler = await get(n.clusterRoleBinding('system:kube-scheduler'));
    expect(scheduler.roleRef).to.deep.equal({ apiGroup: n.rbac, kind: 'ClusterRole', name: 'system:kube-scheduler' });
    expect(scheduler.subjects).to.deep.equal([n.user('system:kube-scheduler')]);
  });

  it('logs one line per object it wrote, and a warning for each protected one it skipped', () => {
    const messages = log!.records().map((r) => String(r.message));
    const rbac = n.rbac;
    expect(messages).to.include.members([
      `created clusterrole.${rbac}/system:basic-user`,
      `created rolebinding.${rbac}/system:controller:token-cleaner`,
      `updated clusterrole.${rbac}/system:node-proxier`,
      `updated clusterrolebinding.${rbac}/system:basic-user`,
      `recreated clusterrolebinding.${rbac}/system:kube-scheduler`,
      `skipped reconcile-protected clusterrole.${rbac}/system:kube-dns`,
      `skipped reconcile-protected clusterrolebinding.${rbac}/system:monitoring`,
    ]);
    // Objects already as the policy has them are not written again; aggregated roles' gathered rules are no change.
    for (const name of ['cluster-admin', 'admin', 'edit', 'view']) {
      expect(messages.filter((m) => m.endsWith(`clusterrole.${rbac}/${name}`) || m.endsWith(`clusterrolebinding.${rbac}/${name}`))).to.deep.equal([]);
    }
  });
});
