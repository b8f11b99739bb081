/**
 * The workload versions Kubernetes removed in 1.16 (apps/v1beta1, apps/v1beta2 and the workloads
 * and NetworkPolicy of extensions/v1beta1): off by default, served with `--runtime-config` over
 * the objects of apps/v1 (networking/v1 for NetworkPolicy), each with Kubernetes' deprecation
 * warning, its own defaults, and the conversions that keep what apps/v1 lacks
 * (spec.rollbackTo in `deprecated.deployment.rollback.to`, spec.templateGeneration in
 * `deprecated.daemonset.template.generation`): old -> storage -> old and new -> old -> new keep
 * every field.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'removed-apps';
type Body = Record<string, any>;
const MAX_INT32 = 2147483647;

const template = (app: string): Body => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

interface Version { group: string; version: string; resource: string; kind: string; current: string; deprecated: string }
const root = (group: string, version: string) => (group ? `/apis/${group}/${version}` : `/api/${version}`);
const path = (group: string, version: string, resource: string, name = '') => `${root(group, version)}/namespaces/${NS}/${resource}${name ? `/${name}` : ''}`;
const oldPath = (v: Version, name = '') => path(v.group, v.version, v.resource, name);
const currentPath = (v: Version, name = '') => path(v.current.split('/')[0], v.current.split('/')[1], v.resource, name);
const objectAt = (apiVersion: string, kind: string, name: string, rest: Body): Body => ({ apiVersion, kind, metadata: { name }, ...rest });

const NETWORKING = 'networking.k8s.io/v1';
const VERSIONS: Version[] = [
  ...['Deployment', 'StatefulSet', 'ControllerRevision'].map((kind) => ({ group: 'apps', version: 'v1beta1', kind, resource: `${kind.toLowerCase()}s`, current: 'apps/v1', deprecated: 'v1.8+' })),
  ...['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ControllerRevision'].map((kind) => ({ group: 'apps', version: 'v1beta2', kind, resource: `${kind.toLowerCase()}s`, current: 'apps/v1', deprecated: 'v1.9+' })),
  ...['Deployment', 'DaemonSet', 'ReplicaSet'].map((kind) => ({ group: 'extensions', version: 'v1beta1', kind, resource: `${kind.toLowerCase()}s`, current: 'apps/v1', deprecated: 'v1.8+' })),
  { group: 'extensions', version: 'v1beta1', kind: 'NetworkPolicy', resource: 'networkpolicies', current: NETWORKING, deprecated: 'v1.9+' },
];

/** A valid body of `kind` at any of its versions (selector given: valid at every version). */
function bodyOf(kind: string, app: string): Body {
  const selector = { matchLabels: { app } };
  switch (kind) {
    case 'ControllerRevision': return { data: { spec: { template: template(app) } }, revision: 3 };
    case 'NetworkPolicy': return { spec: { podSelector: selector, ingress: [{ ports: [{ port: 80 }] }], egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] } };
    case 'StatefulSet': return { spec: { selector, serviceName: 'svc', template: template(app) } };
    default: return { spec: { selector, template: template(app) } };
  }
}

