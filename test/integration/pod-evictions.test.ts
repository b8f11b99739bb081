/**
 * pods/eviction over HTTPS against a real etcd, as kube-apiserver 1.32 answers it: the budget
 * checks (none, one, more than one; exhausted and stale budgets answered 429 with Kubernetes'
 * message and DisruptionBudget cause), the pods evicted without a budget (Pending, terminal,
 * unready under AlwaysAllow or a healthy IfHealthyBudget), the budget's status written before the
 * pod goes (disruptionsAllowed, disruptedPods, the DisruptionAllowed condition), the
 * DisruptionTarget condition on the pod, DeleteOptions in the body (preconditions, dry run),
 * policy/v1beta1 bodies, concurrent evictions against one budget, admission webhooks, discovery
 * and authorization.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { WebhookConfigs, deny, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

const NS = 'evictions';
type Body = Record<string, any>;
const pods = (name = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}`;
const pdbs = (name = '') => `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets${name ? `/${name}` : ''}`;
const eviction = (name: string, extra: Body = {}, apiVersion = 'policy/v1'): Body =>
  ({ apiVersion, kind: 'Eviction', metadata: { name, namespace: NS }, ...extra });
const TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget.";
const NOW = '2026-01-02T03:04:05Z';

describe('pods/eviction', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  /** A pod with `labels` in `phase`, Ready or not. */
  async function pod(name: string, labels: Body, phase = 'Running', ready = true, meta: Body = {}): Promise<Body> {
    const created = await t.post(pods(), { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels, ...meta }, spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1' }] } });
    expect(created.status, created.text).to.equal(201);
    const status = { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: NOW }] };
    const res = await t.put(pods(`${name}/status`), { ...created.body, status: { ...created.body.status, ...status } });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  }

  /** A budget selecting `labels`, with the status the disruption controller would have written. */
  async function budget(name: string, selector: Body | undefined, status: Body, spec: Body = {}): Promise<Body> {
    const created = await t.post(pdbs(), { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, ...(selector ? { selector } : {}), ...spec } });
    expect(created.status, created.text).to.equal(201);
    const res = await t.put(pdbs(`${name}/status`), { ...created.body, status: { observedGeneration: 1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, ...status } });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  }

  const evict = (name: string, extra: Body = {}, query = '', apiVersion = 'policy/v1') => t.post(`${pods(name)}/eviction${query}`, eviction(name, extra, apiVersion));
  const exists = async (name: string) => (await t.get(pods(name))).status === 200;
  const expectEvicted = (res: HttpResponse) => {
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.equal({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  };
  function expectTooMany(res: HttpResponse, cause: string, retryAfter?: number): void {
    expect(res.status, res.text).to.equal(429);
    expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', message: TOO_MANY, code: 429 });
    expect(res.body.details.causes).to.deep.equal([{ reason: 'DisruptionBudget', message: cause }]);
    expect(res.body.details.retryAfterSeconds).to.equal(retryAfter);
    expect(res.headers['retry-after']).to.equal(retryAfter === undefined ? undefined : String(retryAfter));
  }

  describe('without a budget', () => {
    it('deletes the pod and answers 201 with a Status Success', async () => {
      await pod('free', { app: 'free' });
      expectEvicted(await evict('free'));
      expect(await exists('free')).to.equal(false);
    });

    it('refuses a body that names another pod (400), a missing pod (404), and keeps the pod', async () => {
      await pod('named', { app: 'named' });
      const res = await t.post(`${pods('named')}/eviction`, eviction('other'));
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({ reason: 'BadRequest', message: 'name in URL does not match name in Eviction object' });
      expect(await exists('named')).to.equal(true);
      const missing = await evict('nobody');
      expect(missing.status, missing.text).to.equal(404);
      expect(missing.body.message).to.equal('pods "nobody" not found');
    });

    it('accepts a policy/v1beta1 Eviction', async () => {
      await pod('beta', { app: 'beta' });
      expectEvicted(await evict('beta', {}, '', 'policy/v1beta1'));
      expect(await exists('beta')).to.equal(false);
    });

    it('takes a protobuf Eviction at policy/v1 and policy/v1beta1, and answers in protobuf', async () => {
      const PROTOBUF = t.server.naming.protobufMediaType;
      for (const version of ['v1', 'v1beta1']) {
        const name = `proto-${version}`;
        await pod(name, { app: name });
        const res = await t.request('POST', `${pods(name)}/eviction`, {
          raw: encodeProtobuf(eviction(name, { deleteOptions: { gracePeriodSeconds: 0 } }, `policy/${version}`)), headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
        });
        expect(res.status, res.text).to.equal(201);
        expect(decodeProtobuf(res.raw!)).to.deep.include({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
        expect(await exists(name), version).to.equal(false);
      }
    });

    it('honours the DeleteOptions preconditions of the body (409, the pod stays)', async () => {
      const p = await pod('guarded', { app: 'guarded' });
      const res = await evict('guarded', { deleteOptions: { preconditions: { uid: 'not-the-uid' } } });
      expect(res.status, res.text).to.equal(409);
      expect(res.body.message).to.contain(`Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${p.metadata.uid}`);
      expect(await exists('guarded')).to.equal(true);
    });

    it('marks the pod with the DisruptionTarget condition before deleting it (seen on a pod a finalizer keeps)', async () => {
      await pod('kept', { app: 'kept' }, 'Running', true, { finalizers: ['example.com/keep'] });
      expectEvicted(await evict('kept'));
      const kept = (await t.get(pods('kept'))).body;
      expect(kept.metadata.deletionTimestamp).to.be.a('string');
      expect(kept.status.conditions.find((c: Body) => c.type === 'DisruptionTarget')).to.deep.include(
        { status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
      await t.request('PATCH', pods('kept'), { raw: '{"metadata":{"finalizers":null}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
    });
  });

  describe('with one budget', () => {
    it('takes a disruption: the budget records the pod and the condition, then the pod goes', async () => {
      await pod('one-a', { app: 'one' });
      await budget('one', { matchLabels: { app: 'one' } }, { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
      expectEvicted(await evict('one-a'));
      expect(await exists('one-a')).to.equal(false);
      const status = (await t.get(pdbs('one'))).body.status;
      expect(status.disruptionsAllowed).to.equal(0);
      expect(Object.keys(status.disruptedPods)).to.deep.equal(['one-a']);
      expect(status.conditions.map((c: Body) => [c.type, c.status, c.reason])).to.deep.equal([['DisruptionAllowed', 'False', 'InsufficientPods']]);
    });

    it('answers 429 when the budget allows no disruption, and changes nothing', async () => {
      await pod('none-a', { app: 'none' });
      const before = await budget('none', { matchLabels: { app: 'none' } }, { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2 });
      expectTooMany(await evict('none-a'), 'The disruption budget none needs 2 healthy pods and has 2 currently');
      expect(await exists('none-a')).to.equal(true);
      expect((await t.get(pdbs('none'))).body.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    });

    it('answers 429 (Retry-After 10) while the budget has not been processed since its last change', async () => {
      await pod('stale-a', { app: 'stale' });
      const b = await budget('stale', { matchLabels: { app: 'stale' } }, { disruptionsAllowed: 5 });
      expect((await t.put(pdbs('stale'), { ...b, spec: { ...b.spec, minAvailable: 2 } })).body.metadata.generation).to.equal(2);
      expectTooMany(await evict('stale-a'), 'The disruption budget stale is still being processed by the server.', 10);
      expect(await exists('stale-a')).to.equal(true);
    });

    it('evicts Pending and terminal pods without looking at the budget', async () => {
      await budget('phases', { matchLabels: { app: 'phases' } }, { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 3 });
      for (const phase of ['Pending', 'Succeeded', 'Failed']) {
        const name = `phase-${phase.toLowerCase()}`;
        await pod(name, { app: 'phases' }, phase, false);
        expectEvicted(await evict(name));
        expect(await exists(name), phase).to.equal(false);
      }
      expect((await t.get(pdbs('phases'))).body.status.disruptionsAllowed).to.equal(0);
    });

    it('evicts an unready pod under AlwaysAllow without taking a disruption', async () => {
      await pod('always-a', { app: 'always' }, 'Running', false);
      await budget('always', { matchLabels: { app: 'always' } }, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 3 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' });
      expectEvicted(await evict('always-a'));
      expect(await exists('always-a')).to.equal(false);
      expect((await t.get(pdbs('always'))).body.status.disruptedPods).to.equal(undefined);
    });

    it('evicts an unready pod under IfHealthyBudget only while the budget has its healthy pods', async () => {
      await pod('healthy-a', { app: 'healthy' }, 'Running', false);
      await budget('healthy', { matchLabels: { app: 'healthy' } }, { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
      expectEvicted(await evict('healthy-a'));
      await pod('short-a', { app: 'short' }, 'Running', false);
      await budget('short', { matchLabels: { app: 'short' } }, { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 }, { unhealthyPodEvictionPolicy: 'IfHealthyBudget' });
      expectTooMany(await evict('short-a'), 'The disruption budget short needs 2 healthy pods and has 1 currently');
      expect(await exists('short-a')).to.equal(true);
    });

    it('ignores a budget with an empty selector (it guards nothing here)', async () => {
      await pod('empty-sel-a', { app: 'empty-sel' });
      const res = await t.post(`/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'everything' }, spec: { maxUnavailable: 0, selector: {} } });
      expect(res.status, res.text).to.equal(201);
      expectEvicted(await evict('empty-sel-a'));
      expect((await t.del(pdbs('everything'))).status).to.equal(200);
    });
  });

  describe('dry run', () => {
    it('changes neither the budget nor the pod (query or deleteOptions), refuses two different dry runs and an unknown one', async () => {
      await pod('dry-a', { app: 'dry' });
      const b = await budget('dry', { matchLabels: { app: 'dry' } }, { disruptionsAllowed: 1 });
      expectEvicted(await evict('dry-a', {}, '?dryRun=All'));
      expectEvicted(await evict('dry-a', { deleteOptions: { dryRun: ['All'] } }));
      expect(await exists('dry-a')).to.equal(true);
      expect((await t.get(pdbs('dry'))).body.metadata.resourceVersion).to.equal(b.metadata.resourceVersion);
      // Kubernetes answers the mismatch with a plain error (a 500); a client's input is a 400 here.
      const mismatch = await evict('dry-a', { deleteOptions: { dryRun: ['All', 'All'] } }, '?dryRun=All');
      expect(mismatch.status, mismatch.text).to.equal(400);
      expect(mismatch.body.message).to.equal('Non-matching dry-run options in request and content: [All] and [All All]');
      const bad = await evict('dry-a', { deleteOptions: { dryRun: ['Some'] } });
      expect(bad.status, bad.text).to.equal(422);
      expect(bad.body.details.causes[0]).to.include({ field: 'dryRun', reason: 'FieldValueNotSupported' });
    });
  });

  it('answers 500 when more than one budget selects the pod (Kubernetes does not support it), and keeps the pod', async () => {
    await pod('two-a', { app: 'two', tier: 'x' });
    await budget('two-1', { matchLabels: { app: 'two' } }, { disruptionsAllowed: 3 });
    await budget('two-2', { matchLabels: { tier: 'x' } }, { disruptionsAllowed: 3 });
    const res = await evict('two-a');
    expect(res.status, res.text).to.equal(500);
    expect(res.body).to.deep.equal({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    });
    expect(await exists('two-a')).to.equal(true);
  });

  it('lets exactly disruptionsAllowed of 20 concurrent evictions through', async function () {
    this.timeout(120_000);
    const names = Array.from({ length: 20 }, (_, i) => `crowd-${i}`);
    for (const n of names) await pod(n, { app: 'crowd' });
    await budget('crowd', { matchLabels: { app: 'crowd' } }, { disruptionsAllowed: 3, currentHealthy: 20, desiredHealthy: 17, expectedPods: 20 });
    const results = await Promise.all(names.map((n) => evict(n)));
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 201)).to.have.length(3);
    expect(codes.filter((c) => c === 429)).to.have.length(17);
    const status = (await t.get(pdbs('crowd'))).body.status;
    expect(status.disruptionsAllowed).to.equal(0);
    const evicted = names.filter((_, i) => codes[i] === 201);
    expect(Object.keys(status.disruptedPods).sort()).to.deep.equal([...evicted].sort());
    const left = (await t.get(`${pods()}?labelSelector=app%3Dcrowd`)).body.items.map((i: Body) => i.metadata.name);
    expect(left).to.have.length(17);
    expect(left).to.not.include.members(evicted);
  });

  it('goes through admission as a CREATE of pods/eviction carrying the Eviction (a validating webhook may refuse it)', async () => {
    const hooks = await startAdmissionWebhookServer();
    const configs = new WebhookConfigs(t);
    try {
      hooks.handlers.set('/no-evictions', (c) => deny(c, { code: 403, message: 'evictions are paused', reason: 'Forbidden' }));
      const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'] }];
      await configs.create('validating', 'no-evictions', [hookEntry(hooks, '/no-evictions', { rules })]);
      await pod('hooked', { app: 'hooked' });
      const res = await evict('hooked');
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.contain('evictions are paused');
      expect(await exists('hooked')).to.equal(true);
      const [call] = hooks.callsTo('/no-evictions');
      expect(call.review.request).to.deep.include({
        operation: 'CREATE', name: 'hooked', namespace: NS, subResource: 'eviction',
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, resource: { group: '', version: 'v1', resource: 'pods' },
      });
      expect(call.review.request.object).to.deep.include({ apiVersion: 'policy/v1', kind: 'Eviction' });
    } finally {
      await configs.clear();
      await hooks.stop();
    }
  });

  it('is in discovery as pods/eviction (policy/v1 Eviction, create)', async () => {
    const resources = (await t.get('/api/v1')).body.resources as Body[];
    expect(resources.find((r) => r.name === 'pods/eviction')).to.deep.include({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  });

  it('is authorized as create on pods/eviction', async () => {
    await pod('authz-a', { app: 'authz' });
    const role = (name: string, resources: string[]) => ({
      apiVersion: 'rbac.authorization.orch.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources, verbs: ['create', 'delete', 'get'] }],
    });
    const binding = (name: string, user: string) => ({
      apiVersion: 'rbac.authorization.orch.io/v1', kind: 'RoleBinding', metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name }, subjects: [{ apiGroup: 'rbac.authorization.orch.io', kind: 'User', name: user }],
    });
    const rbac = `/apis/rbac.authorization.orch.io/v1/namespaces/${NS}`;
    for (const [name, resources, user] of [['pods-only', ['pods'], 'deleter'], ['evictor', ['pods/eviction'], 'evictor']] as const) {
      expect((await t.post(`${rbac}/roles`, role(name, [...resources]))).status).to.equal(201);
      expect((await t.post(`${rbac}/rolebindings`, binding(name, user))).status).to.equal(201);
    }
    const as = (user: string) => ({ identity: t.identity(user) });
    const refused = await t.request('POST', `${pods('authz-a')}/eviction`, { body: eviction('authz-a'), ...as('deleter') });
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body.message).to.contain('cannot create resource "pods/eviction"');
    const allowed = await t.request('POST', `${pods('authz-a')}/eviction`, { body: eviction('authz-a'), ...as('evictor') });
    expectEvicted(allowed);
  });
});
