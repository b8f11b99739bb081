/**
 * policy/v1beta1 PodDisruptionBudget: not served by default (Kubernetes removed it in 1.25);
 * with `--runtime-config=policy/v1beta1=true` served over policy/v1's objects, deprecated, with
 * Kubernetes' selector conversion (an empty selector selects nothing at v1beta1 and everything
 * at v1, carried across by the `pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match`
 * sentinels), v1beta1's lighter status validation, and the budgets' effect on pods/eviction.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'pdb-beta';
type Body = Record<string, any>;
const path = (version: string, name = '') => `/apis/policy/${version}/namespaces/${NS}/poddisruptionbudgets${name ? `/${name}` : ''}`;
const pdb = (version: string, name: string, spec: Body): Body => ({ apiVersion: `policy/${version}`, kind: 'PodDisruptionBudget', metadata: { name }, spec });
const LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

describe('policy/v1beta1 PodDisruptionBudget', () => {
  describe('by default', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('is not served: 404 and only v1 in discovery', async () => {
      expect((await t.get('/apis/policy/v1beta1')).status).to.equal(404);
      expect((await t.get('/apis/policy/v1beta1/poddisruptionbudgets')).status).to.equal(404);
      const policy = (await t.get('/apis')).body.groups.find((g: Body) => g.name === 'policy');
      expect(policy.versions.map((v: Body) => v.version)).to.deep.equal(['v1']);
    });
  });

  describe('with --runtime-config=policy/v1beta1=true', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(['--runtime-config=policy/v1beta1=true']);
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    });
    after(async () => { await t?.stop(); });

    it('is in discovery beside v1, which stays preferred', async () => {
      const policy = (await t.get('/apis')).body.groups.find((g: Body) => g.name === 'policy');
      expect(policy.versions.map((v: Body) => v.version)).to.deep.equal(['v1', 'v1beta1']);
      expect(policy.preferredVersion.version).to.equal('v1');
      const list = await t.get('/apis/policy/v1beta1');
      expect(list.body.resources.map((r: Body) => r.name)).to.deep.equal(['poddisruptionbudgets', 'poddisruptionbudgets/status']);
    });

    it('creates at v1beta1 (with the deprecation warning) and reads the same object at v1 and back', async () => {
      const spec = { minAvailable: 2, selector: { matchLabels: { app: 'web' } } };
      const created = await t.post(path('v1beta1'), pdb('v1beta1', 'same', spec));
      expect(created.status, created.text).to.equal(201);
      expect(created.body.apiVersion).to.equal('policy/v1beta1');
      expect(String(created.headers.warning)).to.contain('policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget');
      const v1 = (await t.get(path('v1', 'same'))).body;
      expect(v1.apiVersion).to.equal('policy/v1');
      expect(v1.spec).to.deep.equal(spec);
      expect(v1.metadata.uid).to.equal(created.body.metadata.uid);
      const back = (await t.get(path('v1beta1', 'same'))).body;
      expect(back).to.deep.include({ apiVersion: 'policy/v1beta1', spec });
    });

    it('an empty selector at v1beta1 selects nothing: stored as the Exists sentinel, read back as {}', async () => {
      expect((await t.post(path('v1beta1'), pdb('v1beta1', 'none', { maxUnavailable: 0, selector: {} }))).status).to.equal(201);
      expect((await t.get(path('v1', 'none'))).body.spec.selector).to.deep.equal({ matchExpressions: [{ key: LABEL, operator: 'Exists' }] });
      expect((await t.get(path('v1beta1', 'none'))).body.spec.selector).to.deep.equal({});
    });

    it('an empty selector at v1 selects everything: read at v1beta1 as the DoesNotExist sentinel, written back as {}', async () => {
      expect((await t.post(path('v1'), pdb('v1', 'all', { maxUnavailable: 0, selector: {} }))).status).to.equal(201);
      const beta = (await t.get(path('v1beta1', 'all'))).body;
      expect(beta.spec.selector).to.deep.equal({ matchExpressions: [{ key: LABEL, operator: 'DoesNotExist' }] });
      const put = await t.put(path('v1beta1', 'all'), beta);
      expect(put.status, put.text).to.equal(200);
      expect((await t.get(path('v1', 'all'))).body.spec.selector).to.deep.equal({});
      expect(put.body.metadata.generation, 'the round trip is no spec change').to.equal(1);
    });

    it('strips the sentinel label from any other selector written at v1beta1', async () => {
      const selector = { matchLabels: { app: 'x' }, matchExpressions: [{ key: LABEL, operator: 'Exists' }, { key: 'tier', operator: 'In', values: ['a'] }] };
      expect((await t.post(path('v1beta1'), pdb('v1beta1', 'mixed', { minAvailable: 1, selector }))).status).to.equal(201);
      expect((await t.get(path('v1', 'mixed'))).body.spec.selector).to.deep.equal(
        { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] });
    });

    it('validates the spec as v1 does, the status only for its conditions', async () => {
      const bad = await t.post(path('v1beta1'), pdb('v1beta1', 'both', { minAvailable: 1, maxUnavailable: 1 }));
      expect(bad.status, bad.text).to.equal(422);
      expect(bad.body.details.causes[0].message).to.contain('minAvailable and maxUnavailable cannot be both set');
      expect((await t.get(path('v1', 'both'))).status).to.equal(404);
      const created = (await t.post(path('v1beta1'), pdb('v1beta1', 'negative', { minAvailable: 1, selector: { matchLabels: { app: 'neg' } } }))).body;
      const status = await t.put(path('v1beta1', 'negative/status'), { ...created, status: { observedGeneration: 1, disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } });
      expect(status.status, status.text).to.equal(200);
      expect(status.body.status.disruptionsAllowed).to.equal(-1);
      const atV1 = await t.put(path('v1', 'negative/status'), { ...(await t.get(path('v1', 'negative'))).body });
      expect(atV1.status, 'v1 checks the counts').to.equal(422);
    });

    it('pods/eviction: a v1beta1 empty selector guards nothing, a negative budget is refused (403)', async () => {
      const pod = async (name: string, app: string) => {
        const created = (await t.post(`/api/v1/namespaces/${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c', image: 'registry.example.com/c:1' }] } })).body;
        const running = await t.put(`/api/v1/namespaces/${NS}/pods/${name}/status`, { ...created, status: { ...created.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
        expect(running.status, running.text).to.equal(200);
      };
      const evict = (name: string) => t.post(`/api/v1/namespaces/${NS}/pods/${name}/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name } });
      await pod('free', 'free');
      // 'none' (v1beta1 {}) has maxUnavailable 0 and selects nothing; 'all' (v1 {}) is ignored by eviction too.
      expect((await evict('free')).status).to.equal(201);
      await pod('neg-pod', 'neg');
      const refused = await evict('neg-pod');
      expect(refused.status, refused.text).to.equal(403);
      expect(refused.body.message).to.equal('poddisruptionbudget.policy "negative" is forbidden: pdb disruptions allowed is negative');
    });
  });
});