/** The object without what the server sets (metadata but for name, labels and annotations). */
function content(obj: Body): Body {
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, generation: _g, managedFields: _mf, namespace: _ns, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

describe('removed workload versions (apps/v1beta1, apps/v1beta2, extensions/v1beta1)', () => {
  describe('by default', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--runtime-config=apps/v1beta1=true,extensions/v1beta1=false']); });
    after(async () => { await t?.stop(); });

    it('serves none of them unless switched on: 404, and only apps/v1 and the switched-on version in discovery', async () => {
      expect((await t.get('/apis/extensions/v1beta1')).status).to.equal(404);
      expect((await t.get('/apis/extensions/v1beta1/deployments')).status).to.equal(404);
      expect((await t.get('/apis/apps/v1beta2')).status).to.equal(404);
      expect((await t.get('/apis/apps/v1beta2/namespaces/default/deployments')).status).to.equal(404);
      const groups = (await t.get('/apis')).body.groups as Body[];
      expect(groups.map((g) => g.name)).to.not.include('extensions');
      const apps = groups.find((g) => g.name === 'apps')!;
      expect(apps.versions.map((v: Body) => v.version)).to.deep.equal(['v1', 'v1beta1']);
      expect(apps.preferredVersion.version).to.equal('v1');
    });
  });

  describe('with --runtime-config=apps/v1beta1=true,apps/v1beta2=true,extensions/v1beta1=true', () => {
    let t: TestServer;
    before(async () => {
      // The Kubernetes flavor: NetworkPolicy's replacement is networking.k8s.io/v1, as Kubernetes' warning names it.
      t = await startTestServer(['--flavor=kubernetes', '--runtime-config=apps/v1beta1=true,apps/v1beta2=true,extensions/v1beta1=true']);
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    });
    after(async () => { await t?.stop(); });

    it('lists the versions in discovery as Kubernetes 1.15 did, apps/v1 preferred', async () => {
      const groups = (await t.get('/apis')).body.groups as Body[];
      expect(groups.find((g) => g.name === 'apps')!.versions.map((v: Body) => v.version)).to.deep.equal(['v1', 'v1beta2', 'v1beta1']);
      const ext = await t.get('/apis/extensions/v1beta1');
      expect(ext.status, ext.text).to.equal(200);
      const names = ext.body.resources.map((r: Body) => r.name);
      expect(names).to.include.members(['daemonsets', 'daemonsets/status', 'deployments', 'deployments/rollback', 'deployments/scale', 'deployments/status', 'networkpolicies', 'replicasets', 'replicasets/scale']);
      const scale = ext.body.resources.find((r: Body) => r.name === 'deployments/scale');
      expect(scale).to.deep.include({ group: 'extensions', version: 'v1beta1', kind: 'Scale' });
      const beta1 = (await t.get('/apis/apps/v1beta1')).body.resources.map((r: Body) => r.name);
      expect(beta1).to.include.members(['controllerrevisions', 'deployments', 'deployments/scale', 'deployments/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']);
    });

    for (const v of VERSIONS) {
      describe(`${v.group}/${v.version} ${v.kind}`, () => {
        const gv = `${v.group}/${v.version}`;
        const name = `${v.version}-${v.group}-${v.kind.toLowerCase()}`;

        it('old -> storage -> old: created with the deprecation warning, the same object at the current version and back', async () => {
          const created = await t.post(oldPath(v), objectAt(gv, v.kind, `${name}-a`, bodyOf(v.kind, 'a')));
          expect(created.status, created.text).to.equal(201);
          expect(created.body.apiVersion).to.equal(gv);
          expect(String(created.headers.warning)).to.contain(`${gv} ${v.kind} is deprecated in ${v.deprecated}, unavailable in v1.16+; use ${v.current} ${v.kind}`);
          const current = await t.get(currentPath(v, `${name}-a`));
          expect(current.status, current.text).to.equal(200);
          expect(current.body.apiVersion).to.equal(v.current);
          expect(current.body.metadata.uid).to.equal(created.body.metadata.uid);
          const back = await t.get(oldPath(v, `${name}-a`));
          expect(back.body).to.deep.equal(created.body);
        });

        it('new -> old -> new: written at the current version, updated at the old one, nothing lost', async () => {
          const written = await t.post(currentPath(v), objectAt(v.current, v.kind, `${name}-b`, bodyOf(v.kind, 'b')));
          expect(written.status, written.text).to.equal(201);
          const old = await t.get(oldPath(v, `${name}-b`));
          expect(old.status, old.text).to.equal(200);
          expect(old.body.apiVersion).to.equal(gv);
          old.body.metadata.labels = { touched: 'yes' };
          const put = await t.put(oldPath(v, `${name}-b`), old.body);
          expect(put.status, put.text).to.equal(200);
          const after = (await t.get(currentPath(v, `${name}-b`))).body;
          expect(content(after)).to.deep.equal(content({ ...written.body, metadata: { ...written.body.metadata, labels: { touched: 'yes' } } }));
        });

        it('lists and watches at the old version the objects written at the current one', async () => {
          const list = await t.get(oldPath(v));
          expect(list.status, list.text).to.equal(200);
          expect(list.body).to.include({ apiVersion: gv, kind: `${v.kind}List` });
          const rv = list.body.metadata.resourceVersion;
          expect((await t.post(currentPath(v), objectAt(v.current, v.kind, `${name}-w`, bodyOf(v.kind, 'w')))).status).to.equal(201);
          const watch = await t.get(`${oldPath(v)}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
          const events = watch.text.trim().split('\n').map((l) => JSON.parse(l));
          const added = events.find((e: Body) => e.type === 'ADDED' && e.object.metadata.name === `${name}-w`);
          expect(added, watch.text).to.not.equal(undefined);
          expect(added.object.apiVersion).to.equal(gv);
        });
      });
    }

    describe('Deployment spec.rollbackTo (apps/v1beta1, extensions/v1beta1)', () => {
      for (const gv of ['apps/v1beta1', 'extensions/v1beta1']) {
        it(`${gv}: kept in the deprecated.deployment.rollback.to annotation of apps/v1, read back as the field`, async () => {
          const [group, version] = gv.split('/');
          const n = `rollback-${group}`;
          const created = await t.post(path(group, version, 'deployments'), objectAt(gv, 'Deployment', n, { spec: { template: template('rb'), rollbackTo: { revision: 3 } } }));
          expect(created.status, created.text).to.equal(201);
          expect(created.body.spec.rollbackTo).to.deep.equal({ revision: 3 });
          expect(created.body.metadata.annotations ?? {}).to.not.have.property('deprecated.deployment.rollback.to');
          const v1 = (await t.get(path('apps', 'v1', 'deployments', n))).body;
          expect(v1.metadata.annotations).to.deep.equal({ 'deprecated.deployment.rollback.to': '3' });
          expect(v1.spec).to.not.have.property('rollbackTo');
          // Cleared at the old version: the annotation goes.
          const cleared = { ...created.body, spec: { ...created.body.spec } };
          delete cleared.spec.rollbackTo;
          const put = await t.put(path(group, version, 'deployments', n), cleared);
          expect(put.status, put.text).to.equal(200);
          expect(put.body.metadata.generation, 'a change of the spec').to.equal(2);
          expect((await t.get(path('apps', 'v1', 'deployments', n))).body.metadata.annotations ?? {}).to.deep.equal({});
          // Set through the annotation at apps/v1: the old versions read the field.
          v1.metadata.resourceVersion = undefined;
          const annotated = await t.put(path('apps', 'v1', 'deployments', n), { ...v1, metadata: { ...v1.metadata, annotations: { 'deprecated.deployment.rollback.to': '0' } } });
          expect(annotated.status, annotated.text).to.equal(200);
          expect((await t.get(path(group, version, 'deployments', n))).body.spec.rollbackTo).to.deep.equal({});
        });
      }

      it('a negative revision is refused as Kubernetes refuses it', async () => {
        const res = await t.post(path('extensions', 'v1beta1', 'deployments'), objectAt('extensions/v1beta1', 'Deployment', 'bad-rollback', { spec: { template: template('x'), rollbackTo: { revision: -1 } } }));
        expect(res.status, res.text).to.equal(422);
        expect(res.body.details.causes).to.deep.include({ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.rollback.version' });
        expect((await t.get(path('apps', 'v1', 'deployments', 'bad-rollback'))).status).to.equal(404);
      });
    });

    describe('the old versions\' defaults', () => {
      it('apps/v1beta1 Deployment: the selector and labels from the template, revisionHistoryLimit 2, 25% surge', async () => {
        const res = await t.post(path('apps', 'v1beta1', 'deployments'), objectAt('apps/v1beta1', 'Deployment', 'defaults-beta1', { spec: { template: template('d1') } }));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.metadata.labels).to.deep.equal({ app: 'd1' });
        expect(res.body.spec).to.deep.include({
          replicas: 1, selector: { matchLabels: { app: 'd1' } }, revisionHistoryLimit: 2, progressDeadlineSeconds: 600,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        });
      });

      it('extensions/v1beta1 Deployment: maxUnavailable and maxSurge 1, revisionHistoryLimit and progressDeadlineSeconds MaxInt32, kept at apps/v1', async () => {
        const res = await t.post(path('extensions', 'v1beta1', 'deployments'), objectAt('extensions/v1beta1', 'Deployment', 'defaults-ext', { spec: { template: template('d2') } }));
        expect(res.status, res.text).to.equal(201);
        const expected = {
          replicas: 1, selector: { matchLabels: { app: 'd2' } }, revisionHistoryLimit: MAX_INT32, progressDeadlineSeconds: MAX_INT32,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
        };
        expect(res.body.spec).to.deep.include(expected);
        expect((await t.get(path('apps', 'v1', 'deployments', 'defaults-ext'))).body.spec).to.deep.include(expected);
      });

      it('extensions/v1beta1 DaemonSet: updateStrategy OnDelete; templateGeneration 1, +1 on a template change, in the apps/v1 annotation', async () => {
        const res = await t.post(path('extensions', 'v1beta1', 'daemonsets'), objectAt('extensions/v1beta1', 'DaemonSet', 'defaults-ds', { spec: { template: template('ds') } }));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.spec).to.deep.include({ updateStrategy: { type: 'OnDelete' }, templateGeneration: 1, revisionHistoryLimit: 10, selector: { matchLabels: { app: 'ds' } } });
        expect(res.body.metadata.annotations ?? {}).to.not.have.property('deprecated.daemonset.template.generation');
        const v1 = (await t.get(path('apps', 'v1', 'daemonsets', 'defaults-ds'))).body;
        expect(v1.metadata.annotations).to.deep.equal({ 'deprecated.daemonset.template.generation': '1' });
        expect(v1.spec).to.not.have.property('templateGeneration');
        const changed = structuredClone(res.body);
        changed.spec.template.spec.containers[0].image = 'nginx:2';
        const put = await t.put(path('extensions', 'v1beta1', 'daemonsets', 'defaults-ds'), changed);
        expect(put.status, put.text).to.equal(200);
        expect(put.body.spec.templateGeneration).to.equal(2);
        expect((await t.get(path('apps', 'v1', 'daemonsets', 'defaults-ds'))).body.metadata.annotations).to.deep.equal({ 'deprecated.daemonset.template.generation': '2' });
      });

      it('apps/v1beta1 StatefulSet: updateStrategy OnDelete, podManagementPolicy OrderedReady, the selector from the template', async () => {
        const res = await t.post(path('apps', 'v1beta1', 'statefulsets'), objectAt('apps/v1beta1', 'StatefulSet', 'defaults-sts', { spec: { serviceName: 'svc', template: template('sts') } }));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.spec).to.deep.include({ updateStrategy: { type: 'OnDelete' }, podManagementPolicy: 'OrderedReady', replicas: 1, revisionHistoryLimit: 10, selector: { matchLabels: { app: 'sts' } } });
      });

      it('apps/v1beta2 keeps apps/v1\'s: a selector is required', async () => {
        const res = await t.post(path('apps', 'v1beta2', 'deployments'), objectAt('apps/v1beta2', 'Deployment', 'no-selector', { spec: { template: template('x') } }));
        expect(res.status, res.text).to.equal(422);
        expect(res.body.details.causes.map((c: Body) => c.field)).to.include('spec.selector');
      });
    });

    describe('the selector on update', () => {
      it('may change at extensions/v1beta1 (ReplicaSet) and apps/v1beta1 (Deployment), as Kubernetes allowed there', async () => {
        for (const [group, version, resource, kind] of [['extensions', 'v1beta1', 'replicasets', 'ReplicaSet'], ['apps', 'v1beta1', 'deployments', 'Deployment']]) {
          const n = `mutable-${group}-${resource}`;
          const created = await t.post(path(group, version, resource), objectAt(`${group}/${version}`, kind, n, { spec: { template: template('one') } }));
          expect(created.status, created.text).to.equal(201);
          const next = structuredClone(created.body);
          next.spec.selector = { matchLabels: { app: 'two' } };
          next.spec.template.metadata.labels = { app: 'two' };
          const put = await t.put(path(group, version, resource, n), next);
          expect(put.status, put.text).to.equal(200);
          expect((await t.get(path('apps', 'v1', resource, n))).body.spec.selector).to.deep.equal({ matchLabels: { app: 'two' } });
        }
      });

      it('is immutable at apps/v1beta2, as at apps/v1', async () => {
        const created = await t.post(path('apps', 'v1beta2', 'replicasets'), objectAt('apps/v1beta2', 'ReplicaSet', 'immutable', bodyOf('ReplicaSet', 'one')));
        expect(created.status, created.text).to.equal(201);
        const next = structuredClone(created.body);
        next.spec.selector = { matchLabels: { app: 'two' } };
        next.spec.template.metadata.labels = { app: 'two' };
        const put = await t.put(path('apps', 'v1beta2', 'replicasets', 'immutable'), next);
        expect(put.status, put.text).to.equal(422);
        expect(put.body.details.causes.map((c: Body) => c.message)).to.include('Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"two"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
      });
    });

    it('bad input at an old version is a 422 Status naming Kubernetes\' field, and nothing is stored', async () => {
      const res = await t.post(path('extensions', 'v1beta1', 'replicasets'), objectAt('extensions/v1beta1', 'ReplicaSet', 'bad', { spec: { replicas: -1, template: template('bad') } }));
      expect(res.status, res.text).to.equal(422);
      expect(res.body).to.include({ kind: 'Status', reason: 'Invalid' });
      expect(res.body.details.causes.map((c: Body) => c.field)).to.include('spec.replicas');
      expect((await t.get(path('apps', 'v1', 'replicasets', 'bad'))).status).to.equal(404);
    });

    describe('/scale answers the removed version\'s own Scale', () => {
      for (const [gv, resource, kind] of [['extensions/v1beta1', 'deployments', 'Deployment'], ['extensions/v1beta1', 'replicasets', 'ReplicaSet'], ['apps/v1beta1', 'statefulsets', 'StatefulSet'], ['apps/v1beta2', 'deployments', 'Deployment']]) {
        it(`${gv} ${resource}/scale: status.selector a map and targetSelector the string; writes spec.replicas`, async () => {
          const [group, version] = gv.split('/');
          const n = `scaled-${group}-${version}-${resource}`;
          const body = kind === 'StatefulSet' ? { spec: { serviceName: 'svc', selector: { matchLabels: { app: 's' } }, template: template('s') } } : { spec: { selector: { matchLabels: { app: 's' } }, template: template('s') } };
          expect((await t.post(path(group, version, resource), objectAt(gv, kind, n, body))).status).to.equal(201);
          const scale = await t.get(path(group, version, resource, `${n}/scale`));
          expect(scale.status, scale.text).to.equal(200);
          expect(scale.body).to.deep.include({ apiVersion: gv, kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 0, selector: { app: 's' }, targetSelector: 'app=s' } });
          const put = await t.put(path(group, version, resource, `${n}/scale`), { ...scale.body, spec: { replicas: 4 } });
          expect(put.status, put.text).to.equal(200);
          expect(put.body).to.deep.include({ apiVersion: gv, kind: 'Scale', spec: { replicas: 4 } });
          expect((await t.get(path('apps', 'v1', resource, n))).body.spec.replicas).to.equal(4);
        });
      }

      it('a selector with expressions is only in targetSelector', async () => {
        const selector = { matchLabels: { app: 'e' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] };
        const tmpl = { ...template('e'), metadata: { labels: { app: 'e', tier: 'web' } } };
        expect((await t.post(path('extensions', 'v1beta1', 'replicasets'), objectAt('extensions/v1beta1', 'ReplicaSet', 'expr', { spec: { selector, template: tmpl } }))).status).to.equal(201);
        const scale = (await t.get(path('extensions', 'v1beta1', 'replicasets', 'expr/scale'))).body;
        expect(scale.status).to.deep.equal({ replicas: 0, targetSelector: 'app=e,tier in (web)' });
      });
    });

    describe('deployments/rollback (apps/v1beta1, extensions/v1beta1)', () => {
      for (const gv of ['apps/v1beta1', 'extensions/v1beta1']) {
        it(`${gv}: sets spec.rollbackTo and the updated annotations, answers a Status Success`, async () => {
          const [group, version] = gv.split('/');
          const n = `rolled-${group}`;
          expect((await t.post(path(group, version, 'deployments'), objectAt(gv, 'Deployment', n, { spec: { template: template('r') } }))).status).to.equal(201);
          const res = await t.post(path(group, version, 'deployments', `${n}/rollback`), { apiVersion: gv, kind: 'DeploymentRollback', name: n, updatedAnnotations: { note: 'back' }, rollbackTo: { revision: 2 } });
          expect(res.status, res.text).to.equal(201);
          expect(res.body).to.deep.include({ kind: 'Status', status: 'Success', message: `rollback request for deployment "${n}" succeeded`, code: 200 });
          const old = (await t.get(path(group, version, 'deployments', n))).body;
          expect(old.spec.rollbackTo).to.deep.equal({ revision: 2 });
          expect(old.metadata.annotations).to.deep.equal({ note: 'back' });
          expect((await t.get(path('apps', 'v1', 'deployments', n))).body.metadata.annotations).to.deep.equal({ note: 'back', 'deprecated.deployment.rollback.to': '2' });
        });
      }

      it('refuses a bad rollback (422) and a name that is not the URL\'s (400), changing nothing', async () => {
        const n = 'rolled-bad';
        expect((await t.post(path('extensions', 'v1beta1', 'deployments'), objectAt('extensions/v1beta1', 'Deployment', n, { spec: { template: template('r') } }))).status).to.equal(201);
        const url = path('extensions', 'v1beta1', 'deployments', `${n}/rollback`);
        const bad = await t.post(url, { apiVersion: 'extensions/v1beta1', kind: 'DeploymentRollback', name: n, rollbackTo: { revision: -1 } });
        expect(bad.status, bad.text).to.equal(422);
        expect(bad.body.details.causes).to.deep.include({ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'rollback.version' });
        const other = await t.post(url, { apiVersion: 'extensions/v1beta1', kind: 'DeploymentRollback', name: 'other', rollbackTo: {} });
        expect(other.status, other.text).to.equal(400);
        expect(other.body.message).to.equal('name in URL does not match name in DeploymentRollback object');
        expect((await t.get(path('extensions', 'v1beta1', 'deployments', n))).body.spec).to.not.have.property('rollbackTo');
      });

      it('is not served at apps/v1beta2 or apps/v1', async () => {
        for (const version of ['v1beta2', 'v1']) {
          const res = await t.post(path('apps', version, 'deployments', 'defaults-beta1/rollback'), { name: 'defaults-beta1', rollbackTo: {} });
          expect(res.status, `${version}: ${res.text}`).to.equal(404);
        }
      });
    });
  });
});
