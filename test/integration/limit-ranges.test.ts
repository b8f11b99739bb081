/**
 * core/v1 LimitRange and the LimitRanger admission plugin over HTTPS against a real etcd:
 * CRUD, Kubernetes 1.32's defaults (a Container item's default from max, default request from
 * default, then min; quantities canonical), ValidateLimitRange's rows (422 with Kubernetes'
 * causes, nothing stored), the table, discovery and field selectors; and the plugin: defaults
 * written into a created pod and visible on GET, violations answered 403 with Kubernetes'
 * sentence and nothing stored, claims bounded, and a LimitRange honoured by a pod created right
 * after it (the live lookup when the watch cache has not seen it yet).
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

type Body = Record<string, any>;
const NS = 'limits';
const lrs = (ns = NS, name = '') => `/api/v1/namespaces/${ns}/limitranges${name ? `/${name}` : ''}`;
const pods = (ns = NS, name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;
const claims = (ns = NS) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const limitRange = (name: string, ...limits: Body[]): Body => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
const pod = (name: string, containers: Body[], extra: Body = {}): Body =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers, ...extra } });
const app = (resources?: Body, name = 'app'): Body => ({ name, image: 'registry.example.com/app:1', ...(resources ? { resources } : {}) });

/** Go's %#v of a quantity ParseQuantity keeps canonical (field.Invalid prints a Quantity so). */
const goQ = (value: number, scale: number, s: string) =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"DecimalSI"}`;

describe('LimitRange (core/v1) and LimitRanger', () => {
  let t: TestServer;
  const namespace = async (name: string) => expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).to.equal(201);
  before(async () => {
    t = await startTestServer();
    await namespace(NS);
  });
  after(async () => { await t?.stop(); });

  describe('the kind', () => {
    it('stores a Container item with Kubernetes\' defaults, canonical quantities, and serves CRUD', async () => {
      const created = await t.post(lrs(), limitRange('defaults', { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '0.1' } },
        { type: 'Pod', max: { cpu: '4' } }));
      expect(created.status, created.text).to.equal(201);
      expect(created.body.spec.limits).to.deep.equal([
        // default <- max; defaultRequest <- default, before min.
        { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' }, default: { cpu: '2', memory: '1Gi' }, defaultRequest: { cpu: '2', memory: '1Gi' } },
        { type: 'Pod', max: { cpu: '4' } },
      ]);
      expect((await t.get(lrs(NS, 'defaults'))).body).to.deep.equal(created.body);
      const updated = await t.put(lrs(NS, 'defaults'), { ...created.body, spec: { limits: [{ type: 'Container', min: { cpu: '50m' } }] } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body.spec.limits).to.deep.equal([{ type: 'Container', min: { cpu: '50m' }, defaultRequest: { cpu: '50m' } }]);
      expect(updated.body.metadata.generation).to.equal(undefined);
      expect((await t.del(lrs(NS, 'defaults'))).status).to.equal(200);
      expect((await t.get(lrs(NS, 'defaults'))).status).to.equal(404);
    });

    it('names a LimitRange created without a name with a UUID, as Kubernetes\' PrepareForCreate does', async () => {
      const res = await t.post(lrs(), { apiVersion: 'v1', kind: 'LimitRange', metadata: { generateName: 'ignored-' }, spec: { limits: [{ type: 'Pod', max: { cpu: '1' } }] } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.metadata.name).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect((await t.del(lrs(NS, res.body.metadata.name))).status).to.equal(200);
    });

    it('PUT creates a missing LimitRange (AllowCreateOnUpdate)', async () => {
      const res = await t.put(lrs(NS, 'put-created'), limitRange('put-created', { type: 'Pod', max: { memory: '2Gi' } }));
      expect(res.status, res.text).to.equal(201);
      expect((await t.del(lrs(NS, 'put-created'))).status).to.equal(200);
    });

    it('is discovered as limitranges with short name limits, and prints NAME, CREATED AT', async () => {
      const resources = (await t.get('/api/v1')).body.resources as Body[];
      expect(resources.find((r) => r.name === 'limitranges')).to.deep.include({ kind: 'LimitRange', namespaced: true, shortNames: ['limits'] });
      const created = await t.post(lrs(), limitRange('printed', { type: 'Pod', max: { cpu: '1' } }));
      const table = await t.get(lrs(NS, 'printed'), TABLE);
      expect(table.body.columnDefinitions.map((c: Body) => [c.name, c.type])).to.deep.equal([['Name', 'string'], ['Created At', 'date']]);
      expect(table.body.rows[0].cells).to.deep.equal(['printed', created.body.metadata.creationTimestamp]);
      const selected = await t.get(`${lrs()}?fieldSelector=metadata.name%3Dprinted`);
      expect(selected.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['printed']);
      expect((await t.del(lrs(NS, 'printed'))).status).to.equal(200);
    });
  });

  describe('validation (ValidateLimitRange): 422 with Kubernetes\' causes, nothing stored', () => {
    const rows: Array<[string, Body[], Cause[]]> = [
      ['an unknown type', [{ type: 'Foo', max: { cpu: '1' } }],
        [{ field: 'spec.limits[0].type', reason: 'FieldValueInvalid', message: 'Invalid value: "Foo": must be a standard limit type or fully qualified' }]],
      ['two items of one type', [{ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { memory: '1Gi' } }],
        [{ field: 'spec.limits[1].type', reason: 'FieldValueDuplicate', message: 'Duplicate value: "Pod"' }]],
      ['min over max', [{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }],
        [{ field: 'spec.limits[0].min[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(2, 0, '2')}: min value 2 is greater than max value 1` }]],
      ['a default on a Pod item', [{ type: 'Pod', default: { cpu: '1' }, defaultRequest: { cpu: '1' } }], [
        { field: 'spec.limits[0].default', reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when `type` is 'Pod'" },
        { field: 'spec.limits[0].defaultRequest', reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when `type` is 'Pod'" },
      ]],
      ['a PersistentVolumeClaim item without storage bounds', [{ type: 'PersistentVolumeClaim', max: { 'requests.storage': '1Gi' } }],
        [{ field: 'spec.limits[0].limits', reason: 'FieldValueRequired', message: 'Required value: either minimum or maximum storage value is required, but neither was provided' }]],
      ['an unknown resource name on a Pod item', [{ type: 'Pod', max: { foo: '1' } }], [
        { field: 'spec.limits[0].max[foo]', reason: 'FieldValueInvalid', message: 'Invalid value: "foo": must be a standard resource type or fully qualified' },
        { field: 'spec.limits[0].max[foo]', reason: 'FieldValueInvalid', message: 'Invalid value: "foo": must be a standard resource for containers' },
      ]],
      ['storage on a Pod item', [{ type: 'Pod', max: { storage: '1Gi' } }],
        [{ field: 'spec.limits[0].max[storage]', reason: 'FieldValueInvalid', message: 'Invalid value: "storage": must be a standard resource for containers' }]],
      ['a ratio under 1', [{ type: 'Pod', maxLimitRequestRatio: { cpu: '500m' } }],
        [{ field: 'spec.limits[0].maxLimitRequestRatio[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(500, -3, '500m')}: ratio 500m is less than 1` }]],
      ['a ratio over max/min', [{ type: 'Pod', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }],
        [{ field: 'spec.limits[0].maxLimitRequestRatio[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(3, 0, '3')}: ratio 3 is greater than max/min = 2.000000` }]],
      ['a default over max (the default request follows it)', [{ type: 'Container', default: { cpu: '2' }, max: { cpu: '1' } }], [
        { field: 'spec.limits[0].defaultRequest[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(2, 0, '2')}: default request value 2 is greater than max value 1` },
        // Kubernetes reports max as the bad value here.
        { field: 'spec.limits[0].default[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(1, 0, '1')}: default value 2 is greater than max value 1` },
      ]],
      ['a default request over the default', [{ type: 'Container', default: { memory: '1Gi' }, defaultRequest: { memory: '2Gi' } }], [
        { field: 'spec.limits[0].defaultRequest[memory]', reason: 'FieldValueInvalid',
          message: 'Invalid value: resource.Quantity{i:resource.int64Amount{value:2147483648, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2Gi", Format:"BinarySI"}: default request value 2Gi is greater than default limit value 1Gi' },
      ]],
      ['a default request under min', [{ type: 'Container', min: { cpu: '500m' }, defaultRequest: { cpu: '100m' } }], [
        { field: 'spec.limits[0].defaultRequest[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(100, -3, '100m')}: min value 500m is greater than default request value 100m` },
      ]],
      ['an extended resource whose default and default request differ', [{ type: 'Container', default: { 'example.com/gpu': '2' }, defaultRequest: { 'example.com/gpu': '1' } }], [
        { field: 'spec.limits[0].defaultRequest[example.com/gpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(1, 0, '1')}: default value 2 must equal to defaultRequest value 1 in example.com/gpu` },
      ]],
    ];
    rows.forEach(([what, limits, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, lrs(), () => t.post(lrs(), limitRange(`bad-${i}`, ...limits)));
        expectInvalidCauses(res, 'LimitRange', causes);
      });
    });

    it('validates updates alike', async () => {
      const created = await t.post(lrs(), limitRange('to-break', { type: 'Pod', max: { cpu: '1' } }));
      expect(created.status).to.equal(201);
      const res = await rejectedLeavingStore(t, lrs(), () => t.put(lrs(NS, 'to-break'), { ...created.body, spec: { limits: [{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }] } }));
      expectInvalidCauses(res, 'LimitRange', [{ field: 'spec.limits[0].min[cpu]', reason: 'FieldValueInvalid', message: `Invalid value: ${goQ(2, 0, '2')}: min value 2 is greater than max value 1` }]);
      expect((await t.del(lrs(NS, 'to-break'))).status).to.equal(200);
    });
  });

  describe('LimitRanger through HTTP', () => {
    const ns = 'limited';
    before(async () => {
      await namespace(ns);
      const res = await t.post(lrs(ns), limitRange('bounds',
        { type: 'Container', max: { cpu: '1' }, default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } },
        { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } }));
      expect(res.status, res.text).to.equal(201);
    });

    it('writes the defaults and the annotation into a created pod, visible on GET', async () => {
      const res = await t.post(pods(ns), pod('defaulted', [app()], { initContainers: [app({ limits: { cpu: '1' } }, 'init')] }));
      expect(res.status, res.text).to.equal(201);
      const stored = (await t.get(pods(ns, 'defaulted'))).body;
      expect(stored.spec.containers[0].resources).to.deep.equal({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
      // The init container's request defaulted to its own limit (pod defaults) before LimitRanger.
      expect(stored.spec.initContainers[0].resources).to.deep.equal({ limits: { cpu: '1', memory: '256Mi' }, requests: { cpu: '1', memory: '128Mi' } });
      expect(stored.metadata.annotations['kubernetes.io/limit-ranger']).to.equal(
        'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; '
        + 'memory request for init container init; memory limit for init container init');
    });

    it('refuses a pod over the max with 403 and Kubernetes\' sentence, storing nothing', async () => {
      const res = await rejectedLeavingStore(t, pods(ns), () => t.post(pods(ns), pod('too-big', [app({ limits: { cpu: '2' }, requests: { cpu: '1500m' } })])));
      expect(res.status, res.text).to.equal(403);
      expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden', code: 403,
        // maxConstraint reports the limit and stops there.
        message: 'pods "too-big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' });
      expect(res.body.details).to.deep.include({ name: 'too-big', kind: 'pods' });
    });

    it('bounds claims: 403 past the max, created within it', async () => {
      const claim = (name: string, storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
      const res = await rejectedLeavingStore(t, claims(ns), () => t.post(claims(ns), claim('huge', '20Gi')));
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal('persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
      expect((await t.post(claims(ns), claim('fits', '5Gi'))).status).to.equal(201);
    });

    it('honours a LimitRange created a moment before the pod', async () => {
      for (let i = 0; i < 3; i++) {
        const fresh = `fresh-${i}`;
        await namespace(fresh);
        expect((await t.post(lrs(fresh), limitRange('now', { type: 'Container', default: { memory: '64Mi' } }))).status).to.equal(201);
        const res = await t.post(pods(fresh), pod('right-after', [app()]));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.spec.containers[0].resources).to.deep.equal({ limits: { memory: '64Mi' }, requests: { memory: '64Mi' } });
      }
    });

    it('leaves pods of namespaces without LimitRanges alone', async () => {
      const res = await t.post(pods(), pod('free', [app()]));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.containers[0].resources ?? {}).to.deep.equal({});
      expect(res.body.metadata.annotations?.['kubernetes.io/limit-ranger']).to.equal(undefined);
    });
  });
});
