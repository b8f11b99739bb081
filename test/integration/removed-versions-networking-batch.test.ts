/**
 * The removed versions of the networking, batch, node, scheduling and coordination groups:
 * networking v1beta1 Ingress and IngressClass, extensions/v1beta1 Ingress (removed in 1.22),
 * batch/v1beta1 CronJob (1.25), node v1beta1 RuntimeClass (1.25), scheduling v1beta1
 * PriorityClass and coordination v1beta1 Lease (1.22). Off by default; with `--runtime-config`
 * each is served over its current version's objects, deprecated with Kubernetes' warning, and
 * converted without loss both ways: written at the old version and read at the current one and
 * back, written at the current one and read, updated and re-read through the old one. Watches
 * and lists at the old version see objects written at the new; bad input answers Kubernetes'
 * 422 with the old version's field paths.
 */
import { expect } from 'chai';
import { flavors } from '../../lib/naming';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { warningTexts } from '../helpers/warning-headers';

type Body = Record<string, any>;
const naming = flavors.orch;
const NS = 'removed-netbatch';
const NETWORKING = naming.group('networking');
const NODE = naming.group('node');
const SCHEDULING = naming.group('scheduling');
const COORDINATION = naming.group('coordination');
const REMOVED = [`${NETWORKING}/v1beta1`, 'extensions/v1beta1', 'batch/v1beta1', `${NODE}/v1beta1`, `${SCHEDULING}/v1beta1`, `${COORDINATION}/v1beta1`];

/** The collection (or item) path of `resource` at `gv`; namespaced unless `cluster`. */
const at = (gv: string, resource: string, name = '', cluster = false) =>
  `/apis/${gv}${cluster ? '' : `/namespaces/${NS}`}/${resource}${name ? `/${name}` : ''}`;
const obj = (gv: string, kind: string, name: string, rest: Body): Body => ({ apiVersion: gv, kind, metadata: { name }, ...rest });
/** The object without what the server sets (for comparing what was written with what is read). */
const content = (o: Body): Body => { const { metadata, ...rest } = o; return { ...rest, metadata: { name: metadata.name, labels: metadata.labels } }; };
const warned = (res: { headers: Record<string, string | string[] | undefined> }) => warningTexts(res.headers).join('\n');

async function expectCreated(t: TestServer, path: string, body: Body): Promise<{ body: Body; headers: Record<string, string | string[] | undefined> }> {
  const res = await t.post(path, body);
  expect(res.status, res.text).to.equal(201);
  return res;
}

