/**
 * apps/v1 DaemonSet over HTTPS against a real etcd: Kubernetes 1.32's defaults (update strategy,
 * history, the pod template's), validation on create and update (each bad spec answered 422 with
 * the cause's field path, reason and message, and nothing stored; the template validated as a
 * pod's; the selector immutable), the templateGeneration annotation apps/v1 serves, status reset
 * on create and written only through /status, generation bumped by spec changes only, kubectl's
 * table cells and discovery.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'daemonsets';
const path = (name = '') => `/apis/apps/v1/namespaces/${NS}/daemonsets${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

const template = (labels: Body = { app: 'agent' }, spec: Body = {}): Body =>
  ({ metadata: { labels }, spec: { containers: [{ name: 'agent', image: 'agent:1' }], ...spec } });
const spec = (extra: Body = {}): Body => ({ selector: { matchLabels: { app: 'agent' } }, template: template(), ...extra });
const ds = (name: string, s: Body, extra: Body = {}): Body => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name }, spec: s, ...extra });
const rolling = (rollingUpdate: Body): Body => ({ updateStrategy: { type: 'RollingUpdate', rollingUpdate } });

const GENERATION = 'deprecated.daemonset.template.generation';
const NONNEG = 'must be greater than or equal to 0';
const ZERO_STATUS = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'DaemonSet', causes);
  expect(res.body.details).to.include({ group: 'apps' });
}

describe('DaemonSet (apps/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults and create', () => {
    it('fills the rolling update (maxUnavailable 1, maxSurge 0), history 10, the template, status zeros, generation 1', async () => {
      const res = await t.post(path(), ds('defaults', spec(), { status: { numberReady: 4 } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.updateStrategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
      expect(res.body.spec.revisionHistoryLimit).to.equal(10);
      expect(res.body.spec.template.spec).to.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
      expect(res.body.status).to.deep.equal(ZERO_STATUS);
      expect(res.body.metadata.generation).to.equal(1);
      expect(res.body.metadata.annotations).to.deep.equal({ [GENERATION]: '1' });
    });

    it('keeps OnDelete without a rollingUpdate, and a percentage maxSurge with maxUnavailable 0', async () => {
      const onDelete = await t.post(path(), ds('on-delete', spec({ updateStrategy: { type: 'OnDelete' } })));
      expect(onDelete.body.spec.updateStrategy).to.deep.equal({ type: 'OnDelete' });
      const surge = await t.post(path(), ds('surge', spec(rolling({ maxUnavailable: 0, maxSurge: '10%' }))));
      expect(surge.status, surge.text).to.equal(201);
      expect(surge.body.spec.updateStrategy.rollingUpdate).to.deep.equal({ maxUnavailable: 0, maxSurge: '10%' });
    });
  });

  describe('validation (ValidateDaemonSetSpec)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no selector', { template: template() }, [{
        field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"agent"}: `selector` does not match template `labels`',
      }]],
      ['an empty selector', spec({ selector: { matchLabels: {} } }), [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
      }]],
      ['a selector that does not select the template', spec({ template: template({ app: 'other' }) }), [{
        field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
      }]],
      ['a template without containers (validated as a pod\'s)', spec({ template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [] } } }), [{
        field: 'spec.template.spec.containers', reason: 'FieldValueRequired', message: 'Required value',
      }]],
      ['restartPolicy Never', spec({ template: template({ app: 'agent' }, { restartPolicy: 'Never' }) }), [{
        field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Never": supported values: "Always"',
      }]],
      ['activeDeadlineSeconds', spec({ template: template({ app: 'agent' }, { activeDeadlineSeconds: 10 }) }), [{
        field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
      }]],
      ['negative minReadySeconds', spec({ minReadySeconds: -1 }), [{ field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]],
      ['a negative revisionHistoryLimit', spec({ revisionHistoryLimit: -1 }), [{ field: 'spec.revisionHistoryLimit', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]],
      ['an unknown update strategy', spec({ updateStrategy: { type: 'Sometimes' } }), [{
        field: 'spec.updateStrategy', reason: 'FieldValueNotSupported',
        message: 'Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Sometimes", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"',
      }]],
      ['both maxUnavailable and maxSurge', spec(rolling({ maxUnavailable: 1, maxSurge: 1 })), [{
        field: 'spec.updateStrategy.rollingUpdate.maxSurge', reason: 'FieldValueInvalid',
        message: 'Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
      }]],
      ['neither maxUnavailable nor maxSurge', spec(rolling({ maxUnavailable: '0%', maxSurge: 0 })), [{
        field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueRequired', message: 'Required value: cannot be 0 when maxSurge is 0',
      }]],
      ['maxUnavailable above 100%', spec(rolling({ maxUnavailable: '120%' })), [{
        field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid', message: 'Invalid value: "120%": must not be greater than 100%',
      }]],
      ['a negative maxUnavailable', spec(rolling({ maxUnavailable: -1 })), [
        { field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` }]],
    ];
    invalid.forEach(([what, s, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), ds(`invalid-${i}`, s)));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });
  });

  describe('updates', () => {
    it('forbids changing the selector (field is immutable), leaving the object as it was', async () => {
      const created = (await t.post(path(), ds('fixed-selector', spec()))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('fixed-selector'), {
        ...created, spec: { ...created.spec, selector: { matchLabels: { app: 'agent', tier: 'x' } }, template: template({ app: 'agent', tier: 'x' }) },
      }));
      expectInvalid(res, [{
        field: 'spec.selector', reason: 'FieldValueInvalid',
        message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"agent", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
      }]);
    });

    it('bumps templateGeneration on a template change only, and generation on any spec change', async () => {
      const created = (await t.post(path(), ds('generations', spec()))).body;
      const strategy = await t.put(path('generations'), { ...created, spec: { ...created.spec, minReadySeconds: 5 } });
      expect(strategy.status, strategy.text).to.equal(200);
      expect(strategy.body.metadata.generation).to.equal(2);
      expect(strategy.body.metadata.annotations[GENERATION]).to.equal('1');
      // The client cannot set the annotation: the stored value wins.
      const tpl = await t.put(path('generations'), {
        ...strategy.body, metadata: { ...strategy.body.metadata, annotations: { [GENERATION]: '40' } },
        spec: { ...strategy.body.spec, template: template({ app: 'agent', v: '2' }) },
      });
      expect(tpl.status, tpl.text).to.equal(200);
      expect(tpl.body.metadata.generation).to.equal(3);
      expect(tpl.body.metadata.annotations[GENERATION]).to.equal('2');
      const labelled = await t.put(path('generations'), { ...tpl.body, metadata: { ...tpl.body.metadata, labels: { a: 'b' } } });
      expect(labelled.body.metadata.generation).to.equal(3);
      expect(labelled.body.metadata.annotations[GENERATION]).to.equal('2');
    });

    it('a restart (kubectl rollout restart\'s patch of the template annotation) is a template change', async () => {
      await t.post(path(), ds('restarted', spec()));
      const res = await t.request('PATCH', path('restarted'), {
        body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z' } } } } },
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.generation).to.equal(2);
      expect(res.body.metadata.annotations[GENERATION]).to.equal('2');
      expect(res.body.spec.template.spec.containers).to.have.length(1);
    });
  });

  describe('status', () => {
    it('is kept by main updates and written only through /status, which keeps the spec', async () => {
      const created = (await t.post(path(), ds('with-status', spec()))).body;
      const main = await t.put(path('with-status'), { ...created, status: { numberReady: 3 } });
      expect(main.body.status).to.deep.equal(ZERO_STATUS);
      const status = {
        currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 1, observedGeneration: 1,
        updatedNumberScheduled: 2, numberAvailable: 1, numberUnavailable: 1,
      };
      const res = await t.put(path('with-status/status'), { ...main.body, spec: { ...main.body.spec, minReadySeconds: 9 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.minReadySeconds).to.equal(undefined);
      expect(res.body.metadata.generation).to.equal(1);
    });

    it('refuses negative counts and a decremented collisionCount', async () => {
      const created = (await t.put(path('with-status/status'), { ...(await t.get(path('with-status'))).body, status: { ...ZERO_STATUS, collisionCount: 3 } })).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('with-status/status'), {
        ...created, status: { ...ZERO_STATUS, numberReady: -1, numberUnavailable: -2, collisionCount: 1 },
      }));
      expectInvalid(res, [
        { field: 'status.numberReady', reason: 'FieldValueInvalid', message: `Invalid value: -1: ${NONNEG}` },
        { field: 'status.numberUnavailable', reason: 'FieldValueInvalid', message: `Invalid value: -2: ${NONNEG}` },
        { field: 'status.collisionCount', reason: 'FieldValueInvalid', message: 'Invalid value: 1: cannot be decremented' },
      ]);
    });
  });

  describe('reads', () => {
    it('prints NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, and CONTAINERS IMAGES SELECTOR wide', async () => {
      const created = (await t.post(path(), ds('table', {
        selector: { matchLabels: { app: 'agent' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db', 'cache'] }] },
        template: template({ app: 'agent', tier: 'edge' }, { nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' } }),
      }))).body;
      await t.put(path('table/status'), { ...created, status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberMisscheduled: 0, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 } });
      const res = await t.get(path('table'), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      expect(res.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Up-to-date', 'integer', 0],
        ['Available', 'integer', 0], ['Node Selector', 'string', 0], ['Age', 'string', 0],
        ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]]);
      const cells = res.body.rows[0].cells;
      expect(cells.slice(0, 7)).to.deep.equal(['table', 3, 3, 2, 3, 2, 'disk=ssd,kubernetes.io/os=linux']);
      expect(cells.slice(8)).to.deep.equal(['agent', 'agent:1', 'app=agent,tier notin (cache,db)']);
    });

    it('is in discovery with short name ds, category all and /status', async () => {
      const list = await t.get('/apis/apps/v1');
      const byName = (n: string) => list.body.resources.find((r: Body) => r.name === n);
      expect(byName('daemonsets')).to.deep.include({ kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'], singularName: 'daemonset' });
      expect(byName('daemonsets/status').verbs).to.deep.equal(['get', 'patch', 'update']);
      expect(byName('daemonsets/scale')).to.equal(undefined);
    });
  });
});
