/**
 * Garbage collection through HTTPS against a real etcd: ownerReferences validation, the three
 * propagation policies (Background, Foreground, Orphan) with namespaced and cluster-scoped
 * owners, dangling and unresolvable references, two replicas collecting at once, and ephemeral
 * volume claims (when the server serves pods and persistentvolumeclaims).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { storeKey } from '../../lib/registry/store-index';

const NS = 'gc';
const OTHER_NS = 'gc-other';
const cms = (ns = NS) => `/api/v1/namespaces/${ns}/configmaps`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ref { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }

describe('garbage collection', function () {
  this.timeout(60_000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer();
    for (const name of [NS, OTHER_NS]) {
      const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(async () => { await t?.stop(); });

  async function createCm(name: string, meta: Record<string, unknown> = {}, ns = NS): Promise<any> {
    const res = await t.post(cms(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { k: 'v' } });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  const refTo = (obj: any, extra: Partial<Ref> = {}): Ref =>
    ({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid, ...extra });
  const getCm = (name: string, ns = NS) => t.get(`${cms(ns)}/${name}`);
  const gone = (name: string, ns = NS) => eventually(async () => (await getCm(name, ns)).status === 404);
  const uidsOf = (obj: any) => (obj.metadata.ownerReferences ?? []).map((r: Ref) => r.uid);

  describe('ownerReferences validation', () => {
    const invalid = async (ownerReferences: unknown) => {
      const res = await t.post(cms(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-refs', ownerReferences } });
      expect(res.status, res.text).to.equal(422);
      expect(res.body.reason).to.equal('Invalid');
      return res.body.details.causes.map((c: any) => c.field);
    };

    it('apiVersion, kind, name and uid are required (422)', async () => {
      const fields = await invalid([{ apiVersion: '', kind: '', name: '', uid: '' }]);
      expect(fields).to.include.members([
        'metadata.ownerReferences.apiVersion', 'metadata.ownerReferences.kind', 'metadata.ownerReferences.name', 'metadata.ownerReferences.uid',
      ]);
    });

    it('at most one reference may be the controller (422)', async () => {
      const fields = await invalid([
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: '1', controller: true },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: '2', controller: true },
      ]);
      expect(fields).to.include('metadata.ownerReferences');
    });
  });

  describe('Background (the default)', () => {
    it('removes the owner at once, then its dependents; a dependent with another live owner stays', async () => {
      const owner = await createCm('bg-owner');
      const other = await createCm('bg-other');
      await createCm('bg-only', { ownerReferences: [refTo(owner)] });
      await createCm('bg-shared', { ownerReferences: [refTo(owner), refTo(other)] });
      await createCm('bg-grandchild', { ownerReferences: [refTo((await getCm('bg-only')).body)] });

      const res = await t.del(`${cms()}/bg-owner`, { propagationPolicy: 'Background' });
      expect(res.status, res.text).to.equal(200);
      expect((await getCm('bg-owner')).status, 'the owner is gone with the response').to.equal(404);

      await gone('bg-only');
      await gone('bg-grandchild');
      // The survivor loses the reference to the gone owner and keeps the live one.
      const shared = await eventually(async () => {
        const r = await getCm('bg-shared');
        return r.status === 200 && uidsOf(r.body).length === 1 ? r.body : undefined;
      });
      expect(uidsOf(shared)).to.deep.equal([other.metadata.uid]);
    });

    it('a DELETE without a body is Background too', async () => {
      const owner = await createCm('bg-nobody');
      await createCm('bg-nobody-dep', { ownerReferences: [refTo(owner)] });
      expect((await t.del(`${cms()}/bg-nobody`)).status).to.equal(200);
      await gone('bg-nobody-dep');
    });

    it('a cluster-scoped owner (a Namespace) of ConfigMaps in another namespace', async () => {
      const nsRes = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-owner-ns' } });
      expect(nsRes.status, nsRes.text).to.equal(201);
      await createCm('owned-by-ns', { ownerReferences: [refTo(nsRes.body)] });
      await sleep(300);
      expect((await getCm('owned-by-ns')).status, 'kept while the namespace lives').to.equal(200);

      expect((await t.del('/api/v1/namespaces/gc-owner-ns')).status).to.equal(200);
      await eventually(async () => (await t.get('/api/v1/namespaces/gc-owner-ns')).status === 404);
      await gone('owned-by-ns');
    });
  });

  describe('Foreground', () => {
    it('the owner stays Terminating with foregroundDeletion until its blocking dependents are gone', async () => {
      const owner = await createCm('fg-owner');
      // Its own finalizer holds the blocking dependent in Terminating until the test lets it go.
      await createCm('fg-blocker', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
      await createCm('fg-free', { ownerReferences: [refTo(owner)] });

      const res = await t.del(`${cms()}/fg-owner`, { propagationPolicy: 'Foreground' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.kind).to.equal('ConfigMap');
      expect(res.body.metadata.deletionTimestamp).to.be.a('string');
      expect(res.body.metadata.finalizers).to.deep.equal(['foregroundDeletion']);

      await gone('fg-free');
      await eventually(async () => !!(await getCm('fg-blocker')).body?.metadata?.deletionTimestamp);
      await sleep(500);
      const waiting = await getCm('fg-owner');
      expect(waiting.status, 'held by its blocking dependent').to.equal(200);
      expect(waiting.body.metadata.finalizers).to.deep.equal(['foregroundDeletion']);

      const blocker = (await getCm('fg-blocker')).body;
      blocker.metadata.finalizers = [];
      expect((await t.put(`${cms()}/fg-blocker`, blocker)).status).to.equal(200);
      await gone('fg-blocker');
      await gone('fg-owner');
    });

    it('an owner without dependents goes at once after the collector removes the finalizer', async () => {
      await createCm('fg-alone');
      const res = await t.del(`${cms()}/fg-alone?propagationPolicy=Foreground`);
      expect(res.status, res.text).to.equal(200);
      await gone('fg-alone');
    });

    it('deleting the namespace deletes its content in the background: a waiting owner goes at once', async () => {
      const ns = 'gc-ns-fg';
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).to.equal(201);
      const owner = await createCm('owner', {}, ns);
      await createCm('held', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] }, ns);
      await t.del(`${cms(ns)}/owner`, { propagationPolicy: 'Foreground' });
      await eventually(async () => !!(await getCm('held', ns)).body?.metadata?.deletionTimestamp);
      expect((await getCm('owner', ns)).body.metadata.finalizers).to.deep.equal(['foregroundDeletion']);

      expect((await t.del(`/api/v1/namespaces/${ns}`)).status).to.equal(200);
      await gone('owner', ns);
      expect((await getCm('held', ns)).status, 'its own finalizer still holds it').to.equal(200);
      const held = (await getCm('held', ns)).body;
      held.metadata.finalizers = [];
      expect((await t.put(`${cms(ns)}/held`, held)).status).to.equal(200);
      await eventually(async () => (await t.get(`/api/v1/namespaces/${ns}`)).status === 404);
    });

    it('a dependent that has dependents itself is deleted in the foreground too', async () => {
      const owner = await createCm('fg-chain-a');
      const b = await createCm('fg-chain-b', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })] });
      await createCm('fg-chain-c', { ownerReferences: [refTo(b, { blockOwnerDeletion: true })] });
      expect((await t.del(`${cms()}/fg-chain-a`, { propagationPolicy: 'Foreground' })).status).to.equal(200);
      await gone('fg-chain-a');
      expect((await getCm('fg-chain-b')).status).to.equal(404);
      expect((await getCm('fg-chain-c')).status).to.equal(404);
    });
  });

  describe('Orphan', () => {
    it('dependents stay with the reference to the owner removed; the owner goes', async () => {
      const owner = await createCm('or-owner');
      const other = await createCm('or-other');
      await createCm('or-only', { ownerReferences: [refTo(owner, { controller: true, blockOwnerDeletion: true })] });
      await createCm('or-shared', { ownerReferences: [refTo(owner), refTo(other)] });

      const res = await t.del(`${cms()}/or-owner`, { propagationPolicy: 'Orphan' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.finalizers).to.deep.equal(['orphan']);
      await gone('or-owner');

      const only = await getCm('or-only');
      expect(only.status).to.equal(200);
      expect(only.body.metadata.ownerReferences).to.equal(undefined);
      const shared = await getCm('or-shared');
      expect(uidsOf(shared.body)).to.deep.equal([other.metadata.uid]);
      await sleep(300);
      expect((await getCm('or-only')).status, 'an orphan is not collected later').to.equal(200);
    });

    it('orphanDependents=true (the older option) orphans too', async () => {
      const owner = await createCm('or-legacy');
      await createCm('or-legacy-dep', { ownerReferences: [refTo(owner)] });
      expect((await t.del(`${cms()}/or-legacy?orphanDependents=true`)).status).to.equal(200);
      await gone('or-legacy');
      expect((await getCm('or-legacy-dep')).body.metadata.ownerReferences).to.equal(undefined);
    });

    it('a later delete may switch a pending foreground deletion to orphan', async () => {
      const owner = await createCm('switch-owner');
      await createCm('switch-dep', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
      await t.del(`${cms()}/switch-owner`, { propagationPolicy: 'Foreground' });
      await eventually(async () => !!(await getCm('switch-dep')).body?.metadata?.deletionTimestamp);
      const res = await t.del(`${cms()}/switch-owner`, { propagationPolicy: 'Orphan' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.finalizers).to.deep.equal(['orphan']);
      await gone('switch-owner');
      const dep = (await getCm('switch-dep')).body;
      expect(dep.metadata.ownerReferences).to.equal(undefined);
      dep.metadata.finalizers = [];
      await t.put(`${cms()}/switch-dep`, dep);
    });
  });

  describe('owner references that resolve to nothing', () => {
    it('a dependent whose owner uid does not exist is collected (also when the name exists with another uid)', async () => {
      await createCm('named-owner');
      await createCm('dangling-none', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: 'b5a7a0f0-0000-4000-8000-000000000001' }] });
      await createCm('dangling-uid', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'named-owner', uid: 'b5a7a0f0-0000-4000-8000-000000000002' }] });
      await gone('dangling-none');
      await gone('dangling-uid');
      expect((await getCm('named-owner')).status).to.equal(200);
    });

    it('a namespaced owner in another namespace counts as absent', async () => {
      const owner = await createCm('cross-owner');
      await createCm('cross-dep', { ownerReferences: [refTo(owner)] }, OTHER_NS);
      await gone('cross-dep', OTHER_NS);
      expect((await getCm('cross-owner')).status).to.equal(200);
    });

    it('a cluster-scoped dependent of a namespaced kind, or of an unknown kind, is never collected', async () => {
      const owner = await createCm('ns-scoped-owner');
      const invalidNs = await t.post('/api/v1/namespaces', {
        apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-invalid-owner', ownerReferences: [refTo(owner)] },
      });
      expect(invalidNs.status, invalidNs.text).to.equal(201);
      await createCm('unknown-kind', { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'b5a7a0f0-0000-4000-8000-000000000003' }] });
      // A dangling dependent created afterwards is collected: the collector has looked at both.
      await createCm('marker', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'b5a7a0f0-0000-4000-8000-000000000004' }] });
      await gone('marker');
      await sleep(500);
      expect((await t.get('/api/v1/namespaces/gc-invalid-owner')).status).to.equal(200);
      expect((await getCm('unknown-kind')).status).to.equal(200);
      // Even with the owner gone it stays: the reference cannot be resolved.
      await t.del(`${cms()}/ns-scoped-owner`);
      await sleep(500);
      expect((await t.get('/api/v1/namespaces/gc-invalid-owner')).status).to.equal(200);
    });
  });

  describe('with a second replica on the same etcd', () => {
    let second: RunningServer | undefined;
    let dataDir: string;
    before(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-gc-replica-'));
      second = await startServer(parseFlags([`--etcd-servers=${t.etcdEndpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error']));
    });
    after(async () => {
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('both collectors act at once and every policy still completes', async () => {
      const owners = await Promise.all(['r-bg', 'r-fg', 'r-or'].map((n) => createCm(n)));
      for (const o of owners) {
        for (let i = 0; i < 5; i++) await createCm(`${o.metadata.name}-${i}`, { ownerReferences: [refTo(o, { blockOwnerDeletion: true })] });
      }
      await t.del(`${cms()}/r-bg`, { propagationPolicy: 'Background' });
      await t.del(`${cms()}/r-fg`, { propagationPolicy: 'Foreground' });
      await t.del(`${cms()}/r-or`, { propagationPolicy: 'Orphan' });
      for (const n of ['r-bg', 'r-fg', 'r-or']) await gone(n);
      for (let i = 0; i < 5; i++) {
        expect((await getCm(`r-fg-${i}`)).status, 'foreground: dependents gone before the owner').to.equal(404);
        await gone(`r-bg-${i}`);
        const orphan = await getCm(`r-or-${i}`);
        expect(orphan.status).to.equal(200);
        expect(orphan.body.metadata.ownerReferences).to.equal(undefined);
      }
    });
  });

  describe('without the watch cache (the collector watches etcd itself)', () => {
    let u: TestServer;
    before(async () => { u = await startTestServer(['--watch-cache=false']); });
    after(async () => { await u?.stop(); });

    it('all three policies complete', async () => {
      const cmPath = '/api/v1/namespaces/default/configmaps';
      const make = async (name: string, ownerReferences?: Ref[]) => {
        const res = await u.post(cmPath, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences } });
        expect(res.status, res.text).to.equal(201);
        return res.body;
      };
      for (const [owner, policy] of [['nc-bg', 'Background'], ['nc-fg', 'Foreground'], ['nc-or', 'Orphan']]) {
        const o = await make(owner);
        await make(`${owner}-dep`, [refTo(o, { blockOwnerDeletion: true })]);
        expect((await u.del(`${cmPath}/${owner}`, { propagationPolicy: policy })).status).to.equal(200);
      }
      const status = (name: string) => u.get(`${cmPath}/${name}`).then((r) => r.status);
      await eventually(async () => (await status('nc-bg-dep')) === 404);
      await eventually(async () => (await status('nc-fg')) === 404);
      expect(await status('nc-fg-dep')).to.equal(404);
      await eventually(async () => (await status('nc-or')) === 404);
      expect((await u.get(`${cmPath}/nc-or-dep`)).body.metadata.ownerReferences).to.equal(undefined);
    });
  });

  describe('ephemeral volumes', () => {
    const pods = `/api/v1/namespaces/${NS}/pods`;
    const pvcs = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
    const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    const pod = (name: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: {
        containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }],
        volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { labels: { app: name } }, spec: claimSpec } } }],
      },
    });

    before(() => {
      // The ephemeral volume controller needs both kinds; they are built in.
      const has = (r: string) => t.server.stores.has(storeKey('', 'v1', r));
      expect(has('pods') && has('persistentvolumeclaims'), 'pods and persistentvolumeclaims are served').to.equal(true);
    });

    it('creates the claim <pod>-<volume> owned by the pod, and deletes it with the pod', async () => {
      const created = await t.post(pods, pod('eph'));
      expect(created.status, created.text).to.equal(201);
      const claim = await eventually(async () => {
        const r = await t.get(`${pvcs}/eph-scratch`);
        return r.status === 200 ? r.body : undefined;
      });
      expect(claim.metadata.ownerReferences).to.deep.equal([{
        apiVersion: 'v1', kind: 'Pod', name: 'eph', uid: created.body.metadata.uid, controller: true, blockOwnerDeletion: true,
      }]);
      expect(claim.metadata.labels).to.deep.equal({ app: 'eph' });
      expect(claim.spec).to.deep.include({ accessModes: ['ReadWriteOnce'] });

      const del = await t.del(`${pods}/eph`, { propagationPolicy: 'Background', gracePeriodSeconds: 0 });
      expect(del.status, del.text).to.be.oneOf([200, 202]);
      await eventually(async () => (await t.get(`${pvcs}/eph-scratch`)).status === 404);
    });

    it('a pre-existing claim not owned by the pod is reported on the pod and not taken over', async () => {
      const existing = await t.post(pvcs, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'taken-scratch' }, spec: claimSpec });
      expect(existing.status, existing.text).to.equal(201);
      expect((await t.post(pods, pod('taken'))).status).to.equal(201);
      const condition = await eventually(async () => {
        const p = (await t.get(`${pods}/taken`)).body;
        return (p.status?.conditions ?? []).find((c: any) => c.type === 'EphemeralVolumeConflict');
      });
      expect(condition).to.include({ status: 'True', reason: 'ClaimNotOwnedByPod' });
      expect(condition.message).to.include('taken-scratch');
      const claim = (await t.get(`${pvcs}/taken-scratch`)).body;
      expect(claim.metadata.ownerReferences, 'not taken over').to.equal(undefined);
      expect(claim.metadata.uid).to.equal(existing.body.metadata.uid);

      // Once the stranger goes, the pod's own claim is created and the condition clears.
      await t.del(`${pvcs}/taken-scratch`);
      const own = await eventually(async () => {
        const r = await t.get(`${pvcs}/taken-scratch`);
        return r.status === 200 && r.body.metadata.uid !== existing.body.metadata.uid ? r.body : undefined;
      });
      expect(own.metadata.ownerReferences[0]).to.include({ kind: 'Pod', name: 'taken', controller: true });
      await eventually(async () => {
        const p = (await t.get(`${pods}/taken`)).body;
        return (p.status?.conditions ?? []).some((c: any) => c.type === 'EphemeralVolumeConflict' && c.status === 'False');
      });
    });
  });
});
