/**
 * The removed extension versions (issue 44): apiextensions.k8s.io/v1beta1
 * CustomResourceDefinition, apiregistration.k8s.io/v1beta1 APIService and
 * admissionregistration.k8s.io/v1beta1 Mutating/ValidatingWebhookConfiguration, all removed in
 * 1.22. Off by default; with `--runtime-config` served over the v1 objects, deprecated, each
 * converted without loss: written at v1beta1 -> read at v1 (fields mapped) -> read back at
 * v1beta1 (as written plus defaults); written at v1 -> read, updated at v1beta1 -> nothing lost
 * at v1. A CRD created at v1beta1 serves its custom resources (unpruned when it preserves
 * unknown fields, validated even with a non-structural schema); an APIService written at
 * v1beta1 is handled by the aggregation layer's availability controller.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';

type Obj = Record<string, any>;

const AX = 'apiextensions.k8s.io';
const AR = 'apiregistration.k8s.io';
const ADM = 'admissionregistration.k8s.io';
const NS = 'removed-ext';
const crds = (version: string, name = '') => `/apis/${AX}/${version}/customresourcedefinitions${name ? `/${name}` : ''}`;
const apiServices = (version: string, name = '') => `/apis/${AR}/${version}/apiservices${name ? `/${name}` : ''}`;
const hooks = (version: string, resource: string, name = '') => `/apis/${ADM}/${version}/${resource}${name ? `/${name}` : ''}`;
const warning = (gv: string, kind: string, deprecated: number, replacement: string) =>
  `299 - "${gv} ${kind} is deprecated in v1.${deprecated}+, unavailable in v1.22+; use ${replacement} ${kind}"`;

/** The object's metadata without what the server sets and moves. */
const specAndStatus = (o: Obj) => ({ spec: o.spec, status: o.status });

