/**
 * scheduling/v1 PriorityClass and the Priority admission plugin over HTTPS against a real etcd:
 * the two system classes present at start (and back at the next start after being deleted from
 * etcd by hand), their DELETE refused; CRUD with defaults (preemptionPolicy); Kubernetes 1.32's
 * validation rows (reserved `system-` names, the user value ceiling, preemption policies,
 * immutable value and policy), each a 422 with Kubernetes' causes and nothing stored; the one
 * globalDefault; pods given the values of custom classes and of the default; an unknown class
 * refused; kubectl's table cells.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore, expectForbidden } from '../helpers/kind-checks';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';

type Body = Record<string, any>;
const NS = 'prio';
const NODE_CRITICAL = { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' };
const CLUSTER_CRITICAL = { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' };

const podsPath = (name = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}`;
const pod = (name: string, spec: Body = {}): Body =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } });

describe('PriorityClass (scheduling/v1) and the Priority plugin', () => {
  let t: TestServer;
  let group: string;
  const path = (name = '') => `/apis/${group}/v1/priorityclasses${name ? `/${name}` : ''}`;
  const pc = (name: string, fields: Body): Body => ({ apiVersion: `${group}/v1`, kind: 'PriorityClass', metadata: { name }, ...fields });
  const expectInvalid = (res: HttpResponse, causes: Cause[]) => expectInvalidCauses(res, 'PriorityClass', causes);
  /** Creates `body` and waits until the watch cache (what the plugin reads first) lists it. */
  async function createdAndCached(body: Body): Promise<Body> {
    const res = await t.post(path(), body);
    expect(res.status, res.text).to.equal(201);
    await eventually(async () => ((await t.get(`${path()}?resourceVersion=0`)).body.items as Body[]).some((i) => i.metadata.name === body.metadata.name));
    return res.body;
  }

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('scheduling');
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('the system classes', () => {
    it('exist at start with their values and descriptions, and the post-start check passes', async () => {
      for (const spc of [NODE_CRITICAL, CLUSTER_CRITICAL]) {
        const res = await t.get(path(spc.name));
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ value: spc.value, description: spc.description, preemptionPolicy: 'PreemptLowerPriority' });
        expect(res.body.globalDefault).to.equal(undefined);
      }
      const ready = await t.get('/readyz/poststarthook/scheduling/bootstrap-system-priority-classes', { headers: { Accept: 'text/plain' } });
      expect(ready.status, ready.text).to.equal(200);
    });

    it('refuses a DELETE of either, with Kubernetes\' sentence', async () => {
      for (const spc of [NODE_CRITICAL, CLUSTER_CRITICAL]) {
        const res = await rejectedLeavingStore(t, path(), () => t.del(path(spc.name)));
        expectForbidden(res, `priorityclasses.${group} "${spc.name}" is forbidden: this is a system priority class and cannot be deleted`);
      }
    });

    it('refuses another system- name, a changed value and globalDefault on a system name', async () => {
      const reserved = "priority class names with 'system-' prefix are reserved for system use only. error: ";
      expectInvalid(await t.post(path(), pc('system-mine', { value: 10 })), [
        { field: 'metadata.name', reason: 'FieldValueForbidden', message: `Forbidden: ${reserved}system-mine is not a known system priority class` }]);
      expect((await t.get(path('system-mine'))).status).to.equal(404);
      // The name exists, but validation comes before the write: 422, not 409.
      expectInvalid(await t.post(path(), pc('system-node-critical', { value: 5 })), [
        { field: 'metadata.name', reason: 'FieldValueForbidden', message: `Forbidden: ${reserved}value of system-node-critical PriorityClass must be 2000001000` }]);
      expectInvalid(await t.post(path(), pc('system-cluster-critical', { value: 2000000000, globalDefault: true })), [
        { field: 'metadata.name', reason: 'FieldValueForbidden', message: `Forbidden: ${reserved}globalDefault of system-cluster-critical PriorityClass must be false` }]);
    });

    it('lets any namespace use them', async () => {
      const res = await t.post(podsPath(), pod('critical', { priorityClassName: 'system-cluster-critical' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.include({ priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority', priorityClassName: 'system-cluster-critical' });
    });
  });

  describe('CRUD and validation', () => {
    it('creates, reads, lists, updates and deletes a class, defaulting preemptionPolicy', async () => {
      const created = await t.post(path(), pc('crud', { value: 100, description: 'first' }));
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ value: 100, description: 'first', preemptionPolicy: 'PreemptLowerPriority' });
      expect(created.body.metadata.generation).to.equal(1);
      expect((await t.get(path('crud'))).body).to.deep.equal(created.body);
      expect(((await t.get(path())).body.items as Body[]).map((i) => i.metadata.name)).to.include.members(['crud', NODE_CRITICAL.name]);
      const patched = await mergePatch(t, path('crud'), { description: 'second' });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body).to.include({ value: 100, description: 'second' });
      expect((await t.del(path('crud'))).status).to.equal(200);
      expect((await t.get(path('crud'))).status).to.equal(404);
    });

    it('stores value 0 when the class gives none (Go writes it always)', async () => {
      const res = await t.post(path(), pc('zero', { description: 'no value' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.value).to.equal(0);
    });

    const invalid: Array<[string, Body, Cause[]]> = [
      ['a value above 1000000000', { value: 1000000001 }, [
        { field: 'value', reason: 'FieldValueForbidden', message: 'Forbidden: maximum allowed value of a user defined priority is 1000000000' }]],
      ['an unknown preemptionPolicy', { value: 1, preemptionPolicy: 'Sometimes' }, [
        { field: 'preemptionPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"' }]],
      ['an empty preemptionPolicy', { value: 1, preemptionPolicy: '' }, [
        { field: 'preemptionPolicy', reason: 'FieldValueRequired', message: 'Required value' }]],
    ];
    invalid.forEach(([what, fields, causes], i) => {
      it(`refuses ${what}, storing nothing`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), pc(`invalid-${i}`, fields)));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('accepts the largest user value and preemptionPolicy Never', async () => {
      const res = await t.post(path(), pc('ceiling', { value: 1000000000, preemptionPolicy: 'Never' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ value: 1000000000, preemptionPolicy: 'Never' });
    });

    it('keeps value and preemptionPolicy immutable', async () => {
      const created = await t.post(path(), pc('fixed', { value: 7 }));
      expect(created.status, created.text).to.equal(201);
      const value = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('fixed'), { value: 8 }));
      expectInvalid(value, [{ field: 'value', reason: 'FieldValueForbidden', message: 'Forbidden: may not be changed in an update.' }]);
      const policy = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('fixed'), { preemptionPolicy: 'Never' }));
      expectInvalid(policy, [{ field: 'preemptionPolicy', reason: 'FieldValueInvalid', message: 'Invalid value: "Never": field is immutable' }]);
    });
  });

  describe('the Priority plugin', () => {
    it('gives a pod its class\'s value and preemption policy, and refuses values that differ', async () => {
      await createdAndCached(pc('gold', { value: 5000, preemptionPolicy: 'Never' }));
      const res = await t.post(podsPath(), pod('gold-pod', { priorityClassName: 'gold' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.include({ priority: 5000, preemptionPolicy: 'Never', priorityClassName: 'gold' });
      expectForbidden(await t.post(podsPath(), pod('gold-lie', { priorityClassName: 'gold', priority: 1 })),
        'pods "gold-lie" is forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 5000 from the given PriorityClass name');
      expectForbidden(await t.post(podsPath(), pod('gold-policy', { priorityClassName: 'gold', preemptionPolicy: 'PreemptLowerPriority' })),
        'pods "gold-policy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name');
    });

    it('finds a class created a moment ago (a live read when the cache misses it)', async () => {
      const created = await t.post(path(), pc('fresh', { value: 42 }));
      expect(created.status, created.text).to.equal(201);
      const res = await t.post(podsPath(), pod('fresh-pod', { priorityClassName: 'fresh' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.priority).to.equal(42);
    });

    it('refuses an unknown class, storing no pod', async () => {
      expectForbidden(await t.post(podsPath(), pod('nowhere', { priorityClassName: 'platinum' })),
        'pods "nowhere" is forbidden: no PriorityClass with name platinum was found');
      expect((await t.get(podsPath('nowhere'))).status).to.equal(404);
    });

    it('gives a pod without a class priority 0 while no class is the default', async () => {
      const res = await t.post(podsPath(), pod('plain'));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.include({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
      expect(res.body.spec.priorityClassName).to.equal(undefined);
    });

    it('allows one globalDefault, whose name and value pods without a class get', async () => {
      await createdAndCached(pc('everyday', { value: 300, globalDefault: true, preemptionPolicy: 'Never' }));
      const second = await rejectedLeavingStore(t, path(), () => t.post(path(), pc('another-default', { value: 1, globalDefault: true })));
      expectForbidden(second, `priorityclasses.${group} "another-default" is forbidden: PriorityClass everyday is already marked as default. Only one default can exist`);
      const marked = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('gold'), { globalDefault: true }));
      expectForbidden(marked, `priorityclasses.${group} "gold" is forbidden: PriorityClass everyday is already marked as default. Only one default can exist`);
      // The default itself may be updated.
      expect((await mergePatch(t, path('everyday'), { description: 'the default' })).status).to.equal(200);

      const res = await t.post(podsPath(), pod('defaulted'));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.include({ priority: 300, preemptionPolicy: 'Never', priorityClassName: 'everyday' });
      // Once it is no longer the default, another class may be.
      expect((await mergePatch(t, path('everyday'), { globalDefault: false })).status).to.equal(200);
      expect((await t.post(path(), pc('new-default', { value: 2, globalDefault: true }))).status).to.equal(201);
    });

    it('keeps the stored priority through a PUT that omits it', async () => {
      const stored = (await t.get(podsPath('gold-pod'))).body;
      const spec = { ...stored.spec };
      delete spec.priority;
      delete spec.preemptionPolicy;
      const res = await t.put(podsPath('gold-pod'), { ...stored, spec });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec).to.include({ priority: 5000, preemptionPolicy: 'Never' });
    });
  });

  it("prints kubectl's NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY", async () => {
    const res = await t.get(path(NODE_CRITICAL.name), TABLE);
    expect(res.status, res.text).to.equal(200);
    expect((res.body.columnDefinitions as Body[]).map((c) => [c.name, c.type])).to.deep.equal([
      ['Name', 'string'], ['Value', 'integer'], ['Global-Default', 'boolean'], ['Age', 'string'], ['PreemptionPolicy', 'string']]);
    const [name, value, globalDefault, , policy] = res.body.rows[0].cells;
    expect([name, value, globalDefault, policy]).to.deep.equal([NODE_CRITICAL.name, NODE_CRITICAL.value, false, 'PreemptLowerPriority']);
  });

  it('serves the short name pc in discovery', async () => {
    const res = await t.get(`/apis/${group}/v1`);
    const r = (res.body.resources as Body[]).find((x) => x.name === 'priorityclasses');
    expect(r).to.include({ kind: 'PriorityClass', namespaced: false });
    expect(r!.shortNames).to.deep.equal(['pc']);
  });

  describe('a system class deleted from etcd by hand', () => {
    it('is created again at the next start', async () => {
      const raw = new Etcd3Storage(new EtcdKvClient({ endpoints: [t.etcdEndpoint] }));
      try {
        const kv = (await raw.range('/registry/')).kvs.find((k) => k.key.endsWith(`/priorityclasses/${NODE_CRITICAL.name}`));
        expect(kv, 'the stored system class').to.not.equal(undefined);
        expect((await raw.delete(kv!.key, kv!.modRevision)).ok).to.equal(true);
      } finally {
        await raw.close();
      }
      await eventually(async () => (await t.get(path(NODE_CRITICAL.name))).status === 404);
      const next = await startTestServer([], { etcd: t.etcd });
      try {
        const res = await next.get(path(NODE_CRITICAL.name));
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ value: NODE_CRITICAL.value, description: NODE_CRITICAL.description });
      } finally {
        await next.stop();
      }
    });
  });
});
