/**
 * The admission chain through HTTPS against the real server: which plugins run for
 * --enable/--disable-admission-plugins (order irrelevant, the spec's defaults, unknown names stop
 * the start), --admission-control-config-file (inline and by path, bad files stop the start with
 * one line), AlwaysDeny and AlwaysAdmit, and when admission runs: every write verb, subresources,
 * each item of a deletecollection, dry runs (nothing written), never reads; a rejection in the
 * validating phase after a mutating change writes nothing.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { AdmissionAttributes } from '../../lib/registry/admission-attributes';
import { errors } from '../../lib/meta/api-errors';

const MAIN = path.resolve(__dirname, '../../lib/server/main.js');
const CM = '/api/v1/namespaces/default/configmaps';
const APPLY = 'application/apply-patch+yaml';
const DENIED = 'admission control is denying all modifications';

interface Call { phase: 'admit' | 'validate'; operation: string; resource: string; subresource?: string; name: string; dryRun: boolean }

/** Records every call of the server's chain (the store calls it by method, so wrapping the instance sees them all). */
function spy(t: TestServer, extra: { admit?: (a: AdmissionAttributes) => void; validate?: (a: AdmissionAttributes) => void } = {}) {
  const chain = t.server.admission;
  const admit = chain.admit.bind(chain);
  const validate = chain.validate.bind(chain);
  const calls: Call[] = [];
  const record = (phase: Call['phase'], a: AdmissionAttributes) => calls.push({
    phase, operation: a.operation, resource: a.resource.resource, name: a.name, dryRun: a.dryRun, ...(a.subresource ? { subresource: a.subresource } : {}),
  });
  chain.admit = async (a) => { record('admit', a); await admit(a); extra.admit?.(a); };
  chain.validate = async (a) => { record('validate', a); extra.validate?.(a); await validate(a); };
  return {
    calls,
    restore: () => { chain.admit = admit; chain.validate = validate; },
    of: (resource: string) => calls.filter((c) => c.resource === resource),
  };
}

/** Runs the built server binary until it exits (a start refused before serving). */
function runBinary(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

const cm = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data: { a: '1' } });

