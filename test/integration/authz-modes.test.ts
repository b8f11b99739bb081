/**
 * --authorization-mode over HTTPS with certificate users and anonymous callers: AlwaysDeny alone
 * refuses everyone but system:masters with Kubernetes' 403 ("Everything is forbidden."),
 * AlwaysAllow allows everyone (anonymous included), the order of modes decides (a deny before an
 * allow wins, an allow before a deny wins, AlwaysDeny has no opinion); ABAC with a policy file of
 * users, groups, readonly policies, namespaces and non-resource paths decides as Kubernetes'
 * ABAC does; a bad policy file, or a mode without its file, stops the start with one line.
 */
import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { TestEtcd, startTestEtcd } from '../helpers/etcd-harness';
import { TokenWebhook, startTokenWebhook } from '../helpers/token-webhook';

type Identity = { certPem: string; keyPem: string } | null;

const NAMESPACE = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const CONFIGMAP = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
const policy = (spec: Record<string, unknown>, domain = 'kubernetes.io') =>
  JSON.stringify({ apiVersion: `abac.authorization.${domain}/v1beta1`, kind: 'Policy', spec });

function forbidden(message: string, details: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

async function must(r: Promise<HttpResponse>): Promise<HttpResponse> {
  const res = await r;
  if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
  return res;
}

/** Runs the built server with `args` until it exits; resolves with its exit code and stderr. */
function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const main = path.resolve(__dirname, '../../lib/server/main.js');
  const child: ChildProcess = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.once('exit', (code) => { clearTimeout(timer); resolve({ code, stderr }); }));
}