describe('removed extension versions (apiextensions, apiregistration, admissionregistration v1beta1)', () => {
  describe('by default', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--flavor=kubernetes']); });
    after(async () => { await t?.stop(); });

    it('none of the three v1beta1 group versions is served: 404, and discovery lists only v1', async () => {
      for (const gv of [`${AX}/v1beta1`, `${AR}/v1beta1`, `${ADM}/v1beta1`]) {
        expect((await t.get(`/apis/${gv}`)).status, gv).to.equal(404);
      }
      expect((await t.get(crds('v1beta1'))).status).to.equal(404);
      expect((await t.get(apiServices('v1beta1'))).status).to.equal(404);
      const groups = (await t.get('/apis')).body.groups as Obj[];
      for (const g of [AX, AR, ADM]) {
        expect(groups.find((x) => x.name === g)!.versions.map((v: Obj) => v.version), g).to.deep.equal(['v1']);
      }
    });
  });

  describe('with --runtime-config switching them on', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(['--flavor=kubernetes', `--runtime-config=${AX}/v1beta1=true,${AR}/v1beta1=true,${ADM}/v1beta1=true`]);
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    });
    after(async () => { await t?.stop(); });

    it('discovery lists v1 (preferred) and v1beta1 with the resources and their status', async () => {
      for (const [g, resource] of [[AX, 'customresourcedefinitions'], [AR, 'apiservices']]) {
        const group = (await t.get(`/apis/${g}`)).body;
        expect(group.versions.map((v: Obj) => v.version)).to.deep.equal(['v1', 'v1beta1']);
        expect(group.preferredVersion.version).to.equal('v1');
        const list = (await t.get(`/apis/${g}/v1beta1`)).body;
        expect(list.resources.map((r: Obj) => r.name)).to.include.members([resource, `${resource}/status`]);
      }
    });

    describe('apiextensions.k8s.io/v1beta1 CustomResourceDefinition', () => {
      const GROUP = 'beta.example.com';
      const schema = {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, size: { type: 'string' } } },
          status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
        },
      };
      const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } };
      const crd = (version: string, plural: string, spec: Obj): Obj => ({
        apiVersion: `${AX}/${version}`, kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${GROUP}` },
        spec: { group: GROUP, names: { plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) }, ...spec },
      });

      it('created at v1beta1 with every v1beta1-only field: defaulted, warned, stored as v1, read back as written', async () => {
        const body = crd('v1beta1', 'widgets', {
          version: 'v1',
          validation: { openAPIV3Schema: schema },
          subresources,
          additionalPrinterColumns: [{ name: 'Size', type: 'string', JSONPath: '.spec.size', description: 'the size', priority: 0 }],
          conversion: { strategy: 'None' },
          preserveUnknownFields: false,
        });
        const created = await t.post(crds('v1beta1'), body);
        expect(created.status, created.text).to.equal(201);
        expect(String(created.headers.warning)).to.contain(warning(`${AX}/v1beta1`, 'CustomResourceDefinition', 16, `${AX}/v1`));
        expect(created.body.apiVersion).to.equal(`${AX}/v1beta1`);
        expect(created.body.spec).to.deep.equal({
          group: GROUP, version: 'v1',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          validation: { openAPIV3Schema: schema },
          subresources,
          versions: [{ name: 'v1', served: true, storage: true }],
          additionalPrinterColumns: [{ name: 'Size', type: 'string', description: 'the size', priority: 0, JSONPath: '.spec.size' }],
          conversion: { strategy: 'None' },
          preserveUnknownFields: false,
        });
        expect(created.body.status.storedVersions).to.deep.equal(['v1']);

        const v1 = (await t.get(crds('v1', 'widgets.beta.example.com'))).body;
        expect(v1.apiVersion).to.equal(`${AX}/v1`);
        expect(v1.metadata.uid).to.equal(created.body.metadata.uid);
        expect(v1.spec).to.deep.equal({
          group: GROUP,
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: [{
            name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources,
            additionalPrinterColumns: [{ name: 'Size', type: 'string', description: 'the size', priority: 0, jsonPath: '.spec.size' }],
          }],
          conversion: { strategy: 'None' },
        });

        const back = (await t.get(crds('v1beta1', 'widgets.beta.example.com'))).body;
        expect(back.spec).to.deep.equal(created.body.spec);
      });

      it('a CRD created at v1beta1 serves its custom resources, with /status, /scale and its printer column', async () => {
        const base = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
        await eventually(async () => (await t.get(base)).status === 200);
        const cr = await t.post(base, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2, size: 'L', extra: 'pruned' } });
        expect(cr.status, cr.text).to.equal(201);
        expect(cr.body.spec).to.deep.equal({ replicas: 2, size: 'L' });
        const status = await t.put(`${base}/w/status`, { ...cr.body, status: { replicas: 2, selector: 'app=w' } });
        expect(status.status, status.text).to.equal(200);
        const scale = (await t.get(`${base}/w/scale`)).body;
        expect(scale).to.deep.include({ kind: 'Scale', spec: { replicas: 2 } });
        expect(scale.status).to.deep.equal({ replicas: 2, selector: 'app=w' });
        const table = await t.get(`${base}/w`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
        // A CRD's own columns replace the Age column Kubernetes adds to a CRD without any.
        expect(table.body.columnDefinitions.map((c: Obj) => c.name)).to.deep.equal(['Name', 'Size']);
        expect(table.body.rows[0].cells.slice(0, 2)).to.deep.equal(['w', 'L']);
        expect((await t.post(base, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: { replicas: -1 } })).status).to.equal(422);
      });

      it('preserveUnknownFields defaults to true at v1beta1: no schema needed, custom resources kept unpruned', async () => {
        const created = await t.post(crds('v1beta1'), crd('v1beta1', 'gadgets', { version: 'v1' }));
        expect(created.status, created.text).to.equal(201);
        expect(created.body.spec).to.deep.include({ preserveUnknownFields: true, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] });
        expect((await t.get(crds('v1', 'gadgets.beta.example.com'))).body.spec.preserveUnknownFields).to.equal(true);
        const base = `/apis/${GROUP}/v1/namespaces/${NS}/gadgets`;
        await eventually(async () => (await t.get(base)).status === 200);
        const cr = await t.post(base, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { anything: { nested: [1, 'two'] } }, top: true });
        expect(cr.status, cr.text).to.equal(201);
        const read = (await t.get(`${base}/g`)).body;
        expect(read.spec).to.deep.equal({ anything: { nested: [1, 'two'] } });
        expect(read.top).to.equal(true);
      });

      it('a non-structural schema is accepted at v1beta1 with preserveUnknownFields and still validates custom resources', async () => {
        const nonStructural = { properties: { spec: { properties: { replicas: { type: 'integer', minimum: 1 } } } } };
        const created = await t.post(crds('v1beta1'), crd('v1beta1', 'gizmos', { version: 'v1', validation: { openAPIV3Schema: nonStructural } }));
        expect(created.status, created.text).to.equal(201);
        // The same object at v1 is refused: v1 needs structural schemas.
        const v1 = crd('v1', 'doodads', { scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: nonStructural } }] });
        expect((await t.post(crds('v1'), v1)).status).to.equal(422);
        const base = `/apis/${GROUP}/v1/namespaces/${NS}/gizmos`;
        await eventually(async () => (await t.get(base)).status === 200);
        const ok = await t.post(base, { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'ok' }, spec: { replicas: 3, other: 'kept' } });
        expect(ok.status, ok.text).to.equal(201);
        expect(ok.body.spec).to.deep.equal({ replicas: 3, other: 'kept' });
        const bad = await t.post(base, { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'bad' }, spec: { replicas: 0 } });
        expect(bad.status, bad.text).to.equal(422);
        // The CRD's controllers write its status through v1 (the stored spec is not re-checked as v1's).
        const established = await eventually(async () => {
          const c = (await t.get(crds('v1beta1', 'gizmos.beta.example.com'))).body;
          return (c.status.conditions ?? []).some((x: Obj) => x.type === 'Established' && x.status === 'True') && c;
        });
        expect(established.spec.validation.openAPIV3Schema).to.deep.equal(nonStructural);
      });

      it('NonStructuralSchema: True with the violations for a CRD that preserves unknown fields or is not structural, absent otherwise', async () => {
        const condition = await eventually(async () => {
          const c = (await t.get(crds('v1beta1', 'gizmos.beta.example.com'))).body;
          return (c.status.conditions ?? []).find((x: Obj) => x.type === 'NonStructuralSchema');
        });
        expect(condition).to.include({ status: 'True', reason: 'Violations' });
        expect(condition.message).to.match(/^\[spec\.preserveUnknownFields: Invalid value: true: must be false, /);
        expect(condition.message).to.contain('spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root');
        const gadgets = await eventually(async () => {
          const c = (await t.get(crds('v1', 'gadgets.beta.example.com'))).body;
          return (c.status.conditions ?? []).find((x: Obj) => x.type === 'NonStructuralSchema');
        });
        expect(gadgets).to.include({ status: 'True', reason: 'Violations', message: 'spec.preserveUnknownFields: Invalid value: true: must be false' });
        const widgets = (await t.get(crds('v1beta1', 'widgets.beta.example.com'))).body;
        expect(widgets.status.conditions.map((c: Obj) => c.type)).to.not.include('NonStructuralSchema');
      });

      it('the conversion webhook: v1beta1 webhookClientConfig and conversionReviewVersions (defaulted) are v1 conversion.webhook', async () => {
        const versions = [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } },
          { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { ...schema, description: 'v2' } } },
        ];
        const conversion = { strategy: 'Webhook', webhookClientConfig: { service: { namespace: NS, name: 'converter', path: '/convert' }, caBundle: Buffer.from('not a real CA').toString('base64') } };
        const created = await t.post(crds('v1beta1'), crd('v1beta1', 'sprockets', { versions, conversion, preserveUnknownFields: false }));
        expect(created.status, created.text).to.equal(201);
        const expectedConversion = { ...conversion, webhookClientConfig: { ...conversion.webhookClientConfig, service: { ...conversion.webhookClientConfig.service, port: 443 } }, conversionReviewVersions: ['v1beta1'] };
        expect(created.body.spec.conversion).to.deep.equal(expectedConversion);
        expect(created.body.spec.version).to.equal('v1');
        expect(created.body.spec.versions).to.deep.equal(versions);
        const v1 = (await t.get(crds('v1', 'sprockets.beta.example.com'))).body;
        expect(v1.spec.conversion).to.deep.equal({
          strategy: 'Webhook',
          webhook: { clientConfig: expectedConversion.webhookClientConfig, conversionReviewVersions: ['v1beta1'] },
        });
        expect(v1.spec.versions).to.deep.equal(versions);
        expect((await t.get(crds('v1beta1', 'sprockets.beta.example.com'))).body.spec).to.deep.equal(created.body.spec);
      });

      it('created at v1, read and updated at v1beta1: per-version fields lifted only when identical, nothing lost at v1', async () => {
        const versions = [
          {
            name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources,
            additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }], selectableFields: [{ jsonPath: '.spec.size' }],
          },
          {
            name: 'v2', served: true, storage: false, deprecated: true, deprecationWarning: 'use v1', schema: { openAPIV3Schema: { ...schema, description: 'v2' } }, subresources,
            additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
          },
        ];
        const body = crd('v1', 'cogs', { scope: 'Cluster', versions });
        const created = await t.post(crds('v1'), body);
        expect(created.status, created.text).to.equal(201);
        // Read once the CRD's controllers are done with its status, so the update does not race them.
        const beta = await eventually(async () => {
          const c = (await t.get(crds('v1beta1', 'cogs.beta.example.com'))).body;
          return (c.status.conditions ?? []).some((x: Obj) => x.type === 'Established' && x.status === 'True') && c;
        });
        expect(beta.apiVersion).to.equal(`${AX}/v1beta1`);
        expect(beta.spec).to.deep.equal({
          group: GROUP, version: 'v1',
          names: { plural: 'cogs', singular: 'cog', kind: 'Cog', listKind: 'CogList' },
          scope: 'Cluster',
          subresources,
          versions: [
            {
              name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema },
              additionalPrinterColumns: [{ name: 'Size', type: 'string', JSONPath: '.spec.size' }], selectableFields: [{ jsonPath: '.spec.size' }],
            },
            { name: 'v2', served: true, storage: false, deprecated: true, deprecationWarning: 'use v1', schema: { openAPIV3Schema: { ...schema, description: 'v2' } }, additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', JSONPath: '.spec.replicas' }] },
          ],
          conversion: { strategy: 'None' },
          preserveUnknownFields: false,
        });
        beta.metadata.labels = { touched: 'at-v1beta1' };
        const put = await t.put(crds('v1beta1', 'cogs.beta.example.com'), beta);
        expect(put.status, put.text).to.equal(200);
        expect(put.body.metadata.generation, 'the round trip is no spec change').to.equal(created.body.metadata.generation);
        const v1 = (await t.get(crds('v1', 'cogs.beta.example.com'))).body;
        expect(v1.metadata.labels).to.deep.equal({ touched: 'at-v1beta1' });
        expect(v1.spec).to.deep.equal(created.body.spec);
      });

      it('lists and watches at v1beta1, converting objects written at v1', async () => {
        const list = await t.get(crds('v1beta1'));
        expect(list.status, list.text).to.equal(200);
        expect(list.body).to.include({ apiVersion: `${AX}/v1beta1`, kind: 'CustomResourceDefinitionList' });
        const cogs = list.body.items.find((i: Obj) => i.metadata.name === 'cogs.beta.example.com');
        expect(cogs.apiVersion).to.equal(`${AX}/v1beta1`);
        expect(cogs.spec.version).to.equal('v1');
        const rv = list.body.metadata.resourceVersion;
        const watching = t.get(`${crds('v1beta1')}?watch=true&resourceVersion=${rv}&timeoutSeconds=2`);
        const v1 = crd('v1', 'bolts', { scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] });
        expect((await t.post(crds('v1'), v1)).status).to.equal(201);
        const events = (await watching).text.trim().split('\n').map((l) => JSON.parse(l));
        const added = events.find((e: Obj) => e.type === 'ADDED' && e.object.metadata.name === 'bolts.beta.example.com');
        expect(added.object.apiVersion).to.equal(`${AX}/v1beta1`);
        expect(added.object.spec).to.deep.include({ version: 'v1', validation: { openAPIV3Schema: schema }, versions: [{ name: 'v1', served: true, storage: true }] });
      });

      it('refuses bad v1beta1 input with Kubernetes\' messages and stores nothing', async () => {
        const refused = async (plural: string, spec: Obj, message: string) => {
          const res = await t.post(crds('v1beta1'), crd('v1beta1', plural, spec));
          expect(res.status, res.text).to.equal(422);
          expect(res.body).to.include({ kind: 'Status', reason: 'Invalid' });
          expect(res.body.message).to.contain(message);
          expect((await t.get(crds('v1', `${plural}.${GROUP}`))).status).to.equal(404);
        };
        await refused('defaulted', { version: 'v1', preserveUnknownFields: false, validation: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'string', default: 'x' } } } } },
          'spec.validation.openAPIV3Schema.properties[spec].default: Forbidden: must not be set (cannot set default values in apiextensions.k8s.io/v1beta1 CRDs, must use apiextensions.k8s.io/v1)');
        await refused('both', { validation: { openAPIV3Schema: schema }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }, { name: 'v2', served: true, storage: false }] },
          'spec.validation: Forbidden: top-level and per-version schemas are mutually exclusive');
        await refused('identical', { versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
          'per-version schemas may not all be set to identical values (top-level validation should be used instead)');
        await refused('mismatched', { version: 'v2', versions: [{ name: 'v1', served: true, storage: true }] },
          'spec.version: Invalid value: "v2": must match the first version in spec.versions');
        await refused('pruned', { version: 'v1', preserveUnknownFields: false },
          'spec.versions[0].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned');
        await refused('structural', { version: 'v1', preserveUnknownFields: false, validation: { openAPIV3Schema: { properties: { spec: { type: 'object' } } } } },
          'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root');
      });
    });

    describe('apiregistration.k8s.io/v1beta1 APIService', () => {
      const svc = (version: string, name: string, spec: Obj): Obj => ({ apiVersion: `${AR}/${version}`, kind: 'APIService', metadata: { name }, spec });
      const spec = {
        service: { namespace: NS, name: 'metrics', port: 8443 }, group: 'metrics.example.com', version: 'v1beta1',
        caBundle: Buffer.from('a CA bundle').toString('base64'), groupPriorityMinimum: 100, versionPriority: 15,
      };

      it('created at v1beta1 (warned), read at v1 and back unchanged, its service port defaulted to 443', async () => {
        const created = await t.post(apiServices('v1beta1'), svc('v1beta1', 'v1beta1.metrics.example.com', spec));
        expect(created.status, created.text).to.equal(201);
        expect(String(created.headers.warning)).to.contain(warning(`${AR}/v1beta1`, 'APIService', 19, `${AR}/v1`));
        expect(created.body.apiVersion).to.equal(`${AR}/v1beta1`);
        expect(created.body.spec).to.deep.equal(spec);
        const v1 = (await t.get(apiServices('v1', 'v1beta1.metrics.example.com'))).body;
        expect(v1.apiVersion).to.equal(`${AR}/v1`);
        expect(v1.spec).to.deep.equal(spec);
        expect((await t.get(apiServices('v1beta1', 'v1beta1.metrics.example.com'))).body.spec).to.deep.equal(spec);
        const { port: _port, ...noPort } = spec.service;
        const defaulted = await t.post(apiServices('v1beta1'), svc('v1beta1', 'v2.metrics.example.com', { ...spec, version: 'v2', service: noPort }));
        expect(defaulted.status, defaulted.text).to.equal(201);
        expect(defaulted.body.spec.service.port).to.equal(443);
      });

      it('the availability controller handles an APIService written at v1beta1 (its service does not exist)', async () => {
        const status = await eventually(async () => {
          const s = (await t.get(apiServices('v1beta1', 'v1beta1.metrics.example.com') + '/status')).body;
          const c = (s.status?.conditions ?? []).find((x: Obj) => x.type === 'Available');
          return c?.reason === 'ServiceNotFound' && s;
        });
        expect(status.apiVersion).to.equal(`${AR}/v1beta1`);
        expect(status.status.conditions[0]).to.include({ type: 'Available', status: 'False' });
      });

      it('created at v1, updated at v1beta1: nothing lost at v1', async () => {
        const created = await t.post(apiServices('v1'), svc('v1', 'v1.local.example.com', { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 5 }));
        expect(created.status, created.text).to.equal(201);
        const beta = (await t.get(apiServices('v1beta1', 'v1.local.example.com'))).body;
        expect(specAndStatus(beta)).to.deep.equal(specAndStatus(created.body));
        beta.spec.versionPriority = 6;
        const put = await t.put(apiServices('v1beta1', 'v1.local.example.com'), beta);
        expect(put.status, put.text).to.equal(200);
        const v1 = (await t.get(apiServices('v1', 'v1.local.example.com'))).body;
        expect(v1.spec).to.deep.equal({ ...created.body.spec, versionPriority: 6 });
        expect(v1.status).to.deep.equal(created.body.status);
      });

      it('lists and watches at v1beta1; bad input is a 422 Status', async () => {
        const list = await t.get(apiServices('v1beta1'));
        expect(list.body).to.include({ apiVersion: `${AR}/v1beta1`, kind: 'APIServiceList' });
        expect(list.body.items.every((i: Obj) => i.apiVersion === `${AR}/v1beta1`)).to.equal(true);
        const watching = t.get(`${apiServices('v1beta1')}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}&timeoutSeconds=2`);
        expect((await t.post(apiServices('v1'), svc('v1', 'v1.watched.example.com', { group: 'watched.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 1 }))).status).to.equal(201);
        const events = (await watching).text.trim().split('\n').map((l) => JSON.parse(l));
        const added = events.find((e: Obj) => e.type === 'ADDED' && e.object.metadata.name === 'v1.watched.example.com');
        expect(added.object.apiVersion).to.equal(`${AR}/v1beta1`);
        const bad = await t.post(apiServices('v1beta1'), svc('v1beta1', 'v1.misnamed.example.com', { group: 'other.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 1 }));
        expect(bad.status, bad.text).to.equal(422);
        expect(bad.body.message).to.contain('metadata.name');
        expect((await t.get(apiServices('v1', 'v1.misnamed.example.com'))).status).to.equal(404);
      });
    });

    describe('admissionregistration.k8s.io/v1beta1 webhook configurations', () => {
      const resources = [['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'], ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration']];
      const webhook = { name: 'check.example.com', clientConfig: { url: 'https://hooks.example.com/check' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };

      for (const [resource, kind] of resources) {
        const mutating = kind.startsWith('Mutating');
        it(`${kind}: created at v1beta1 with its defaults (warned), the same at v1 and back`, async () => {
          const created = await t.post(hooks('v1beta1', resource), { apiVersion: `${ADM}/v1beta1`, kind, metadata: { name: 'beta' }, webhooks: [webhook] });
          expect(created.status, created.text).to.equal(201);
          expect(String(created.headers.warning)).to.contain(warning(`${ADM}/v1beta1`, kind, 16, `${ADM}/v1`));
          const expected = {
            ...webhook, rules: [{ ...webhook.rules[0], scope: '*' }],
            failurePolicy: 'Ignore', matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {}, sideEffects: 'Unknown',
            timeoutSeconds: 30, admissionReviewVersions: ['v1beta1'], ...(mutating ? { reinvocationPolicy: 'Never' } : {}),
          };
          expect(created.body.webhooks).to.deep.equal([expected]);
          const v1 = (await t.get(hooks('v1', resource, 'beta'))).body;
          expect(v1.apiVersion).to.equal(`${ADM}/v1`);
          expect(v1.webhooks).to.deep.equal([expected]);
          expect((await t.get(hooks('v1beta1', resource, 'beta'))).body.webhooks).to.deep.equal([expected]);
        });

        it(`${kind}: created at v1, updated at v1beta1, nothing lost at v1; watched and listed at v1beta1; bad input refused`, async () => {
          const list = await t.get(hooks('v1beta1', resource));
          expect(list.body.kind).to.equal(`${kind}List`);
          const watching = t.get(`${hooks('v1beta1', resource)}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}&timeoutSeconds=2`);
          const v1Hook = { ...webhook, sideEffects: 'None', admissionReviewVersions: ['v1'] };
          const created = await t.post(hooks('v1', resource), { apiVersion: `${ADM}/v1`, kind, metadata: { name: 'ga' }, webhooks: [v1Hook] });
          expect(created.status, created.text).to.equal(201);
          const events = (await watching).text.trim().split('\n').map((l) => JSON.parse(l));
          const added = events.find((e: Obj) => e.type === 'ADDED' && e.object.metadata.name === 'ga');
          expect(added.object.apiVersion).to.equal(`${ADM}/v1beta1`);
          const beta = (await t.get(hooks('v1beta1', resource, 'ga'))).body;
          expect(beta.webhooks).to.deep.equal(created.body.webhooks);
          beta.webhooks[0].timeoutSeconds = 5;
          const put = await t.put(hooks('v1beta1', resource, 'ga'), beta);
          expect(put.status, put.text).to.equal(200);
          const v1 = (await t.get(hooks('v1', resource, 'ga'))).body;
          expect(v1.webhooks).to.deep.equal([{ ...created.body.webhooks[0], timeoutSeconds: 5 }]);
          const bad = await t.post(hooks('v1beta1', resource), { apiVersion: `${ADM}/v1beta1`, kind, metadata: { name: 'bad' }, webhooks: [{ ...webhook, failurePolicy: 'Sometimes' }] });
          expect(bad.status, bad.text).to.equal(422);
          expect(bad.body.message).to.contain('webhooks[0].failurePolicy: Unsupported value: "Sometimes"');
          expect((await t.get(hooks('v1', resource, 'bad'))).status).to.equal(404);
        });
      }
    });
  });
});
