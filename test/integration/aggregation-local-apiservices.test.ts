/**
 * The local APIServices (kube-apiserver's autoregister and CRD registration controllers), through
 * HTTP on a real etcd: one per served group-version with Kubernetes' priorities and automanaged
 * label, Available with reason Local; a CRD's group-version gets one while the CRD serves it;
 * --runtime-config decides the built-in set, and a restart without a group-version deletes its
 * `onstart` APIService; a user's APIService is never touched.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { crdHttp } from '../helpers/crd-http';

type Obj = Record<string, any>;

const waitFor = async <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> => {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    last = await fn();
    if (last) return last as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('aggregation: local APIServices', function () {
  this.timeout(90_000);

  describe('orch flavor', () => {
    let t: TestServer;
    const APIS = '/apis/apiregistration.orch.io/v1/apiservices';
    const LABEL = 'kube-aggregator.orch.io/automanaged';
    const list = async () => {
      const r = await t.get(APIS);
      expect(r.status, r.text).to.equal(200);
      return r.body.items as Obj[];
    };
    const byName = async () => new Map((await list()).map((s) => [s.metadata.name as string, s]));
    const available = (s: Obj | undefined) => s?.status?.conditions?.find((c: Obj) => c.type === 'Available');

    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('has one APIService per served group-version at start, with Kubernetes\' priorities and the onstart label, each Available/Local', async () => {
      const all = await byName();
      const expected: Array<[string, string, string, number, number]> = [
        ['v1.', '', 'v1', 18000, 1],
        ['v1.apps', 'apps', 'v1', 17800, 15],
        ['v2.autoscaling', 'autoscaling', 'v2', 17500, 30],
        ['v1.autoscaling', 'autoscaling', 'v1', 17500, 15],
        ['v1.rbac.authorization.orch.io', 'rbac.authorization.orch.io', 'v1', 17000, 15],
        ['v1.flowcontrol.apiserver.orch.io', 'flowcontrol.apiserver.orch.io', 'v1', 16100, 21],
        ['v1.admissionregistration.orch.io', 'admissionregistration.orch.io', 'v1', 16700, 15],
        ['v1.apiextensions.orch.io', 'apiextensions.orch.io', 'v1', 16700, 15],
        ['v1.events.orch.io', 'events.orch.io', 'v1', 17750, 15],
      ];
      for (const [name, group, version, gp, vp] of expected) {
        const s = all.get(name);
        expect(s, name).to.not.equal(undefined);
        // The core group is '' (omitted in Go's JSON shape).
        expect(s!.spec.group ?? '', name).to.equal(group);
        expect(s!.spec).to.deep.include({ version, groupPriorityMinimum: gp, versionPriority: vp });
        expect(s!.spec.service ?? null, name).to.equal(null);
        expect(s!.metadata.labels?.[LABEL], name).to.equal('onstart');
      }
      // Every served built-in group-version but the aggregator's own group (no entry in kube's table).
      const discovery = (await t.get('/apis')).body.groups as Obj[];
      for (const g of discovery) {
        for (const v of g.versions as Obj[]) {
          const name = `${v.version}.${g.name}`;
          if (g.name === 'apiregistration.orch.io') expect(all.has(name), name).to.equal(false);
          else expect(all.has(name), name).to.equal(true);
        }
      }
      // policy/v1beta1 and admissionregistration v1beta1 are served only when --runtime-config switches them on.
      expect(all.has('v1beta1.policy')).to.equal(false);
      expect(all.has('v1beta1.admissionregistration.orch.io')).to.equal(false);
      const all2 = await waitFor('every local APIService Available', async () => {
        const m = await byName();
        return [...m.values()].every((s) => available(s)?.status === 'True') && m;
      });
      for (const s of all2.values()) {
        expect(available(s), s.metadata.name).to.deep.include({ status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
        expect(available(s).lastTransitionTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
    });

    it('kube-aggregator\'s post-start hooks are checks of /readyz, /healthz and /livez, each ok once its part has started', async () => {
      const hooks = ['poststarthook/start-kube-aggregator-informers', 'poststarthook/apiservice-registration-controller',
        'poststarthook/kube-apiserver-autoregistration', 'autoregister-completion', 'poststarthook/apiservice-status-local-available-controller',
        'poststarthook/apiservice-status-remote-available-controller', 'poststarthook/apiservice-discovery-controller',
        'poststarthook/apiservice-openapi-controller', 'poststarthook/apiservice-openapiv3-controller'];
      for (const endpoint of ['readyz', 'healthz', 'livez']) {
        const res = await t.get(`/${endpoint}?verbose`);
        expect(res.status).to.equal(200);
        expect(res.text.split('\n'), endpoint).to.include.members(hooks.map((h) => `[+]${h} ok`));
      }
      expect((await t.get('/readyz/autoregister-completion')).text).to.equal('ok');
    });

    it('a CRD\'s group-version gets an APIService (label true, 1000/100) that follows drift and goes with the CRD', async () => {
      const crd = await crdHttp(() => t, 'default').install('stable.example.com', { versions: ['v1', 'v2beta1'] });
      const s = await waitFor('v1.stable.example.com', async () => (await byName()).get('v1.stable.example.com'));
      expect(s.metadata.labels?.[LABEL]).to.equal('true');
      expect(s.spec).to.deep.include({ group: 'stable.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
      await waitFor('v2beta1.stable.example.com', async () => (await byName()).get('v2beta1.stable.example.com'));
      await waitFor('Available/Local', async () => available((await byName()).get('v1.stable.example.com'))?.reason === 'Local');

      // Drift is put back.
      const cur = (await t.get(`${APIS}/v1.stable.example.com`)).body;
      const put = await t.put(`${APIS}/v1.stable.example.com`, { ...cur, spec: { ...cur.spec, versionPriority: 7 } });
      expect(put.status, put.text).to.equal(200);
      await waitFor('versionPriority back to 100', async () => (await t.get(`${APIS}/v1.stable.example.com`)).body.spec?.versionPriority === 100);

      // Deleted while the CRD serves it: re-created (continuously managed).
      const uid = (await t.get(`${APIS}/v1.stable.example.com`)).body.metadata.uid;
      expect((await t.del(`${APIS}/v1.stable.example.com`)).status).to.equal(200);
      await waitFor('re-created', async () => {
        const r = await t.get(`${APIS}/v1.stable.example.com`);
        return r.status === 200 && r.body.metadata.uid !== uid;
      });

      // The CRD deleted: its APIServices go.
      expect((await t.del(`/apis/apiextensions.orch.io/v1/customresourcedefinitions/${crd.metadata.name}`)).status).to.be.oneOf([200, 202]);
      await waitFor('CRD APIServices removed', async () => {
        const m = await byName();
        return !m.has('v1.stable.example.com') && !m.has('v2beta1.stable.example.com');
      }, 30_000);
    });

    it('a CRD gets its APIServices from its spec as soon as it exists, its names not accepted included; a version no longer served loses its own', async () => {
      // crdregistration reads spec.versions[].served of every stored CRD, whatever its conditions.
      await crdHttp(() => t, 'default').install('names.example.com');
      const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
      const version = (name: string, served: boolean) => ({
        name, served, storage: name === 'v7',
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      });
      const widgets = {
        metadata: { name: 'widgets.names.example.com' },
        spec: {
          group: 'names.example.com', scope: 'Namespaced',
          // The kind is the CronTab CRD's: refused (KindConflict), so nothing of it is served.
          names: { plural: 'widgets', singular: 'widget', kind: 'CronTab', listKind: 'WidgetList' },
          versions: [version('v7', true), version('v8', false)],
        },
      };
      const created = await t.post(CRDS, widgets);
      expect(created.status, created.text).to.equal(201);
      const names = await waitFor('NamesAccepted False', async () => {
        const c = (await t.get(`${CRDS}/widgets.names.example.com`)).body.status?.conditions?.find((x: Obj) => x.type === 'NamesAccepted');
        return c?.status === 'False' ? c : undefined;
      });
      expect(names.reason).to.equal('KindConflict');
      expect((await t.get('/apis/names.example.com/v7/widgets')).status).to.equal(404);
      const v7 = await waitFor('v7.names.example.com', async () => (await byName()).get('v7.names.example.com'));
      expect(v7.metadata.labels?.[LABEL]).to.equal('true');
      expect(v7.spec).to.deep.include({ group: 'names.example.com', version: 'v7', groupPriorityMinimum: 1000, versionPriority: 100 });
      expect((await byName()).has('v8.names.example.com'), 'a version not served has none').to.equal(false);

      // v8 served, v7 not: v8's APIService comes, v7's goes.
      const update = async (versions: Obj[]) => {
        const cur = (await t.get(`${CRDS}/widgets.names.example.com`)).body;
        const r = await t.put(`${CRDS}/widgets.names.example.com`, { ...cur, spec: { ...cur.spec, versions } });
        expect(r.status, r.text).to.equal(200);
      };
      await update([version('v7', false), version('v8', true)]);
      await waitFor('v8 in, v7 out', async () => {
        const m = await byName();
        return m.has('v8.names.example.com') && !m.has('v7.names.example.com');
      });

      // The CRD deleted: its APIService goes; the CronTab CRD's stays.
      expect((await t.del(`${CRDS}/widgets.names.example.com`)).status).to.be.oneOf([200, 202]);
      await waitFor('v8 removed', async () => !(await byName()).has('v8.names.example.com'), 30_000);
      expect((await byName()).has('v1.names.example.com')).to.equal(true);
    });

    it('an onstart APIService deleted while the server runs is not re-created (autoregister syncs it once)', async () => {
      expect((await t.del(`${APIS}/v1.scheduling.orch.io`)).status).to.equal(200);
      await new Promise((r) => setTimeout(r, 1500));
      expect((await t.get(`${APIS}/v1.scheduling.orch.io`)).status).to.equal(404);
    });

    it('a user\'s APIService (no automanaged label) is left alone, and a local one is Available/Local', async () => {
      const mine = {
        apiVersion: 'apiregistration.orch.io/v1', kind: 'APIService', metadata: { name: 'v1.mine.example.com' },
        spec: { group: 'mine.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10 },
      };
      const r = await t.post(APIS, mine);
      expect(r.status, r.text).to.equal(201);
      const s = await waitFor('Available', async () => {
        const got = (await t.get(`${APIS}/v1.mine.example.com`)).body;
        return available(got)?.status === 'True' && got;
      });
      expect(available(s)).to.deep.include({ reason: 'Local' });
      expect(s.spec).to.deep.include({ groupPriorityMinimum: 10, versionPriority: 10 });
      expect(s.metadata.labels?.[LABEL]).to.equal(undefined);
    });
  });

  describe('kubernetes flavor, --runtime-config and restarts', () => {
    let etcd: TestEtcd;
    let t: TestServer | undefined;
    const APIS = '/apis/apiregistration.k8s.io/v1/apiservices';
    const LABEL = 'kube-aggregator.kubernetes.io/automanaged';

    before(async () => { etcd = await startTestEtcd(); });
    after(async () => {
      await t?.stop();
      await etcd?.stop();
    });

    it('policy/v1beta1 switched on gets its APIService; restarted with it off, the onstart APIService is deleted, a user\'s kept', async () => {
      t = await startTestServer(['--flavor=kubernetes', '--runtime-config=policy/v1beta1=true', '--runtime-config=autoscaling/v2=false'], { etcd });
      let s = (await t.get(`${APIS}/v1beta1.policy`)).body;
      expect(s.metadata?.labels?.[LABEL]).to.equal('onstart');
      expect(s.spec).to.deep.include({ group: 'policy', version: 'v1beta1', groupPriorityMinimum: 17100, versionPriority: 9 });
      expect((await t.get(`${APIS}/v1.rbac.authorization.k8s.io`)).body.metadata?.labels?.[LABEL]).to.equal('onstart');
      expect((await t.get(`${APIS}/v2.autoscaling`)).status).to.equal(404);
      // A user's APIService over a group-version the server will not serve after the restart.
      const mine = await t.post(APIS, {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.batch' },
        spec: { group: 'batch', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 10 },
      });
      expect(mine.status, mine.text).to.equal(201);
      await t.stop();
      t = undefined;

      t = await startTestServer(['--flavor=kubernetes'], { etcd });
      // Before ready: the off group-version's APIService is gone, the newly on one is there.
      expect((await t.get(`${APIS}/v1beta1.policy`)).status).to.equal(404);
      s = (await t.get(`${APIS}/v2.autoscaling`)).body;
      expect(s.spec).to.deep.include({ group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 });
      expect((await t.get(`${APIS}/v1beta1.batch`)).status).to.equal(200);
    });
  });
});