describe('authorization modes', function () {
  this.timeout(120_000);

  describe('AlwaysDeny alone', () => {
    let t: TestServer;
    let alice: Identity;
    before(async () => {
      t = await startTestServer(['--authorization-mode=AlwaysDeny']);
      alice = t.identity('alice', ['devs']);
    });
    after(async () => { await t?.stop(); });

    it('refuses a certificate user with Kubernetes\' 403 and AlwaysDeny\'s reason', async () => {
      const res = await t.get('/api/v1/namespaces', { identity: alice });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal(forbidden(
        'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.',
        { kind: 'namespaces' },
      ));
      const create = await t.post('/api/v1/namespaces/default/configmaps', CONFIGMAP('x'), { identity: alice });
      expect(create.body.message).to.equal('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.');
    });

    it('refuses anonymous callers, even on /healthz', async () => {
      const res = await t.get('/healthz', { identity: null });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal(forbidden('forbidden: User "system:anonymous" cannot get path "/healthz": Everything is forbidden.', {}));
    });

    it('allows system:masters: the admin and any certificate in that group', async () => {
      await must(t.post('/api/v1/namespaces/default/configmaps', CONFIGMAP('by-admin')));
      const ops = t.identity('ops', ['system:masters']);
      expect((await t.get('/api/v1/namespaces/default/configmaps/by-admin', { identity: ops })).status).to.equal(200);
      expect((await t.del('/api/v1/namespaces/default/configmaps/by-admin', undefined, { identity: ops })).status).to.equal(200);
    });
  });

  describe('AlwaysAllow', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--authorization-mode=AlwaysAllow']); });
    after(async () => { await t?.stop(); });

    it('allows any user any verb, impersonation included, and anonymous callers too', async () => {
      const bob = t.identity('bob');
      expect((await t.post('/api/v1/namespaces', NAMESPACE('by-bob'), { identity: bob })).status).to.equal(201);
      expect((await t.del('/api/v1/namespaces/by-bob', undefined, { identity: bob })).status).to.equal(200);
      const ssr = await t.post('/apis/authentication.orch.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, { identity: bob, headers: { 'impersonate-user': 'carol' } });
      expect(ssr.status, ssr.text).to.equal(201);
      expect(ssr.body.status.userInfo.username).to.equal('carol');
      expect((await t.get('/api/v1/namespaces', { identity: null })).status).to.equal(200);
    });
  });

  describe('order of modes', () => {
    let hook: TokenWebhook;
    let kubeconfig: string;
    before(async () => {
      hook = await startTokenWebhook({ path: '/authorize' });
      // Denies every write; no opinion on reads.
      hook.reply = (req) => ({
        json: {
          apiVersion: 'authorization.orch.io/v1beta1', kind: 'SubjectAccessReview',
          status: ['get', 'list', 'watch'].includes(req.body?.spec?.resourceAttributes?.verb) ? { allowed: false } : { allowed: false, denied: true, reason: 'writes are closed' },
        },
      });
      kubeconfig = hook.writeFile('authz.kubeconfig', {
        clusters: [{ name: 'authz', cluster: { server: hook.url, 'certificate-authority-data': Buffer.from(hook.caPem).toString('base64') } }],
      });
    });
    after(async () => { await hook?.stop(); });

    const webhookFlag = () => `--authorization-webhook-config-file=${kubeconfig}`;

    it('a deny before an allow wins: Webhook,AlwaysAllow', async () => {
      const t = await startTestServer(['--authorization-mode=Webhook,AlwaysAllow', webhookFlag()]);
      try {
        const dan = t.identity('dan');
        expect((await t.get('/api/v1/namespaces', { identity: dan })).status).to.equal(200);
        const res = await t.post('/api/v1/namespaces', NAMESPACE('by-dan'), { identity: dan });
        expect(res.status).to.equal(403);
        expect(res.body.message).to.equal('namespaces is forbidden: User "dan" cannot create resource "namespaces" in API group "" at the cluster scope: writes are closed');
      } finally {
        await t.stop();
      }
    });

    it('an allow before a deny wins, and the later mode is not asked: AlwaysAllow,Webhook', async () => {
      const t = await startTestServer(['--authorization-mode=AlwaysAllow,Webhook', webhookFlag()]);
      try {
        const before = hook.requests.length;
        expect((await t.post('/api/v1/namespaces', NAMESPACE('by-dan'), { identity: t.identity('dan') })).status).to.equal(201);
        expect(hook.requests.length).to.equal(before);
      } finally {
        await t.stop();
      }
    });

    it('AlwaysDeny has no opinion: AlwaysDeny,AlwaysAllow allows', async () => {
      const t = await startTestServer(['--authorization-mode=AlwaysDeny,AlwaysAllow']);
      try {
        expect((await t.get('/api/v1/namespaces', { identity: t.identity('erin') })).status).to.equal(200);
      } finally {
        await t.stop();
      }
    });
  });

  describe('ABAC', () => {
    let t: TestServer;
    let dir: string;
    const ids: Record<string, Identity> = {};

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'abac-'));
      const file = path.join(dir, 'policy.jsonl');
      writeFileSync(file, [
        '# alice: everything in team',
        policy({ user: 'alice', namespace: 'team', resource: '*', apiGroup: '*' }),
        '',
        '# readers: read everything everywhere (orch spelling)',
        policy({ group: 'readers', readonly: true, namespace: '*', resource: '*', apiGroup: '*' }, 'orch.io'),
        '# carol: namespaces (cluster-scoped: namespace "") and nothing else',
        policy({ user: 'carol', namespace: '', resource: 'namespaces', apiGroup: '' }),
        '# every authenticated user reads under /api/ (not /api itself); anonymous users read /healthz exactly',
        policy({ user: '*', readonly: true, nonResourcePath: '/api/*' }),
        policy({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '/healthz' }),
        '',
      ].join('\n'));
      t = await startTestServer(['--authorization-mode=ABAC', `--authorization-policy-file=${file}`]);
      ids.alice = t.identity('alice');
      ids.rita = t.identity('rita', ['readers']);
      ids.carol = t.identity('carol');
      ids.dave = t.identity('dave');
      ids.anonymous = null;
      for (const ns of ['team', 'other']) await must(t.post('/api/v1/namespaces', NAMESPACE(ns)));
      await must(t.post('/api/v1/namespaces/other/configmaps', CONFIGMAP('cfg')));
    });
    after(async () => {
      await t?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const rows: Array<[string, string, string, unknown, number]> = [
      ['alice', 'POST', '/api/v1/namespaces/team/configmaps', CONFIGMAP('a'), 201],
      ['alice', 'DELETE', '/api/v1/namespaces/team/configmaps/a', undefined, 200],
      ['alice', 'GET', '/apis/rbac.authorization.orch.io/v1/namespaces/team/rolebindings', undefined, 200],
      ['alice', 'GET', '/api/v1/namespaces/other/configmaps', undefined, 403],
      ['alice', 'GET', '/api/v1/configmaps', undefined, 403],
      ['rita', 'GET', '/api/v1/namespaces/other/configmaps/cfg', undefined, 200],
      ['rita', 'GET', '/api/v1/configmaps', undefined, 200],
      ['rita', 'GET', '/api/v1/namespaces', undefined, 200],
      ['rita', 'GET', '/apis/storage.orch.io/v1/storageclasses', undefined, 200],
      ['rita', 'POST', '/api/v1/namespaces/other/configmaps', CONFIGMAP('r'), 403],
      ['rita', 'DELETE', '/api/v1/namespaces/other/configmaps/cfg', undefined, 403],
      ['carol', 'GET', '/api/v1/namespaces', undefined, 200],
      ['carol', 'POST', '/api/v1/namespaces', NAMESPACE('by-carol'), 201],
      ['carol', 'GET', '/api/v1/namespaces/team/configmaps', undefined, 403],
      ['dave', 'GET', '/api/v1', undefined, 200],
      ['dave', 'POST', '/api/v1', {}, 403],
      ['dave', 'GET', '/api', undefined, 403],
      ['dave', 'GET', '/apis', undefined, 403],
      ['dave', 'GET', '/healthz', undefined, 403],
      ['dave', 'GET', '/api/v1/namespaces', undefined, 403],
      ['anonymous', 'GET', '/healthz', undefined, 200],
      ['anonymous', 'GET', '/healthz/etcd', undefined, 403],
      ['anonymous', 'GET', '/api', undefined, 403],
    ];
    for (const [who, method, p, body, status] of rows) {
      it(`${who} ${method} ${p} -> ${status}`, async () => {
        const res = await t.request(method, p, { identity: ids[who], body });
        expect(res.status, res.text).to.equal(status);
      });
    }

    it('a refusal says no policy matched', async () => {
      const res = await t.post('/api/v1/namespaces/other/configmaps', CONFIGMAP('r'), { identity: ids.rita });
      expect(res.body).to.deep.equal(forbidden(
        'configmaps is forbidden: User "rita" cannot create resource "configmaps" in API group "" in the namespace "other": No policy matched.',
        { kind: 'configmaps' },
      ));
    });

    describe('start-up checks', () => {
      let etcd: TestEtcd;
      before(async () => { etcd = await startTestEtcd(); });
      after(async () => { await etcd?.stop(); });

      it('a bad line stops the start with one line naming the flag, the file and the line', async () => {
        const bad = path.join(dir, 'bad.jsonl');
        writeFileSync(bad, `# ok so far\n${policy({ user: 'alice', nonResourcePath: '*' })}\n${policy({ user: 'bob', namspace: 'team' })}\n`);
        const data = mkdtempSync(path.join(os.tmpdir(), 'abac-bad-'));
        try {
          const { code, stderr } = await runToExit([
            `--data-dir=${data}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error',
            '--authorization-mode=RBAC,ABAC', `--authorization-policy-file=${bad}`,
          ]);
          expect(code).to.equal(1);
          expect(stderr.trimEnd().split('\n').filter((l) => l.startsWith('orch-apiserver:'))).to.deep.equal([
            `orch-apiserver: --authorization-policy-file ${bad}: line 3: unknown field "namspace" in spec`,
          ]);
        } finally {
          rmSync(data, { recursive: true, force: true });
        }
      });

      it('ABAC or Webhook without its file, or the file without its mode, stops the start before anything is written', async () => {
        const data = mkdtempSync(path.join(os.tmpdir(), 'abac-flags-'));
        try {
          const noFile = await runToExit([`--data-dir=${data}`, '--authorization-mode=ABAC']);
          expect([noFile.code, noFile.stderr]).to.deep.equal([2, 'orch-apiserver: --authorization-mode ABAC needs --authorization-policy-file\n']);
          const noMode = await runToExit([`--data-dir=${data}`, `--authorization-policy-file=${path.join(dir, 'policy.jsonl')}`]);
          expect([noMode.code, noMode.stderr]).to.deep.equal([2, 'orch-apiserver: --authorization-policy-file needs ABAC in --authorization-mode\n']);
          const noWebhook = await runToExit([`--data-dir=${data}`, '--authorization-mode=RBAC,Webhook']);
          expect([noWebhook.code, noWebhook.stderr]).to.deep.equal([2, 'orch-apiserver: --authorization-mode Webhook needs --authorization-webhook-config-file\n']);
          expect(readdirSync(data)).to.deep.equal([]);
        } finally {
          rmSync(data, { recursive: true, force: true });
        }
      });
    });
  });
});
