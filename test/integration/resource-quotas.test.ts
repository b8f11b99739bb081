/**
 * core/v1 ResourceQuota over HTTPS against a real etcd, with the ResourceQuota admission plugin
 * and the resourcequota controller (--resource-quota-sync-period=1s):
 * - the kind: canonical quantities, status cleared on create and written only through /status,
 *   Kubernetes' validation causes with nothing stored, scopes immutable, kubectl's table;
 * - the plugin: creates over a hard limit refused (403 with Kubernetes' sentence, nothing
 *   stored), object counts of core kinds and of a custom resource, compute resources with their
 *   "must specify" constraint, the BestEffort, Terminating and PriorityClass scopes, dry run not
 *   charged, and --admission-control-config-file limitedResources;
 * - the controller: usage computed when a quota is made, a wrong status.used repaired, usage
 *   given back when objects are deleted.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { HttpResponse, eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';
import { quotaTestHooks } from '../../lib/admission/resourcequota/test-hooks';

type Body = Record<string, any>;
const quotas = (ns: string, name = '') => `/api/v1/namespaces/${ns}/resourcequotas${name ? `/${name}` : ''}`;
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const quota = (name: string, spec: Body): Body => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec });
const configMap = (name: string): Body => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
const pod = (name: string, spec: Body = {}, resources?: Body): Body => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'main', image: 'registry.example.com/app:1', ...(resources ? { resources } : {}) }], ...spec },
});

function expectForbidden(res: HttpResponse, resource: string, name: string, why: string): void {
  expect(res.status, res.text).to.equal(403);
  expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
  expect(res.body.message).to.equal(`${resource} "${name}" is forbidden: ${why}`);
}

describe('ResourceQuota (core/v1), its admission plugin and controller', function () {
  this.timeout(120_000);
  let t: TestServer;
  let dir: string;
  const namespace = async (name: string) => expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).to.equal(201);
  /** Creates a quota and waits for the controller's first status (the plugin ignores a quota until then). */
  const makeQuota = async (ns: string, name: string, spec: Body): Promise<Body> => {
    const res = await t.post(quotas(ns), quota(name, spec));
    expect(res.status, res.text).to.equal(201);
    return eventually(async () => {
      const got = await t.get(quotas(ns, name));
      return got.body.status?.used ? got.body : undefined;
    });
  };
  const used = async (ns: string, name: string) => (await t.get(quotas(ns, name))).body.status?.used;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'quota-config-'));
    const file = path.join(dir, 'admission.yaml');
    writeFileSync(file, [
      'apiVersion: apiserver.config.k8s.io/v1', 'kind: AdmissionConfiguration', 'plugins:', '- name: ResourceQuota', '  configuration:',
      '    apiVersion: apiserver.config.k8s.io/v1', '    kind: ResourceQuotaConfiguration', '    limitedResources:',
      '    - resource: persistentvolumeclaims', '      matchContains: ["requests.storage"]',
      '    - resource: pods', '      matchScopes:', '      - scopeName: PriorityClass', '        operator: In', '        values: ["critical"]', '',
    ].join('\n'));
    t = await startTestServer(['--resource-quota-sync-period=1s', '--disable-admission-plugins=Priority,ServiceAccount', `--admission-control-config-file=${file}`,
      '--controllers=*,-serviceaccount,-root-ca-cert-publisher']);
    for (const ns of ['rq-kind', 'rq-count', 'rq-pods', 'rq-scopes', 'rq-crd', 'rq-limited', 'rq-ctrl', 'rq-lost', 'rq-svc']) await namespace(ns);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('the kind', () => {
    it('stores quantities canonical, clears a status sent on create, and the controller fills it', async () => {
      const res = await t.post(quotas('rq-kind'), { ...quota('compute', { hard: { 'requests.memory': '1.5Gi', 'requests.cpu': '0.5', pods: '4' } }), status: { used: { pods: '3' } } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ hard: { 'requests.memory': '1536Mi', 'requests.cpu': '500m', pods: '4' } });
      expect(res.body.status).to.deep.equal({});
      const filled = await eventually(async () => (await t.get(quotas('rq-kind', 'compute'))).body.status?.used && (await t.get(quotas('rq-kind', 'compute'))).body);
      expect(filled.status).to.deep.equal({
        hard: { pods: '4', 'requests.cpu': '500m', 'requests.memory': '1536Mi' }, used: { pods: '0', 'requests.cpu': '0', 'requests.memory': '0' },
      });
    });

    it('keeps the status on main updates and the spec on /status updates', async () => {
      const current = (await t.get(quotas('rq-kind', 'compute'))).body;
      const main = await t.put(quotas('rq-kind', 'compute'), { ...current, spec: { hard: { ...current.spec.hard, pods: '5' } }, status: { used: { pods: '9' } } });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.spec.hard.pods).to.equal('5');
      expect(main.body.status.used.pods).to.equal('0');
      // The controller follows the new spec.hard into status.hard; then a /status write tries to change the spec.
      const synced = await eventually(async () => { const b = (await t.get(quotas('rq-kind', 'compute'))).body; return b.status.hard.pods === '5' && b; });
      const status = await t.put(quotas('rq-kind', 'compute/status'), { ...synced, spec: { hard: { pods: '1' } } });
      expect(status.status, status.text).to.equal(200);
      expect(status.body.spec.hard.pods).to.equal('5');
    });

    const invalid: Array<[string, Body, Cause[]]> = [
      ['a name no quota may hold', { hard: { storage: '1Gi' } },
        [{ field: 'spec.hard[storage]', reason: 'FieldValueInvalid', message: 'Invalid value: "storage": must be a standard resource for quota' }]],
      ['a negative hard limit', { hard: { pods: '-1' } },
        [{ field: 'spec.hard[pods]', reason: 'FieldValueInvalid', message: 'Invalid value: "-1": must be greater than or equal to 0' }]],
      ['a fractional object count', { hard: { services: '1500m' } },
        [{ field: 'spec.hard[services]', reason: 'FieldValueInvalid', message: 'Invalid value: "1500m": must be an integer' }]],
      ['a scope for a resource it does not apply to', { hard: { secrets: '1' }, scopes: ['BestEffort'] },
        [{ field: 'spec.scopes', reason: 'FieldValueInvalid', message: 'Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource' }]],
      ['In on the Terminating scope', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: ['x'] }] } },
        [{ field: 'spec.scopeSelector.matchExpressions.operator', reason: 'FieldValueInvalid', message: "Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity" }]],
    ];
    for (const [what, spec, causes] of invalid) {
      it(`refuses ${what} (422, nothing stored)`, async () => {
        const res = await rejectedLeavingStore(t, quotas('rq-kind'), () => t.post(quotas('rq-kind'), quota('bad', spec)));
        expectInvalidCauses(res, 'ResourceQuota', causes);
      });
    }

    it('refuses a hard limit that is no quantity while decoding (400, nothing stored)', async () => {
      const res = await rejectedLeavingStore(t, quotas('rq-kind'), () => t.post(quotas('rq-kind'), quota('lots', { hard: { pods: 'lots' } })));
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.contain("quantities must match the regular expression");
    });

    it('keeps scopes immutable', async () => {
      await makeQuota('rq-kind', 'scoped', { hard: { pods: '3' }, scopes: ['NotTerminating'] });
      const res = await rejectedLeavingStore(t, quotas('rq-kind'), () => mergePatch(t, quotas('rq-kind', 'scoped'), { spec: { scopes: ['Terminating'] } }));
      expectInvalidCauses(res, 'ResourceQuota', [{ field: 'spec.scopes', reason: 'FieldValueInvalid', message: 'Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable' }]);
    });

    it('prints kubectl\'s NAME AGE REQUEST LIMIT table', async () => {
      await makeQuota('rq-kind', 'printed', { hard: { 'limits.memory': '2Gi', 'limits.cpu': '2', 'requests.cpu': '1', pods: '4' } });
      const res = await t.get(quotas('rq-kind', 'printed'), TABLE);
      expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Age', 'Request', 'Limit']);
      const [, , request, limit] = res.body.rows[0].cells;
      expect([request, limit]).to.deep.equal(['pods: 0/4, requests.cpu: 0/1', 'limits.cpu: 0/2, limits.memory: 0/2Gi']);
    });

    it('is listed in discovery with the short name quota and a status subresource', async () => {
      const resources = (await t.get('/api/v1')).body.resources as Body[];
      expect(resources.find((r) => r.name === 'resourcequotas')).to.include({ kind: 'ResourceQuota', namespaced: true }).and.to.have.deep.property('shortNames', ['quota']);
      expect(resources.find((r) => r.name === 'resourcequotas/status')).to.include({ kind: 'ResourceQuota' });
    });
  });

  describe('the admission plugin', () => {
    it('refuses the create past count/configmaps with Kubernetes\' sentence, storing nothing, and charges status.used', async () => {
      await makeQuota('rq-count', 'objects', { hard: { 'count/configmaps': '2', configmaps: '5' } });
      for (const n of ['cm-1', 'cm-2']) expect((await t.post(configMaps('rq-count'), configMap(n))).status).to.equal(201);
      expect(await used('rq-count', 'objects')).to.deep.equal({ configmaps: '2', 'count/configmaps': '2' });
      const res = await rejectedLeavingStore(t, configMaps('rq-count'), () => t.post(configMaps('rq-count'), configMap('cm-3')));
      expectForbidden(res, 'configmaps', 'cm-3', 'exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2');
      expect((await t.get(configMaps('rq-count'))).body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['cm-1', 'cm-2']);
    });

    it('charges nothing for a dry run, and still refuses one over the limit', async () => {
      const res = await t.post(`${configMaps('rq-count')}?dryRun=All`, configMap('cm-dry'));
      expect(res.status).to.equal(403);
      await makeQuota('rq-count', 'roomy', { hard: { secrets: '10' } });
      const dry = await t.post('/api/v1/namespaces/rq-count/secrets?dryRun=All', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
      expect(dry.status, dry.text).to.equal(201);
      expect(await used('rq-count', 'roomy')).to.deep.equal({ secrets: '0' });
    });

    it('requires cpu requests when a quota limits them, and refuses requests past the limit', async () => {
      await makeQuota('rq-pods', 'compute', { hard: { 'requests.cpu': '1', pods: '5' } });
      expectForbidden(await t.post(pods('rq-pods'), pod('bare')), 'pods', 'bare', 'failed quota: compute: must specify requests.cpu for: main');
      expect((await t.post(pods('rq-pods'), pod('p1', {}, { requests: { cpu: '600m' } }))).status).to.equal(201);
      const res = await rejectedLeavingStore(t, pods('rq-pods'), () => t.post(pods('rq-pods'), pod('p2', {}, { requests: { cpu: '600m' } })));
      expectForbidden(res, 'pods', 'p2', 'exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
      expect(await used('rq-pods', 'compute')).to.deep.equal({ pods: '1', 'requests.cpu': '600m' });
    });

    it('counts pods by scope: BestEffort, NotBestEffort, Terminating, PriorityClass', async () => {
      await makeQuota('rq-scopes', 'best-effort', { hard: { pods: '1' }, scopes: ['BestEffort'] });
      await makeQuota('rq-scopes', 'not-best-effort', { hard: { pods: '1' }, scopes: ['NotBestEffort'] });
      await makeQuota('rq-scopes', 'terminating', { hard: { pods: '1' }, scopes: ['Terminating'] });
      await makeQuota('rq-scopes', 'high', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
      const limits = { requests: { cpu: '100m' } };
      // A BestEffort pod with a deadline: charged by best-effort and terminating.
      expect((await t.post(pods('rq-scopes'), pod('be-1', { activeDeadlineSeconds: 60 }))).status).to.equal(201);
      expectForbidden(await t.post(pods('rq-scopes'), pod('be-2')), 'pods', 'be-2', 'exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1');
      expectForbidden(await t.post(pods('rq-scopes'), pod('term-2', { activeDeadlineSeconds: 30 }, limits)), 'pods', 'term-2',
        'exceeded quota: terminating, requested: pods=1, used: pods=1, limited: pods=1');
      expect((await t.post(pods('rq-scopes'), pod('burstable-1', {}, limits))).status).to.equal(201);
      expectForbidden(await t.post(pods('rq-scopes'), pod('burstable-2', {}, limits)), 'pods', 'burstable-2', 'exceeded quota: not-best-effort, requested: pods=1, used: pods=1, limited: pods=1');
      expect(await used('rq-scopes', 'terminating')).to.deep.equal({ pods: '1' });
      expect(await used('rq-scopes', 'best-effort')).to.deep.equal({ pods: '1' });
      expect(await used('rq-scopes', 'not-best-effort')).to.deep.equal({ pods: '1' });
      expect(await used('rq-scopes', 'high')).to.deep.equal({ pods: '0' });
    });

    it('counts a PriorityClass-scoped quota only for pods of that class', async () => {
      await makeQuota('rq-scopes', 'gold', { hard: { 'count/pods': '5' } });
      const before = (await used('rq-scopes', 'high')).pods;
      expect(before).to.equal('0');
      // Deleting be-1 gives its pod back to best-effort and terminating (the controller's replenishment).
      await t.del(`${pods('rq-scopes')}/be-1`, { gracePeriodSeconds: 0 });
      await eventually(async () => (await used('rq-scopes', 'best-effort')).pods === '0' && (await used('rq-scopes', 'terminating')).pods === '0');
      expect((await t.post(pods('rq-scopes'), pod('high-1', { priorityClassName: 'high' }))).status).to.equal(201);
      expect(await used('rq-scopes', 'high')).to.deep.equal({ pods: '1' });
      expect(await used('rq-scopes', 'best-effort')).to.deep.equal({ pods: '1' });
      expect(await used('rq-scopes', 'gold')).to.deep.equal({ 'count/pods': '2' });
      expectForbidden(await t.post(pods('rq-scopes'), pod('high-2', { priorityClassName: 'high', activeDeadlineSeconds: 5 }, { requests: { cpu: '1m' } })), 'pods', 'high-2',
        'exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1');
    });

    it('counts objects of a custom resource as count/<resource>.<group>', async () => {
      const group = 'quota.example.com';
      const crd = {
        apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
        spec: {
          group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
        },
      };
      expect((await t.post('/apis/apiextensions.orch.io/v1/customresourcedefinitions', crd)).status).to.equal(201);
      const widgets = `/apis/${group}/v1/namespaces/rq-crd/widgets`;
      await eventually(async () => (await t.get(widgets)).status === 200);
      await makeQuota('rq-crd', 'widgets', { hard: { [`count/widgets.${group}`]: '1' } });
      const widget = (name: string) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name } });
      expect((await t.post(widgets, widget('w1'))).status).to.equal(201);
      const res = await rejectedLeavingStore(t, widgets, () => t.post(widgets, widget('w2')));
      expectForbidden(res, `widgets.${group}`, 'w2', `exceeded quota: widgets, requested: count/widgets.${group}=1, used: count/widgets.${group}=1, limited: count/widgets.${group}=1`);
    });

    it('refuses what limitedResources names without a covering quota', async () => {
      const claim = (name: string) => ({
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' },
      });
      const claims = '/api/v1/namespaces/rq-limited/persistentvolumeclaims';
      expectForbidden(await t.post(claims, claim('c1')), 'persistentvolumeclaims', 'c1', 'insufficient quota to consume: requests.storage');
      expectForbidden(await t.post(pods('rq-limited'), pod('crit', { priorityClassName: 'critical' })), 'pods', 'crit',
        'insufficient quota to match these scopes: [{PriorityClass In [critical]}]');
      expect((await t.post(pods('rq-limited'), pod('plain'))).status).to.equal(201);
      await makeQuota('rq-limited', 'storage', { hard: { 'requests.storage': '5Gi' } });
      await makeQuota('rq-limited', 'critical', { hard: { pods: '2' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['critical'] }] } });
      expect((await t.post(claims, claim('c2'))).status).to.equal(201);
      expect((await t.post(pods('rq-limited'), pod('crit-2', { priorityClassName: 'critical' }))).status).to.equal(201);
    });
  });

  describe('the controller', () => {
    it('never drops a charge: a recalculation that read the charged quota before the object was written counts it', async () => {
      await makeQuota('rq-lost', 'objects', { hard: { 'count/configmaps': '1' } });
      const gate = () => { let open!: () => void; const opened = new Promise<void>((r) => { open = r; }); return { opened, open }; };
      const [charged, write, readCharged, recount, synced] = [gate(), gate(), gate(), gate(), gate()];
      let held = false;
      // The create stops after its charge; the controller's next recalculation reads the charged quota and stops too.
      quotaTestHooks.charged = async (attrs) => {
        if (attrs.namespace !== 'rq-lost') return;
        charged.open();
        await write.opened;
      };
      quotaTestHooks.quotaRead = async (q) => {
        if (held || q.metadata?.namespace !== 'rq-lost' || (q.status as Body | undefined)?.used?.['count/configmaps'] !== '1') return;
        held = true;
        readCharged.open();
        await recount.opened;
      };
      // The queue runs one recalculation of a quota at a time: the first to finish after `held` is the one held.
      quotaTestHooks.synced = (key) => { if (held && key === 'rq-lost/objects') synced.open(); };
      try {
        const first = t.post(configMaps('rq-lost'), configMap('first'));
        await charged.opened;
        await readCharged.opened;
        // The recalculation goes on as far as it can without I/O; then the charged object is written.
        recount.open();
        await new Promise((r) => setImmediate(r));
        write.open();
        expect((await first).status).to.equal(201);
        await synced.opened;
        expect(await used('rq-lost', 'objects')).to.deep.equal({ 'count/configmaps': '1' });
        expectForbidden(await t.post(configMaps('rq-lost'), configMap('second')), 'configmaps', 'second',
          'exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
      } finally {
        delete quotaTestHooks.charged;
        delete quotaTestHooks.quotaRead;
        delete quotaTestHooks.synced;
      }
    });

    it('gives back the charge of a create whose write failed (AlreadyExists)', async () => {
      await makeQuota('rq-lost', 'secrets', { hard: { 'count/secrets': '5' } });
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } };
      expect((await t.post('/api/v1/namespaces/rq-lost/secrets', secret)).status).to.equal(201);
      expect((await t.post('/api/v1/namespaces/rq-lost/secrets', secret)).status).to.equal(409);
      await eventually(async () => (await used('rq-lost', 'secrets'))['count/secrets'] === '1', 10_000);
    });

    it('charges nothing for a Service its allocator refuses (cluster IP taken) and gives the count back on delete', async () => {
      await makeQuota('rq-svc', 'services', { hard: { 'count/services': '5' } });
      const svc = (name: string, clusterIP?: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name },
        spec: { ...(clusterIP ? { clusterIP } : {}), ports: [{ port: 80 }] } });
      const first = await t.post('/api/v1/namespaces/rq-svc/services', svc('first'));
      expect(first.status, first.text).to.equal(201);
      const taken = await t.post('/api/v1/namespaces/rq-svc/services', svc('second', first.body.spec.clusterIP));
      expect(taken.status, taken.text).to.equal(422);
      // Allocation comes before validating admission, as in Kubernetes: the refused Service was never charged.
      expect((await used('rq-svc', 'services'))['count/services']).to.equal('1');
      expect((await t.del('/api/v1/namespaces/rq-svc/services/first')).status).to.equal(200);
      await eventually(async () => (await used('rq-svc', 'services'))['count/services'] === '0', 10_000);
    });

    it('repairs a wrong status.used and gives usage back when objects are deleted', async () => {
      for (const n of ['a', 'b', 'c']) expect((await t.post(configMaps('rq-ctrl'), configMap(n))).status).to.equal(201);
      const q = await makeQuota('rq-ctrl', 'objects', { hard: { 'count/configmaps': '10' } });
      expect(q.status.used).to.deep.equal({ 'count/configmaps': '3' });
      const wrong = await t.put(quotas('rq-ctrl', 'objects/status'), { ...q, status: { hard: q.status.hard, used: { 'count/configmaps': '7' } } });
      expect(wrong.status, wrong.text).to.equal(200);
      await eventually(async () => (await used('rq-ctrl', 'objects'))['count/configmaps'] === '3', 10_000);
      expect((await t.del(`${configMaps('rq-ctrl')}/a`)).status).to.equal(200);
      await eventually(async () => (await used('rq-ctrl', 'objects'))['count/configmaps'] === '2', 10_000);
    });

    it('gives a pod\'s compute usage back when it turns Succeeded (count/pods stays)', async () => {
      await makeQuota('rq-ctrl', 'pods', { hard: { pods: '5', 'count/pods': '5' } });
      expect((await t.post(pods('rq-ctrl'), pod('done'))).status).to.equal(201);
      expect(await used('rq-ctrl', 'pods')).to.deep.equal({ 'count/pods': '1', pods: '1' });
      const current = (await t.get(`${pods('rq-ctrl')}/done`)).body;
      const res = await t.put(`${pods('rq-ctrl')}/done/status`, { ...current, status: { ...current.status, phase: 'Succeeded' } });
      expect(res.status, res.text).to.equal(200);
      await eventually(async () => (await used('rq-ctrl', 'pods')).pods === '0', 10_000);
      expect(await used('rq-ctrl', 'pods')).to.deep.equal({ 'count/pods': '1', pods: '0' });
    });

    it('follows spec.hard changes into status.hard', async () => {
      expect((await mergePatch(t, quotas('rq-ctrl', 'objects'), { spec: { hard: { 'count/configmaps': '4', secrets: '3' } } })).status).to.equal(200);
      const got = await eventually(async () => {
        const s = (await t.get(quotas('rq-ctrl', 'objects'))).body.status;
        return s.hard?.secrets ? s : undefined;
      });
      expect(got).to.deep.equal({ hard: { 'count/configmaps': '4', secrets: '3' }, used: { 'count/configmaps': '2', secrets: '0' } });
    });
  });
});