async function read(t: TestServer, path: string): Promise<Body> {
  const res = await t.get(path);
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

/** The events a bounded watch from `rv` replays (everything written since). */
async function watchedSince(t: TestServer, collection: string, rv: string): Promise<Body[]> {
  const res = await t.get(`${collection}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
  expect(res.status, res.text).to.equal(200);
  return res.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

describe('removed versions: networking, batch, node, scheduling, coordination', () => {
  describe('by default (release 1.32)', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('serves none of them: each group version is 404', async () => {
      for (const gv of REMOVED) expect((await t.get(`/apis/${gv}`)).status, gv).to.equal(404);
      expect((await t.get(at(`${NETWORKING}/v1beta1`, 'ingresses'))).status).to.equal(404);
      expect((await t.get(at('batch/v1beta1', 'cronjobs'))).status).to.equal(404);
    });
  });

  describe('switched on with --runtime-config', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer([`--runtime-config=${REMOVED.map((gv) => `${gv}=true`).join(',')}`]);
      await expectCreated(t, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    });
    after(async () => { await t?.stop(); });

    it('lists each group version in discovery, after the current version, which stays preferred', async () => {
      const groups: Body[] = (await read(t, '/apis')).groups;
      for (const gv of REMOVED.filter((g) => !g.startsWith('extensions/'))) {
        const [name] = gv.split('/');
        const group = groups.find((g) => g.name === name)!;
        expect(group.versions.map((v: Body) => v.version), gv).to.include('v1beta1');
        expect(group.preferredVersion.version, gv).to.equal('v1');
      }
      const networking = (await read(t, `/apis/${NETWORKING}/v1beta1`)).resources.map((r: Body) => r.name);
      expect(networking).to.include.members(['ingressclasses', 'ingresses', 'ingresses/status']);
      const extensions = (await read(t, '/apis/extensions/v1beta1')).resources.map((r: Body) => r.name);
      expect(extensions).to.include.members(['ingresses', 'ingresses/status']);
      expect((await read(t, '/apis/batch/v1beta1')).resources.map((r: Body) => r.name)).to.deep.equal(['cronjobs', 'cronjobs/status']);
    });

    describe('Ingress at networking v1beta1 and extensions/v1beta1', () => {
      const BETA = `${NETWORKING}/v1beta1`;
      const V1 = `${NETWORKING}/v1`;
      /** Every field the spec's table names: backend, serviceName, numeric and string servicePort, a resource backend, pathType absent. */
      const betaSpec = (): Body => ({
        ingressClassName: 'external',
        backend: { serviceName: 'default-web', servicePort: 8080 },
        tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
        rules: [{
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/cart', backend: { serviceName: 'cart', servicePort: 'http' } },
              { path: '/static', pathType: 'Prefix', backend: { resource: { apiGroup: 'storage.example.com', kind: 'Bucket', name: 'assets' } } },
              { path: '/api', pathType: 'Exact', backend: { serviceName: 'api', servicePort: 443 } },
            ],
          },
        }],
      });
      const v1Spec: Body = {
        ingressClassName: 'external',
        defaultBackend: { service: { name: 'default-web', port: { number: 8080 } } },
        tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
        rules: [{
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/cart', pathType: 'ImplementationSpecific', backend: { service: { name: 'cart', port: { name: 'http' } } } },
              { path: '/static', pathType: 'Prefix', backend: { resource: { apiGroup: 'storage.example.com', kind: 'Bucket', name: 'assets' } } },
              { path: '/api', pathType: 'Exact', backend: { service: { name: 'api', port: { number: 443 } } } },
            ],
          },
        }],
      };
      /** What v1beta1 reads back: the defaulted pathType, and Go's always-written servicePort (0 without a service). */
      const betaRead = (): Body => {
        const spec = betaSpec();
        spec.rules[0].http.paths[0].pathType = 'ImplementationSpecific';
        spec.rules[0].http.paths[1].backend.servicePort = 0;
        return spec;
      };

      it('written at v1beta1 with every converted field: stored as v1 (fields mapped), read back unchanged but for the defaults', async () => {
        const created = await expectCreated(t, at(BETA, 'ingresses'), obj(BETA, 'Ingress', 'shop', { spec: betaSpec() }));
        expect(warned(created)).to.contain(`${BETA} Ingress is deprecated in v1.19+, unavailable in v1.22+; use ${V1} Ingress`);
        expect(created.body.apiVersion).to.equal(BETA);
        expect(created.body.spec).to.deep.equal(betaRead());
        const v1 = await read(t, at(V1, 'ingresses', 'shop'));
        expect(v1.apiVersion).to.equal(V1);
        expect(v1.spec).to.deep.equal(v1Spec);
        expect(v1.metadata.uid).to.equal(created.body.metadata.uid);
        const back = await read(t, at(BETA, 'ingresses', 'shop'));
        expect(back).to.deep.equal(created.body);
        const ext = await read(t, at('extensions/v1beta1', 'ingresses', 'shop'));
        expect(ext.apiVersion).to.equal('extensions/v1beta1');
        expect(ext.spec).to.deep.equal(betaRead());
        expect(ext.metadata.resourceVersion).to.equal(back.metadata.resourceVersion);
      });

      it('written at v1: read, updated and re-read at v1beta1 with nothing lost', async () => {
        const created = await expectCreated(t, at(V1, 'ingresses'), obj(V1, 'Ingress', 'roundtrip', { spec: v1Spec }));
        const beta = await read(t, at(BETA, 'ingresses', 'roundtrip'));
        expect(beta.spec).to.deep.equal(betaRead());
        beta.metadata.labels = { touched: 'v1beta1' };
        const put = await t.put(at(BETA, 'ingresses', 'roundtrip'), beta);
        expect(put.status, put.text).to.equal(200);
        expect(put.body.metadata.generation, 'the round trip is no spec change').to.equal(1);
        const v1 = await read(t, at(V1, 'ingresses', 'roundtrip'));
        expect(v1.spec).to.deep.equal(v1Spec);
        expect(v1.metadata.labels).to.deep.equal({ touched: 'v1beta1' });
        expect(v1.metadata.uid).to.equal(created.body.metadata.uid);
      });

      it('written at extensions/v1beta1 (with its warning): the same object at networking v1', async () => {
        const created = await expectCreated(t, at('extensions/v1beta1', 'ingresses'), obj('extensions/v1beta1', 'Ingress', 'legacy', { spec: betaSpec() }));
        expect(warned(created)).to.contain(`extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use ${V1} Ingress`);
        expect(created.body.spec).to.deep.equal(betaRead());
        expect((await read(t, at(V1, 'ingresses', 'legacy'))).spec).to.deep.equal(v1Spec);
        const v1 = await read(t, at(V1, 'ingresses', 'legacy'));
        v1.spec.defaultBackend = { service: { name: 'fallback', port: { name: 'web' } } };
        expect((await t.put(at(V1, 'ingresses', 'legacy'), v1)).status).to.equal(200);
        expect((await read(t, at('extensions/v1beta1', 'ingresses', 'legacy'))).spec.backend).to.deep.equal({ serviceName: 'fallback', servicePort: 'web' });
      });

      it('lists and watches at both old versions see objects written at v1, in their shape', async () => {
        const list = await read(t, at(BETA, 'ingresses'));
        expect(list.kind).to.equal('IngressList');
        const rv = list.metadata.resourceVersion;
        await expectCreated(t, at(V1, 'ingresses'), obj(V1, 'Ingress', 'watched', { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } }));
        for (const gv of [BETA, 'extensions/v1beta1']) {
          const events = await watchedSince(t, at(gv, 'ingresses'), rv);
          const added = events.find((e) => e.type === 'ADDED' && e.object.metadata.name === 'watched');
          expect(added, gv).to.not.equal(undefined);
          expect(added!.object.apiVersion).to.equal(gv);
          expect(added!.object.spec).to.deep.equal({ backend: { serviceName: 'web', servicePort: 80 } });
          const names = (await read(t, at(gv, 'ingresses'))).items.map((i: Body) => i.metadata.name);
          expect(names, gv).to.include.members(['shop', 'roundtrip', 'legacy', 'watched']);
        }
      });

      it('/status at v1beta1 writes the load balancer and keeps the spec', async () => {
        const current = await read(t, at(BETA, 'ingresses', 'shop'));
        const status = { loadBalancer: { ingress: [{ ip: '192.0.2.10' }, { hostname: 'lb.example.com' }] } };
        const put = await t.put(at(BETA, 'ingresses', 'shop/status'), { ...current, spec: { backend: { serviceName: 'ignored', servicePort: 1 } }, status });
        expect(put.status, put.text).to.equal(200);
        const v1 = await read(t, at(V1, 'ingresses', 'shop'));
        expect(v1.status).to.deep.equal(status);
        expect(v1.spec).to.deep.equal(v1Spec);
      });

      it('answers bad input with 422 and the v1beta1 field paths, storing nothing', async () => {
        const cases: Array<[Body, string[]]> = [
          [{ backend: { serviceName: 'Bad_Name', servicePort: 80 } }, ['spec.backend.serviceName']],
          [{ backend: { serviceName: 'web', servicePort: 70000 } }, ['spec.backend.servicePort']],
          [{ backend: { serviceName: 'web', servicePort: 'not_a_port' } }, ['spec.backend.servicePort']],
          [{ rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Sideways', backend: { serviceName: 'web', servicePort: 80 } }] } }] }, ['spec.rules[0].http.paths[0].pathType']],
          [{ backend: { serviceName: 'web', servicePort: 80, resource: { kind: 'Bucket', name: 'b' } } }, ['spec.backend']],
        ];
        for (const [spec, fields] of cases) {
          for (const gv of [BETA, 'extensions/v1beta1']) {
            const res = await t.post(at(gv, 'ingresses'), obj(gv, 'Ingress', 'bad', { spec }));
            expect(res.status, `${gv} ${JSON.stringify(spec)}: ${res.text}`).to.equal(422);
            expect(res.body.kind).to.equal('Status');
            expect(res.body.details.causes.map((c: Body) => c.field)).to.deep.equal(fields);
          }
        }
        const empty = await t.post(at(BETA, 'ingresses'), obj(BETA, 'Ingress', 'bad', { spec: {} }));
        expect(empty.status).to.equal(422);
        expect(empty.body.message).to.contain('either `backend` or `rules` must be specified');
        expect((await t.get(at(V1, 'ingresses', 'bad'))).status).to.equal(404);
      });
    });

    describe('IngressClass at networking v1beta1', () => {
      const BETA = `${NETWORKING}/v1beta1`;
      const spec = { controller: 'example.com/ingress', parameters: { apiGroup: 'example.com', kind: 'IngressParameters', name: 'external', scope: 'Namespace', namespace: NS } };

      it('round-trips with v1 both ways, warns, and keeps the controller immutable', async () => {
        const created = await expectCreated(t, at(BETA, 'ingressclasses', '', true), obj(BETA, 'IngressClass', 'beta-class', { spec }));
        expect(warned(created)).to.contain(`${BETA} IngressClass is deprecated in v1.19+, unavailable in v1.22+; use ${NETWORKING}/v1 IngressClassList`);
        expect((await read(t, at(`${NETWORKING}/v1`, 'ingressclasses', 'beta-class', true))).spec).to.deep.equal(spec);
        await expectCreated(t, at(`${NETWORKING}/v1`, 'ingressclasses', '', true), obj(`${NETWORKING}/v1`, 'IngressClass', 'v1-class', { spec }));
        const beta = await read(t, at(BETA, 'ingressclasses', 'v1-class', true));
        expect(content(beta)).to.deep.equal(content(obj(BETA, 'IngressClass', 'v1-class', { spec })));
        const changed = await t.put(at(BETA, 'ingressclasses', 'v1-class', true), { ...beta, spec: { ...spec, controller: 'example.com/other' } });
        expect(changed.status).to.equal(422);
        expect(changed.body.details.causes.map((c: Body) => c.field)).to.deep.equal(['spec.controller']);
      });
    });

    describe('CronJob at batch/v1beta1', () => {
      const jobTemplate = { metadata: { labels: { job: 'report' } }, spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } };

      it('defaults as v1beta1 does, warns, and reads the same object at v1 and back', async () => {
        const created = await expectCreated(t, at('batch/v1beta1', 'cronjobs'), obj('batch/v1beta1', 'CronJob', 'report', { spec: { schedule: '0 * * * *', startingDeadlineSeconds: 30, jobTemplate } }));
        expect(warned(created)).to.contain('batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob');
        expect(created.body.spec).to.include({ schedule: '0 * * * *', startingDeadlineSeconds: 30, concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
        expect(created.body.spec.jobTemplate.metadata.labels).to.deep.equal({ job: 'report' });
        expect(created.body.spec.jobTemplate.spec.backoffLimit).to.equal(2);
        const v1 = await read(t, at('batch/v1', 'cronjobs', 'report'));
        expect(v1.apiVersion).to.equal('batch/v1');
        expect(v1.spec).to.deep.equal(created.body.spec);
        expect(await read(t, at('batch/v1beta1', 'cronjobs', 'report'))).to.deep.equal(created.body);
      });

      it('written at v1: read, updated and re-read at v1beta1 with nothing lost; /status at v1beta1', async () => {
        const spec = { schedule: '*/10 * * * *', concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 2, jobTemplate };
        const created = await expectCreated(t, at('batch/v1', 'cronjobs'), obj('batch/v1', 'CronJob', 'nightly', { spec }));
        const beta = await read(t, at('batch/v1beta1', 'cronjobs', 'nightly'));
        expect(beta.spec).to.deep.equal(created.body.spec);
        beta.metadata.labels = { touched: 'v1beta1' };
        const put = await t.put(at('batch/v1beta1', 'cronjobs', 'nightly'), beta);
        expect(put.status, put.text).to.equal(200);
        const status = { lastScheduleTime: '2026-01-02T03:04:05Z' };
        const st = await t.put(at('batch/v1beta1', 'cronjobs', 'nightly/status'), { ...put.body, status });
        expect(st.status, st.text).to.equal(200);
        const v1 = await read(t, at('batch/v1', 'cronjobs', 'nightly'));
        expect(v1.spec).to.deep.equal(created.body.spec);
        expect(v1.metadata.labels).to.deep.equal({ touched: 'v1beta1' });
        expect(v1.status).to.deep.equal(status);
      });

      it('watches at v1beta1 see a CronJob written at v1', async () => {
        const rv = (await read(t, at('batch/v1beta1', 'cronjobs'))).metadata.resourceVersion;
        await expectCreated(t, at('batch/v1', 'cronjobs'), obj('batch/v1', 'CronJob', 'watched', { spec: { schedule: '@daily', jobTemplate } }));
        const added = (await watchedSince(t, at('batch/v1beta1', 'cronjobs'), rv)).find((e) => e.type === 'ADDED');
        expect(added?.object).to.deep.include({ apiVersion: 'batch/v1beta1', kind: 'CronJob' });
        expect(added?.object.metadata.name).to.equal('watched');
      });

      it('a DELETE at v1beta1 without a propagation policy orphans the Jobs (v1 deletes them)', async () => {
        const del = await t.del(at('batch/v1beta1', 'cronjobs', 'report'));
        expect(del.status, del.text).to.be.oneOf([200, 202]);
        expect(del.body.metadata.finalizers).to.include('orphan');
      });

      it('answers bad input with 422, storing nothing', async () => {
        const res = await t.post(at('batch/v1beta1', 'cronjobs'), obj('batch/v1beta1', 'CronJob', 'bad', { spec: { schedule: 'not a schedule', concurrencyPolicy: 'Sometimes', jobTemplate } }));
        expect(res.status, res.text).to.equal(422);
        expect(res.body.details.causes.map((c: Body) => c.field)).to.include.members(['spec.schedule', 'spec.concurrencyPolicy']);
        expect((await t.get(at('batch/v1', 'cronjobs', 'bad'))).status).to.equal(404);
      });
    });

    describe('RuntimeClass, PriorityClass and Lease at v1beta1', () => {
      const cases: Array<{ gv: string; kind: string; resource: string; cluster: boolean; deprecated: string; fields: Body; bad: Body; badField: string }> = [
        {
          gv: `${NODE}/v1beta1`, kind: 'RuntimeClass', resource: 'runtimeclasses', cluster: true, deprecated: 'v1.22+, unavailable in v1.25+',
          fields: { handler: 'kata', overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'runtime', operator: 'Equal', value: 'kata', effect: 'NoSchedule' }] } },
          bad: { handler: 'Not_A_Label' }, badField: 'handler',
        },
        {
          gv: `${SCHEDULING}/v1beta1`, kind: 'PriorityClass', resource: 'priorityclasses', cluster: true, deprecated: 'v1.14+, unavailable in v1.22+',
          fields: { value: 5000, globalDefault: false, description: 'batch work', preemptionPolicy: 'Never' },
          bad: { value: 2000000001 }, badField: 'value',
        },
        {
          gv: `${COORDINATION}/v1beta1`, kind: 'Lease', resource: 'leases', cluster: false, deprecated: 'v1.19+, unavailable in v1.22+',
          fields: { spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40, acquireTime: '2026-01-02T03:04:05.000000Z', renewTime: '2026-01-02T03:04:25.000000Z', leaseTransitions: 3 } },
          bad: { spec: { leaseDurationSeconds: 0 } }, badField: 'spec.leaseDurationSeconds',
        },
      ];
      for (const c of cases) {
        const v1 = c.gv.replace(/v1beta1$/, 'v1');
        it(`${c.kind}: written at v1beta1 (warned) and read at v1 and back; written at v1, updated at v1beta1; listed and watched`, async () => {
          const created = await expectCreated(t, at(c.gv, c.resource, '', c.cluster), obj(c.gv, c.kind, 'from-beta', c.fields));
          // RuntimeClass's lifecycle names no replacement; IngressClass's (above) names its list kind, as Kubernetes' does.
          expect(warningTexts(created.headers)).to.include(`${c.gv} ${c.kind} is deprecated in ${c.deprecated}${c.kind === 'RuntimeClass' ? '' : `; use ${v1} ${c.kind}`}`);
          const atV1 = await read(t, at(v1, c.resource, 'from-beta', c.cluster));
          expect(content(atV1)).to.deep.equal(content({ ...created.body, apiVersion: v1 }));
          expect(await read(t, at(c.gv, c.resource, 'from-beta', c.cluster))).to.deep.equal(created.body);

          const rv = (await read(t, at(c.gv, c.resource, '', c.cluster))).metadata.resourceVersion;
          const written = await expectCreated(t, at(v1, c.resource, '', c.cluster), obj(v1, c.kind, 'from-v1', c.fields));
          const beta = await read(t, at(c.gv, c.resource, 'from-v1', c.cluster));
          expect(content(beta)).to.deep.equal(content({ ...written.body, apiVersion: c.gv }));
          beta.metadata.labels = { touched: 'v1beta1' };
          const put = await t.put(at(c.gv, c.resource, 'from-v1', c.cluster), beta);
          expect(put.status, put.text).to.equal(200);
          const again = await read(t, at(v1, c.resource, 'from-v1', c.cluster));
          expect(content(again)).to.deep.equal(content({ ...written.body, metadata: { ...written.body.metadata, labels: { touched: 'v1beta1' } } }));

          const events = await watchedSince(t, at(c.gv, c.resource, '', c.cluster), rv);
          expect(events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name])).to.deep.include.members([
            ['ADDED', c.gv, 'from-v1'], ['MODIFIED', c.gv, 'from-v1'],
          ]);
          const names = (await read(t, at(c.gv, c.resource, '', c.cluster))).items.map((i: Body) => i.metadata.name);
          expect(names).to.include.members(['from-beta', 'from-v1']);
        });

        it(`${c.kind}: bad input at v1beta1 is 422 on ${c.badField}, storing nothing`, async () => {
          const res = await t.post(at(c.gv, c.resource, '', c.cluster), obj(c.gv, c.kind, 'bad', c.bad));
          expect(res.status, res.text).to.equal(422);
          expect(res.body.details.causes.map((x: Body) => x.field)).to.include(c.badField);
          expect((await t.get(at(v1, c.resource, 'bad', c.cluster))).status).to.equal(404);
        });
      }

      it('the system PriorityClasses are readable at v1beta1', async () => {
        const pc = await read(t, at(`${SCHEDULING}/v1beta1`, 'priorityclasses', 'system-node-critical', true));
        expect(pc).to.deep.include({ apiVersion: `${SCHEDULING}/v1beta1`, kind: 'PriorityClass', value: 2000001000 });
      });
    });
  });
});