describe('admission chain', function () {
  this.timeout(120_000);
  let t: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'admission-chain-'));
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('the default set', () => {
    it('runs NamespaceLifecycle and neither AlwaysAdmit nor AlwaysDeny', async () => {
      const names = t.server.admission.names();
      expect(names).to.include('NamespaceLifecycle').and.not.include('AlwaysDeny').and.not.include('AlwaysAdmit');
      const res = await t.post('/api/v1/namespaces/nowhere/configmaps', cm('orphan'));
      expect(res.status, res.text).to.equal(404);
      expect(res.body.message).to.equal('namespaces "nowhere" not found');
    });
  });

  describe('when admission runs', () => {
    let s: ReturnType<typeof spy>;
    beforeEach(() => { s = spy(t); });
    afterEach(() => s.restore());

    it('create, update, patch, apply and delete go through both phases; reads never', async () => {
      expect((await t.post(CM, cm('verbs'))).status).to.equal(201);
      const current = (await t.get(`${CM}/verbs`)).body;
      expect((await t.put(`${CM}/verbs`, { ...current, data: { a: '2' } })).status).to.equal(200);
      const patched = await t.request('PATCH', `${CM}/verbs`, { raw: JSON.stringify({ data: { b: '3' } }), headers: { 'content-type': 'application/merge-patch+json' } });
      expect(patched.status, patched.text).to.equal(200);
      const applied = await t.request('PATCH', `${CM}/applied?fieldManager=test`, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  x: "1"\n', headers: { 'content-type': APPLY } });
      expect(applied.status, applied.text).to.equal(201);
      const reapplied = await t.request('PATCH', `${CM}/applied?fieldManager=test`, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  x: "2"\n', headers: { 'content-type': APPLY } });
      expect(reapplied.status, reapplied.text).to.equal(200);
      expect((await t.del(`${CM}/verbs`)).status).to.equal(200);
      // Only this test's objects: controllers write configmaps of their own meanwhile.
      const ops = s.of('configmaps').filter((c) => ['verbs', 'applied'].includes(c.name)).map((c) => `${c.phase} ${c.operation} ${c.name}`);
      // The PUT and the merge patch: each admit/validate pair at least once. A write that loses
      // its compare-and-swap (the object read a moment before a concurrent write landed) runs
      // admission again on the fresh object, as Kubernetes' GuaranteedUpdate does: so 2 pairs or more.
      const firstUpdate = ops.indexOf('admit UPDATE verbs');
      const updates = ops.filter((o) => o.endsWith('UPDATE verbs'));
      expect(updates.length).to.be.within(4, 8);
      expect(ops.slice(firstUpdate, firstUpdate + updates.length), 'the update pairs come together').to.deep.equal(updates);
      for (let i = 0; i < updates.length; i += 2) expect(updates.slice(i, i + 2)).to.deep.equal(['admit UPDATE verbs', 'validate UPDATE verbs']);
      expect(ops.filter((o) => !o.endsWith('UPDATE verbs'))).to.deep.equal([
        'admit CREATE verbs', 'validate CREATE verbs', 'admit CREATE applied', 'validate CREATE applied',
        'admit UPDATE applied', 'validate UPDATE applied', 'admit DELETE verbs', 'validate DELETE verbs',
      ]);
      expect(firstUpdate).to.equal(2);

      const before = s.calls.length;
      expect((await t.get(`${CM}/applied`)).status).to.equal(200);
      expect((await t.get(CM)).status).to.equal(200);
      expect((await t.get(`${CM}?watch=1&timeoutSeconds=1`)).status).to.equal(200);
      expect((await t.get('/api/v1/namespaces/default')).status).to.equal(200);
      expect(s.calls.length).to.equal(before);
    });

    it('runs for each item of a deletecollection', async () => {
      for (const name of ['dc-1', 'dc-2', 'dc-3']) expect((await t.post(CM, cm(name, { batch: 'dc' }))).status).to.equal(201);
      const res = await t.del(`${CM}?labelSelector=batch%3Ddc`);
      expect(res.status, res.text).to.equal(200);
      const deletes = s.of('configmaps').filter((c) => c.operation === 'DELETE' && c.name.startsWith('dc-'));
      expect(deletes.filter((c) => c.phase === 'admit').map((c) => c.name).sort()).to.deep.equal(['dc-1', 'dc-2', 'dc-3']);
      expect(deletes.filter((c) => c.phase === 'validate').map((c) => c.name).sort()).to.deep.equal(['dc-1', 'dc-2', 'dc-3']);
    });

    it('runs for subresources (pods/status)', async () => {
      // The service-account controller's `default` account first (the ServiceAccount plugin needs it).
      await eventually(async () => (await t.get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
      const created = await t.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'with-status' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      expect(created.status, created.text).to.equal(201);
      const res = await t.put('/api/v1/namespaces/default/pods/with-status/status', { ...created.body, status: { ...created.body.status, message: 'hi' } });
      expect(res.status, res.text).to.equal(200);
      expect(s.of('pods').filter((c) => c.name === 'with-status').map((c) => `${c.phase} ${c.operation} ${c.subresource ?? ''}`)).to.deep.equal([
        'admit CREATE ', 'validate CREATE ', 'admit UPDATE status', 'validate UPDATE status',
      ]);
    });

    it('runs for a dry run, which writes nothing', async () => {
      const res = await t.post(`${CM}?dryRun=All`, cm('dry'));
      expect(res.status, res.text).to.equal(201);
      expect(s.of('configmaps').filter((c) => c.name === 'dry').map((c) => `${c.phase} ${c.dryRun}`)).to.deep.equal(['admit true', 'validate true']);
      expect((await t.get(`${CM}/dry`)).status).to.equal(404);
    });
  });

  describe('a rejection in the validating phase after a mutating change', () => {
    let s: ReturnType<typeof spy>;
    const refused = (a: AdmissionAttributes) => a.name.startsWith('refused-');
    before(() => {
      s = spy(t, {
        admit: (a) => { if (refused(a) && a.object) a.object.metadata = { ...a.object.metadata, labels: { mutated: 'yes' } }; },
        validate: (a) => { if (refused(a)) throw errors.forbidden({ group: '', resource: 'configmaps' }, a.name, 'refused by the test'); },
      });
    });
    after(() => s.restore());

    it('writes nothing on create or update', async () => {
      const res = await t.post(CM, cm('refused-new'));
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal('configmaps "refused-new" is forbidden: refused by the test');
      expect((await t.get(`${CM}/refused-new`)).status).to.equal(404);

      s.restore();
      expect((await t.post(CM, cm('refused-old'))).status).to.equal(201);
      const stored = (await t.get(`${CM}/refused-old`)).body;
      s = spy(t, {
        admit: (a) => { if (refused(a) && a.object) a.object.metadata = { ...a.object.metadata, labels: { mutated: 'yes' } }; },
        validate: (a) => { if (refused(a)) throw errors.forbidden({ group: '', resource: 'configmaps' }, a.name, 'refused by the test'); },
      });
      const upd = await t.put(`${CM}/refused-old`, { ...stored, data: { a: 'changed' } });
      expect(upd.status, upd.text).to.equal(403);
      const after = (await t.get(`${CM}/refused-old`)).body;
      expect(after.metadata.resourceVersion).to.equal(stored.metadata.resourceVersion);
      expect(after.data).to.deep.equal({ a: '1' });
      expect(after.metadata.labels).to.equal(undefined);
    });
  });

  describe('AlwaysDeny', () => {
    let deny: TestServer;
    before(async () => {
      // Objects to change, written through the ordinary server on the same etcd.
      for (const name of ['target', 'coll-1', 'coll-2']) expect((await t.post(CM, cm(name, { coll: name.startsWith('coll') ? 'yes' : 'no' }))).status).to.equal(201);
      deny = await startTestServer(['--enable-admission-plugins=AlwaysDeny'], { etcd: t.etcd });
    });
    after(async () => { await deny?.stop(); });

    const expectDenied = (res: { status: number; text: string; body: any }, name: string, resource = 'configmaps') => {
      expect(res.status, res.text).to.equal(403);
      expect(res.body).to.deep.include({ kind: 'Status', reason: 'Forbidden', code: 403, message: `${resource} "${name}" is forbidden: ${DENIED}` });
    };

    it('runs last', () => {
      expect(deny.server.admission.names().slice(-1)).to.deep.equal(['AlwaysDeny']);
    });

    it('refuses create, update, patch, apply, delete and deletecollection, writing nothing', async () => {
      const stored = (await deny.get(`${CM}/target`)).body;
      expectDenied(await deny.post(CM, cm('new-one')), 'new-one');
      expectDenied(await deny.put(`${CM}/target`, { ...stored, data: { a: '2' } }), 'target');
      expectDenied(await deny.request('PATCH', `${CM}/target`, { raw: '{"data":{"a":"3"}}', headers: { 'content-type': 'application/merge-patch+json' } }), 'target');
      expectDenied(await deny.request('PATCH', `${CM}/target?fieldManager=test&force=true`, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\ndata:\n  a: "4"\n', headers: { 'content-type': APPLY } }), 'target');
      expectDenied(await deny.post(`${CM}?dryRun=All`, cm('dry-one')), 'dry-one');
      expectDenied(await deny.del(`${CM}/target`), 'target');
      const dc = await deny.del(`${CM}?labelSelector=coll%3Dyes`);
      expect(dc.status, dc.text).to.equal(403);
      expect(dc.body.message).to.match(/^configmaps "coll-[12]" is forbidden: admission control is denying all modifications$/);

      expect((await deny.get(`${CM}/new-one`)).status).to.equal(404);
      const after = (await deny.get(`${CM}/target`)).body;
      expect(after.metadata.resourceVersion).to.equal(stored.metadata.resourceVersion);
      expect(after.metadata.deletionTimestamp).to.equal(undefined);
      const list = await deny.get(`${CM}?labelSelector=coll%3Dyes`);
      expect(list.status).to.equal(200);
      expect(list.body.items.map((i: any) => i.metadata.name).sort()).to.deep.equal(['coll-1', 'coll-2']);
    });

    it('refuses subresource writes (namespaces/status and namespaces/finalize)', async () => {
      const ns = (await deny.get('/api/v1/namespaces/default')).body;
      expectDenied(await deny.put('/api/v1/namespaces/default/status', ns), 'default', 'namespaces');
      expectDenied(await deny.put('/api/v1/namespaces/default/finalize', ns), 'default', 'namespaces');
    });
  });

  describe('AlwaysAdmit and --disable-admission-plugins', () => {
    let admit: TestServer;
    before(async () => {
      admit = await startTestServer(['--disable-admission-plugins=NamespaceLifecycle', '--enable-admission-plugins=AlwaysAdmit'], { etcd: t.etcd });
    });
    after(async () => { await admit?.stop(); });

    it('admits what NamespaceLifecycle would have refused', async () => {
      const names = admit.server.admission.names();
      expect(names[0]).to.equal('AlwaysAdmit');
      expect(names).not.to.include('NamespaceLifecycle');
      const res = await admit.post('/api/v1/namespaces/nowhere/configmaps', cm('orphan'));
      expect(res.status, res.text).to.equal(201);
      expect((await t.post('/api/v1/namespaces/nowhere/configmaps', cm('orphan-2'))).status).to.equal(404);
    });
  });

  describe('--admission-control-config-file', () => {
    const write = (name: string, text: string) => { const f = path.join(dir, name); writeFileSync(f, text); return f; };
    const refusal = async (flags: string[]): Promise<string> => {
      const err = await startTestServer(flags, { etcd: t.etcd }).then(async (s) => { await s.stop(); return undefined; }, (e: Error) => e);
      expect(err, 'the server started').to.be.instanceOf(Error);
      expect(err!.message.split('\n')).to.have.length(1);
      return err!.message;
    };

    it('gives a plugin its inline configuration (JSON)', async () => {
      // The backend is unreachable and defaultAllow true: pods pass marked failed-open, which only the inline configuration says.
      const kubeconfig = write('down.kubeconfig', JSON.stringify({
        apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'x', cluster: { server: 'https://127.0.0.1:1/images', 'insecure-skip-tls-verify': true } }],
      }));
      const file = write('inline.json', JSON.stringify({
        apiVersion: 'apiserver.config.orch.io/v1', kind: 'AdmissionConfiguration',
        plugins: [{ name: 'ImagePolicyWebhook', configuration: { imagePolicy: { kubeConfigFile: kubeconfig, defaultAllow: true, retryBackoff: -1 } } }],
      }));
      const s = await startTestServer(['--enable-admission-plugins=ImagePolicyWebhook', '--disable-admission-plugins=ServiceAccount', `--admission-control-config-file=${file}`], { etcd: t.etcd });
      try {
        const res = await s.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'inline-config' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
        expect(res.status, res.text).to.equal(201);
        expect(res.body.metadata.annotations).to.deep.equal({ 'alpha.image-policy.orch.io/failed-open': 'true' });
      } finally {
        await s.stop();
      }
    });

    it('stops the start with one line for a missing, malformed or wrong file', async () => {
      const missing = path.join(dir, 'missing.yaml');
      expect(await refusal([`--admission-control-config-file=${missing}`])).to.equal(`cannot read ${missing}: ENOENT`);
      const wrongKind = write('kind.yaml', 'apiVersion: v1\nkind: ConfigMap\n');
      expect(await refusal([`--admission-control-config-file=${wrongKind}`]))
        .to.equal(`admission configuration ${wrongKind}: expected kind AdmissionConfiguration of apiserver.config.orch.io/v1, got "ConfigMap" of "v1"`);
      const unknown = write('unknown.yaml', 'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: Foo\n  configuration: {}\n');
      expect(await refusal([`--admission-control-config-file=${unknown}`]))
        .to.equal(`admission configuration ${unknown}: plugins[0].name: admission plugin "Foo" is unknown`);
    });

    it('the server binary exits with that line', async () => {
      const data = mkdtempSync(path.join(os.tmpdir(), 'admission-chain-bin-'));
      try {
        const missing = path.join(dir, 'absent.yaml');
        const { code, stderr } = await runBinary([`--data-dir=${data}`, '--secure-port=0', '--log-level=error', `--admission-control-config-file=${missing}`]);
        expect(code).to.equal(1);
        expect(stderr.trimEnd().split('\n')).to.deep.equal([`orch-apiserver: cannot read ${missing}: ENOENT`]);
      } finally {
        rmSync(data, { recursive: true, force: true });
      }
    });
  });

  describe('unknown plugin names', () => {
    it('stop the server binary with kube-apiserver\'s line', async () => {
      const { code, stderr } = await runBinary(['--enable-admission-plugins=AlwaysAdmit,Foo']);
      expect(code).to.equal(2);
      expect(stderr).to.equal('orch-apiserver: enable-admission-plugins plugin "Foo" is unknown\n');
      const off = await runBinary(['--disable-admission-plugins=Bar']);
      expect(off.stderr).to.equal('orch-apiserver: disable-admission-plugins plugin "Bar" is unknown\n');
    });
  });
});
