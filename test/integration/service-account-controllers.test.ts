/**
 * The service-account controllers over HTTPS against a real etcd: every namespace's `default`
 * ServiceAccount and root-CA ConfigMap (created, put back when deleted or edited, none in a
 * Terminating namespace), token Secrets filled with a legacy token that authenticates as the
 * account (SelfSubjectReview with only the bearer token, TokenReview) and that stops working when
 * the account goes or the Secret's token is changed, orphaned token Secrets deleted, references
 * cleaned, no write loop in a namespace being deleted, two replicas on one etcd, --root-ca-file,
 * and the Kubernetes flavor's names.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { createTestCa } from '../helpers/test-ca';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';

type Obj = Record<string, any>;
const DESCRIPTION = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. '
  + 'No other usage is guaranteed across distributions of Kubernetes clusters.';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nsPath = (ns = '') => `/api/v1/namespaces${ns ? `/${ns}` : ''}`;
const saPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/serviceaccounts${name ? `/${name}` : ''}`;
const secretPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/secrets${name ? `/${name}` : ''}`;
const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

function expectStatus(res: HttpResponse, code: number): void {
  expect(res.status, res.text).to.equal(code);
}

/** The names of one flavor. */
interface Names { domain: string; labelDomain: string; rootCa: string }
const ORCH: Names = { domain: 'orch.io', labelDomain: 'orch.io', rootCa: 'orch-root-ca.crt' };
const KUBE: Names = { domain: 'k8s.io', labelDomain: 'kubernetes.io', rootCa: 'kube-root-ca.crt' };

/** Requests and checks shared by the flavors' suites. */
function client(t: () => TestServer, n: Names) {
  const api = {
    async namespace(name: string): Promise<void> {
      expectStatus(await t().post(nsPath(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), 201);
    },
    async account(ns: string, name: string, fields: Obj = {}): Promise<Obj> {
      const res = await t().post(saPath(ns), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name }, ...fields });
      expectStatus(res, 201);
      return res.body;
    },
    async tokenSecret(ns: string, name: string, account: string, extra: { data?: Obj; annotations?: Obj; finalizers?: string[] } = {}): Promise<Obj> {
      const res = await t().post(secretPath(ns), {
        apiVersion: 'v1', kind: 'Secret', type: `${n.labelDomain}/service-account-token`,
        metadata: { name, annotations: { [`${n.labelDomain}/service-account.name`]: account, ...extra.annotations }, finalizers: extra.finalizers },
        data: extra.data,
      });
      expectStatus(res, 201);
      return res.body;
    },
    /** The Secret once the controller has given it a token. */
    filled: (ns: string, name: string) => eventually(async () => {
      const res = await t().get(secretPath(ns, name));
      return res.status === 200 && res.body.data?.token ? res.body as Obj : undefined;
    }),
    gone: (p: string) => eventually(async () => (await t().get(p)).status === 404),
    /** SelfSubjectReview with only the bearer token (no client certificate). */
    whoami: (token: string) => t().post(`/apis/authentication.${n.domain}/v1/selfsubjectreviews`,
      { apiVersion: `authentication.${n.domain}/v1`, kind: 'SelfSubjectReview' }, { identity: null, headers: { authorization: `Bearer ${token}` } }),
    review: (token: string) => t().post(`/apis/authentication.${n.domain}/v1/tokenreviews`,
      { apiVersion: `authentication.${n.domain}/v1`, kind: 'TokenReview', spec: { token } }),
    /** Resolves once the token is refused (401), as the authenticator's per-request lookups decide. */
    refused: (token: string) => eventually(async () => (await api.whoami(token)).status === 401),
  };
  return api;
}

describe('service-account controllers', () => {
  let t: TestServer;
  const api = client(() => t, ORCH);
  const caPem = () => t.server.pki.caCertPem;

  // Without leader election: both replicas below run their controllers (they must not fight),
  // and no lease renewal (the controllers' or the default/kubernetes endpoints') moves etcd's revision in the write-loop check.
  before(async () => { t = await startTestServer(['--leader-elect=false', '--endpoint-reconciler-type=none']); });
  after(async () => { await t?.stop(); });

  describe('default ServiceAccount and root CA ConfigMap', () => {
    it('every namespace there at start has both', async () => {
      for (const ns of ['default', 'orch-system', 'orch-public']) {
        await eventually(async () => (await t.get(saPath(ns, 'default'))).status === 200);
        const cm = await eventually(async () => { const r = await t.get(cmPath(ns, ORCH.rootCa)); return r.status === 200 && r.body; });
        expect(cm.data).to.deep.equal({ 'ca.crt': caPem() });
      }
    });

    it('a new namespace gets `default` and the ConfigMap with the CA PEM and the description', async () => {
      await api.namespace('sa-new');
      const sa = await eventually(async () => { const r = await t.get(saPath('sa-new', 'default')); return r.status === 200 && r.body; });
      expect(sa.metadata).to.include({ name: 'default', namespace: 'sa-new' });
      const cm = await eventually(async () => { const r = await t.get(cmPath('sa-new', ORCH.rootCa)); return r.status === 200 && r.body; });
      expect(cm.data).to.deep.equal({ 'ca.crt': caPem() });
      expect(cm.metadata.annotations).to.deep.equal({ 'orch.io/description': DESCRIPTION });
      // The PEM is the CA that verifies the server's serving certificate.
      expect(cm.data['ca.crt']).to.equal(readFileSync(t.server.pki.caCertFile, 'utf8'));
    });

    it('a deleted `default` comes back (a new object)', async () => {
      await api.namespace('sa-again');
      const first = await eventually(async () => { const r = await t.get(saPath('sa-again', 'default')); return r.status === 200 && r.body; });
      expectStatus(await t.del(saPath('sa-again', 'default')), 200);
      const again = await eventually(async () => {
        const r = await t.get(saPath('sa-again', 'default'));
        return r.status === 200 && r.body.metadata.uid !== first.metadata.uid && r.body;
      }, 5000);
      expect(again.metadata.name).to.equal('default');
    });

    it('a deleted ConfigMap comes back; an edited one is put back (data and description)', async () => {
      await api.namespace('ca-again');
      const p = cmPath('ca-again', ORCH.rootCa);
      const first = await eventually(async () => { const r = await t.get(p); return r.status === 200 && r.body; });
      expectStatus(await t.del(p), 200);
      await eventually(async () => { const r = await t.get(p); return r.status === 200 && r.body.metadata.uid !== first.metadata.uid; }, 5000);

      const back = (await t.get(p)).body;
      const otherCa = createTestCa('not-the-root').certPem;
      const edited = await t.put(p, { ...back, data: { 'ca.crt': otherCa, extra: 'x' }, metadata: { ...back.metadata, annotations: {} } });
      expectStatus(edited, 200);
      const fixed = await eventually(async () => {
        const r = await t.get(p);
        return r.body.metadata.resourceVersion !== edited.body.metadata.resourceVersion && r.body;
      }, 5000);
      expect(fixed.data).to.deep.equal({ 'ca.crt': caPem() });
      expect(fixed.metadata.annotations).to.deep.equal({ 'orch.io/description': DESCRIPTION });

      // Not a certificate at all: put back too.
      expectStatus(await t.put(p, { ...fixed, data: { 'ca.crt': 'garbage' } }), 200);
      await eventually(async () => (await t.get(p)).body.data['ca.crt'] === caPem(), 5000);
    });

    it('a Terminating namespace gets neither back, and the namespace goes once its content does', async () => {
      await api.namespace('sa-ending');
      await eventually(async () => (await t.get(saPath('sa-ending', 'default'))).status === 200);
      await eventually(async () => (await t.get(cmPath('sa-ending', ORCH.rootCa))).status === 200);
      // Something with a finalizer keeps the namespace Terminating.
      expectStatus(await t.post(cmPath('sa-ending'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } }), 201);
      expectStatus(await t.del(nsPath('sa-ending')), 200);
      await api.gone(saPath('sa-ending', 'default'));
      await api.gone(cmPath('sa-ending', ORCH.rootCa));
      await sleep(1500);
      expectStatus(await t.get(saPath('sa-ending', 'default')), 404);
      expectStatus(await t.get(cmPath('sa-ending', ORCH.rootCa)), 404);
      expect((await t.get(nsPath('sa-ending'))).body.status.phase).to.equal('Terminating');
      const held = (await t.get(cmPath('sa-ending', 'held'))).body;
      expectStatus(await t.put(cmPath('sa-ending', 'held'), { ...held, metadata: { ...held.metadata, finalizers: [] } }), 200);
      await api.gone(nsPath('sa-ending'));
    });
  });

  describe('token Secrets', () => {
    const NS = 'tokens';
    before(async () => { await api.namespace(NS); });

    it('a token Secret of an existing account gets token, ca.crt, namespace and the uid annotation; the token authenticates as the account', async () => {
      const sa = await api.account(NS, 'builder');
      await api.tokenSecret(NS, 'builder-token', 'builder');
      const secret = await api.filled(NS, 'builder-token');
      expect(Object.keys(secret.data).sort()).to.deep.equal(['ca.crt', 'namespace', 'token']);
      expect(unb64(secret.data['ca.crt'])).to.equal(caPem());
      expect(unb64(secret.data.namespace)).to.equal(NS);
      expect(secret.metadata.annotations).to.deep.equal({ 'orch.io/service-account.name': 'builder', 'orch.io/service-account.uid': sa.metadata.uid });
      expect(secret.metadata.managedFields.map((m: Obj) => m.manager)).to.include('orch-controller-manager');
      const token = unb64(secret.data.token);
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
      expect(claims).to.deep.include({
        iss: 'orch/serviceaccount', sub: `system:serviceaccount:${NS}:builder`,
        'orch.io/serviceaccount/namespace': NS, 'orch.io/serviceaccount/secret.name': 'builder-token',
        'orch.io/serviceaccount/service-account.name': 'builder', 'orch.io/serviceaccount/service-account.uid': sa.metadata.uid,
      });

      const who = await api.whoami(token);
      expectStatus(who, 201);
      expect(who.body.status.userInfo).to.deep.equal({
        username: `system:serviceaccount:${NS}:builder`, uid: sa.metadata.uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'],
      });
      const review = await api.review(token);
      expectStatus(review, 201);
      expect(review.body.status).to.deep.include({ authenticated: true });
      expect(review.body.status.user).to.deep.include({ username: `system:serviceaccount:${NS}:builder`, uid: sa.metadata.uid });
      // The account's rights are RBAC's: discovery (system:discovery), not the namespaces.
      expectStatus(await t.get('/api', { identity: null, headers: { authorization: `Bearer ${token}` } }), 200);
      expectStatus(await t.get(nsPath(), { identity: null, headers: { authorization: `Bearer ${token}` } }), 403);
    });

    it('the filled Secret is not written again', async () => {
      await api.account(NS, 'steady');
      await api.tokenSecret(NS, 'steady-token', 'steady');
      const filled = await api.filled(NS, 'steady-token');
      await sleep(1000);
      expect((await t.get(secretPath(NS, 'steady-token'))).body.metadata.resourceVersion).to.equal(filled.metadata.resourceVersion);
    });

    it('a token that is already there is kept; only a missing ca.crt and namespace are filled', async () => {
      await api.account(NS, 'preset');
      await api.tokenSecret(NS, 'preset-token', 'preset', { data: { token: b64('not-a-jwt') } });
      const secret = await eventually(async () => { const r = await t.get(secretPath(NS, 'preset-token')); return r.body.data?.namespace && r.body; });
      expect(secret.data).to.deep.equal({ token: b64('not-a-jwt'), 'ca.crt': b64(caPem()), namespace: b64(NS) });
    });

    it('changing data.token makes the old token 401, and the new value is left as it is', async () => {
      await api.account(NS, 'rotated');
      await api.tokenSecret(NS, 'rotated-token', 'rotated');
      const secret = await api.filled(NS, 'rotated-token');
      const token = unb64(secret.data.token);
      expectStatus(await api.whoami(token), 201);
      expectStatus(await t.put(secretPath(NS, 'rotated-token'), { ...secret, data: { ...secret.data, token: b64('replaced') } }), 200);
      await api.refused(token);
      const res = await api.whoami(token);
      expect(res.body).to.include({ kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
      await sleep(500);
      expect((await t.get(secretPath(NS, 'rotated-token'))).body.data.token).to.equal(b64('replaced'));
    });

    it('deleting the account deletes its token Secrets, and their tokens are refused', async () => {
      await api.account(NS, 'leaving');
      await api.tokenSecret(NS, 'leaving-token', 'leaving');
      await api.tokenSecret(NS, 'leaving-token-2', 'leaving');
      const token = unb64((await api.filled(NS, 'leaving-token')).data.token);
      await api.filled(NS, 'leaving-token-2');
      expectStatus(await api.whoami(token), 201);
      expectStatus(await t.del(saPath(NS, 'leaving')), 200);
      await api.gone(secretPath(NS, 'leaving-token'));
      await api.gone(secretPath(NS, 'leaving-token-2'));
      const res = await api.whoami(token);
      expectStatus(res, 401);
      const review = await api.review(token);
      expectStatus(review, 201);
      expect(review.body.status.authenticated).to.not.equal(true);
      expect(review.body.status.user).to.deep.equal({});
    });

    it('a token Secret naming a missing account is deleted', async () => {
      await api.tokenSecret(NS, 'orphan-token', 'nobody');
      await api.gone(secretPath(NS, 'orphan-token'));
    });

    it('a token Secret whose uid annotation names another account uid is deleted', async () => {
      await api.account(NS, 'renamed');
      await api.tokenSecret(NS, 'stale-uid-token', 'renamed', { annotations: { 'orch.io/service-account.uid': '00000000-0000-0000-0000-000000000000' } });
      await api.gone(secretPath(NS, 'stale-uid-token'));
    });

    it('other Secrets are left alone', async () => {
      const res = await t.post(secretPath(NS), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain', annotations: { 'orch.io/service-account.name': 'nobody' } }, stringData: { a: 'b' } });
      expectStatus(res, 201);
      await sleep(1000);
      const now = await t.get(secretPath(NS, 'plain'));
      expectStatus(now, 200);
      expect(now.body.metadata.resourceVersion).to.equal(res.body.metadata.resourceVersion);
    });

    it('a deleted token Secret is taken out of its account\'s secrets', async () => {
      await api.account(NS, 'referencing', { secrets: [{ name: 'kept' }, { name: 'referencing-token' }] });
      await api.tokenSecret(NS, 'referencing-token', 'referencing');
      await api.filled(NS, 'referencing-token');
      expectStatus(await t.del(secretPath(NS, 'referencing-token')), 200);
      await eventually(async () => {
        const sa = (await t.get(saPath(NS, 'referencing'))).body;
        return JSON.stringify(sa.secrets) === JSON.stringify([{ name: 'kept' }]);
      }, 5000);
    });

    it('token Secrets in a namespace being deleted cause no write loop', async () => {
      const ns = 'tokens-ending';
      await api.namespace(ns);
      await api.account(ns, 'worker');
      await api.tokenSecret(ns, 'worker-token', 'worker', { finalizers: ['example.com/hold'] });
      await api.filled(ns, 'worker-token');
      // One whose account is missing: deleted at once, kept Terminating by its finalizer.
      await api.tokenSecret(ns, 'orphan-token', 'nobody', { finalizers: ['example.com/hold'] });
      await eventually(async () => !!(await t.get(secretPath(ns, 'orphan-token'))).body.metadata.deletionTimestamp);
      expectStatus(await t.del(nsPath(ns)), 200);
      await api.gone(saPath(ns, 'worker'));
      await eventually(async () => !!(await t.get(secretPath(ns, 'worker-token'))).body.metadata.deletionTimestamp);
      await sleep(1500);
      // Nothing is written any more: etcd's revision stands still.
      const before = await t.server.storage.currentRevision();
      await sleep(2000);
      expect(await t.server.storage.currentRevision()).to.equal(before);
      // The controllers still work elsewhere.
      await api.account(NS, 'after');
      await api.tokenSecret(NS, 'after-token', 'after');
      await api.filled(NS, 'after-token');
      for (const name of ['worker-token', 'orphan-token']) {
        const s = (await t.get(secretPath(ns, name))).body;
        expectStatus(await t.put(secretPath(ns, name), { ...s, metadata: { ...s.metadata, finalizers: [] } }), 200);
      }
      await api.gone(nsPath(ns));
    });
  });

  describe('two replicas on one etcd', () => {
    let other: RunningServer;
    let dataDir: string;
    before(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-replica-'));
      other = await startServer(parseFlags([`--etcd-servers=${t.etcdEndpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', '--leader-elect=false']));
    });
    after(async () => {
      await other?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('one `default` per namespace; the root CA ConfigMap settles on both CAs; a token Secret is filled once', async () => {
      expect(other.pki.caCertPem).to.not.equal(caPem());
      await api.namespace('replicated');
      await eventually(async () => (await t.get(saPath('replicated', 'default'))).status === 200);
      const p = cmPath('replicated', ORCH.rootCa);
      const settled = await eventually(async () => {
        const r = await t.get(p);
        const ca = r.body?.data?.['ca.crt'] as string | undefined;
        return ca?.includes(caPem().trim()) && ca.includes(other.pki.caCertPem.trim()) && r.body;
      });
      await sleep(1500);
      expect((await t.get(p)).body.metadata.resourceVersion).to.equal(settled.metadata.resourceVersion);
      expect(settled.metadata.annotations).to.deep.equal({ 'orch.io/description': DESCRIPTION });

      await api.account('replicated', 'shared');
      await api.tokenSecret('replicated', 'shared-token', 'shared');
      const filled = await api.filled('replicated', 'shared-token');
      await sleep(1000);
      expect((await t.get(secretPath('replicated', 'shared-token'))).body.metadata.resourceVersion).to.equal(filled.metadata.resourceVersion);
    });

    it('an edit is still put back, to both CAs', async () => {
      const p = cmPath('replicated', ORCH.rootCa);
      const cm = (await t.get(p)).body;
      const edited = await t.put(p, { ...cm, data: { 'ca.crt': 'garbage' } });
      expectStatus(edited, 200);
      const settled = await eventually(async () => {
        const r = await t.get(p);
        const ca = r.body.data['ca.crt'] as string;
        return ca.includes(caPem().trim()) && ca.includes(other.pki.caCertPem.trim()) && r.body;
      });
      await sleep(1500);
      expect((await t.get(p)).body.metadata.resourceVersion).to.equal(settled.metadata.resourceVersion);
    });
  });
});

describe('service-account controllers with --root-ca-file', () => {
  let t: TestServer;
  let dir: string;
  const rootCa = createTestCa('published-root').certPem;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'root-ca-'));
    writeFileSync(path.join(dir, 'ca.crt'), rootCa);
    writeFileSync(path.join(dir, 'bad.crt'), 'not a certificate\n');
    t = await startTestServer([`--root-ca-file=${path.join(dir, 'ca.crt')}`]);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the ConfigMap and token Secrets hold the file\'s contents', async () => {
    const api = client(() => t, ORCH);
    await api.namespace('with-root-ca');
    const cm = await eventually(async () => { const r = await t.get(cmPath('with-root-ca', ORCH.rootCa)); return r.status === 200 && r.body; });
    expect(cm.data).to.deep.equal({ 'ca.crt': rootCa });
    await api.account('with-root-ca', 'app');
    await api.tokenSecret('with-root-ca', 'app-token', 'app');
    expect(unb64((await api.filled('with-root-ca', 'app-token')).data['ca.crt'])).to.equal(rootCa);
  });

  it('an unreadable or non-PEM file stops the start with one line naming the flag', async () => {
    for (const [file, why] of [[path.join(dir, 'missing.crt'), 'cannot read: ENOENT'], [path.join(dir, 'bad.crt'), 'no PEM certificate found']]) {
      let error: Error | undefined;
      await startTestServer([`--root-ca-file=${file}`]).then((s) => s.stop(), (e) => { error = e; });
      expect(error?.message).to.equal(`--root-ca-file=${file}: ${why}`);
    }
  });
});

describe('service-account controllers with --watch-cache=false and protobuf storage', () => {
  let t: TestServer;
  const api = client(() => t, ORCH);
  before(async () => { t = await startTestServer(['--watch-cache=false', '--storage-media-type=application/vnd.kubernetes.protobuf']); });
  after(async () => { await t?.stop(); });

  it('work from etcd watches alike', async () => {
    await api.namespace('no-cache');
    const first = await eventually(async () => { const r = await t.get(saPath('no-cache', 'default')); return r.status === 200 && r.body; });
    const cm = await eventually(async () => { const r = await t.get(cmPath('no-cache', ORCH.rootCa)); return r.status === 200 && r.body; });
    expect(cm.data).to.deep.equal({ 'ca.crt': t.server.pki.caCertPem });
    expectStatus(await t.del(saPath('no-cache', 'default')), 200);
    await eventually(async () => { const r = await t.get(saPath('no-cache', 'default')); return r.status === 200 && r.body.metadata.uid !== first.metadata.uid; }, 5000);
    expectStatus(await t.put(cmPath('no-cache', ORCH.rootCa), { ...cm, data: { 'ca.crt': 'garbage' } }), 200);
    await eventually(async () => (await t.get(cmPath('no-cache', ORCH.rootCa))).body.data['ca.crt'] === t.server.pki.caCertPem, 5000);

    const sa = await api.account('no-cache', 'app');
    await api.tokenSecret('no-cache', 'app-token', 'app');
    const token = unb64((await api.filled('no-cache', 'app-token')).data.token);
    const who = await api.whoami(token);
    expectStatus(who, 201);
    expect(who.body.status.userInfo).to.include({ username: 'system:serviceaccount:no-cache:app', uid: sa.metadata.uid });
    expectStatus(await t.del(saPath('no-cache', 'app')), 200);
    await api.gone(secretPath('no-cache', 'app-token'));
    await api.refused(token);
  });
});

describe('service-account controllers with --flavor=kubernetes', () => {
  let t: TestServer;
  const api = client(() => t, KUBE);
  before(async () => { t = await startTestServer(['--flavor=kubernetes']); });
  after(async () => { await t?.stop(); });

  it('publish kube-root-ca.crt with kubernetes.io/description and fill kubernetes.io/service-account-token Secrets', async () => {
    await api.namespace('kube-names');
    await eventually(async () => (await t.get(saPath('kube-names', 'default'))).status === 200);
    const cm = await eventually(async () => { const r = await t.get(cmPath('kube-names', 'kube-root-ca.crt')); return r.status === 200 && r.body; });
    expect(cm.data).to.deep.equal({ 'ca.crt': t.server.pki.caCertPem });
    expect(cm.metadata.annotations).to.deep.equal({ 'kubernetes.io/description': DESCRIPTION });
    for (const ns of ['kube-system', 'kube-public']) await eventually(async () => (await t.get(cmPath(ns, 'kube-root-ca.crt'))).status === 200);
    expectStatus(await t.get(cmPath('kube-names', 'orch-root-ca.crt')), 404);

    const sa = await api.account('kube-names', 'builder');
    await api.tokenSecret('kube-names', 'builder-token', 'builder');
    const secret = await api.filled('kube-names', 'builder-token');
    expect(secret.type).to.equal('kubernetes.io/service-account-token');
    expect(secret.metadata.annotations).to.deep.equal({ 'kubernetes.io/service-account.name': 'builder', 'kubernetes.io/service-account.uid': sa.metadata.uid });
    const token = unb64(secret.data.token);
    expect(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).iss).to.equal('kubernetes/serviceaccount');
    const who = await api.whoami(token);
    expectStatus(who, 201);
    expect(who.body.status.userInfo).to.include({ username: 'system:serviceaccount:kube-names:builder', uid: sa.metadata.uid });
  });
});
