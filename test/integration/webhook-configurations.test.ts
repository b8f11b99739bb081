/**
 * The webhook configuration kinds over HTTPS against a real etcd: MutatingWebhookConfiguration
 * and ValidatingWebhookConfiguration at admissionregistration v1 and v1beta1, one resource
 * stored at v1 under `<prefix>/<resource>/<name>`: every verb at both versions (create, get,
 * list, PUT, merge / strategic merge / JSON patch, apply, dry run, delete, deletecollection),
 * each version's defaults, an object written through one version read through the other, watches
 * through both, discovery, kube-apiserver's validation messages with nothing stored (and the
 * relaxations on update), the Table columns kubectl prints and protobuf bodies.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, WITHOUT_NAMESPACE_DEFAULTS, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { PROTOBUF_PREFIX, decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

type Obj = Record<string, any>;
type Version = 'v1' | 'v1beta1';
type Kind = 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
const KINDS: Kind[] = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
const VERSIONS: Version[] = ['v1', 'v1beta1'];
const K8S_PB = 'application/vnd.kubernetes.protobuf';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';
const plural = (kind: Kind) => `${kind.toLowerCase()}s`;
const causes = (res: HttpResponse): Obj[] => res.body?.details?.causes ?? [];

function expectCode(res: HttpResponse, code: number): void {
  expect(res.status, res.text).to.equal(code);
}

const RULE = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };

/** A webhook valid at both versions (v1 needs sideEffects and admissionReviewVersions). */
const hook = (name: string, extra: Obj = {}): Obj => ({
  name, clientConfig: { url: 'https://hooks.example.com/admit' }, rules: [RULE], sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
});

describe('webhook configuration kinds', function () {
  this.timeout(60_000);
  let t: TestServer;
  let group: string;
  let seq = 0;
  const name = (prefix: string) => `${prefix}-${++seq}`;
  const av = (v: Version) => `${group}/${v}`;
  const path = (v: Version, kind: Kind, n = '') => `/apis/${group}/${v}/${plural(kind)}${n ? `/${n}` : ''}`;
  const config = (v: Version, kind: Kind, n: string, webhooks: Obj[]): Obj => ({ apiVersion: av(v), kind, metadata: { name: n }, webhooks });
  const patch = (p: string, contentType: string, body: unknown) =>
    t.request('PATCH', p, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': contentType } });
  const stored = async (kind: Kind, n: string) => (await t.server.storage.get(`/registry/${plural(kind)}/${n}`)).kv;

  async function created(v: Version, kind: Kind, obj: Obj): Promise<Obj> {
    const res = await t.post(path(v, kind), obj);
    expectCode(res, 201);
    return res.body;
  }

  before(async () => {
    // v1beta1 is off by default, as in kube-apiserver 1.32: switched on to test it.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, '--runtime-config=admissionregistration.orch.io/v1beta1=true']);
    group = t.server.naming.group('admissionregistration');
  });
  after(async () => { await t?.stop(); });

  describe('discovery', () => {
    it('lists v1 (preferred) and v1beta1, each with both cluster-scoped resources and every verb', async () => {
      const g = await t.get(`/apis/${group}`);
      expectCode(g, 200);
      expect(g.body.versions.map((v: Obj) => v.version)).to.deep.equal(['v1', 'v1beta1']);
      expect(g.body.preferredVersion).to.deep.equal({ groupVersion: av('v1'), version: 'v1' });
      for (const v of VERSIONS) {
        const list = await t.get(`/apis/${group}/${v}`);
        expect(list.body.resources.map((r: Obj) => [r.name, r.kind, r.namespaced])).to.deep.equal([
          ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false],
          // v1 also serves the admission policy kinds (test/integration/validating-admission-policies*.test.ts).
          ...(v === 'v1' ? [
            ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false],
            ['validatingadmissionpolicies/status', 'ValidatingAdmissionPolicy', false],
            ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false],
          ] : []),
          ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false],
        ]);
        for (const r of list.body.resources.filter((x: Obj) => !x.name.includes('/'))) expect(r.verbs).to.have.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
      }
    });

    it('aggregated discovery names both versions, v1 first', async () => {
      const res = await t.get('/apis', { headers: { accept: `application/json;g=${t.server.naming.discoveryGroup};v=v2;as=APIGroupDiscoveryList` } });
      const item = res.body.items.find((i: Obj) => i.metadata.name === group);
      expect(item.versions.map((v: Obj) => v.version)).to.deep.equal(['v1', 'v1beta1']);
      expect(item.versions[1].resources[0].responseKind).to.deep.equal({ group, version: 'v1beta1', kind: 'MutatingWebhookConfiguration' });
    });

    it('serves an OpenAPI v3 document for each version', async () => {
      for (const v of VERSIONS) {
        const doc = await t.get(`/openapi/v3/apis/${group}/${v}`);
        expectCode(doc, 200);
        expect(doc.body.components.schemas).to.have.property(`io.k8s.api.admissionregistration.${v}.MutatingWebhookConfiguration`);
        expect(doc.body.paths).to.have.property(`/apis/${group}/${v}/validatingwebhookconfigurations/{name}`);
      }
    });
  });

  describe('defaults', () => {
    it('v1: Fail, Equivalent, 10 s, scope *, Never, empty selectors, port 443; sideEffects and review versions as given', async () => {
      const n = name('defaults-v1');
      const made = await created('v1', 'MutatingWebhookConfiguration', config('v1', 'MutatingWebhookConfiguration', n, [
        hook('a.example.com', { clientConfig: { service: { namespace: 'ns', name: 'svc' } } }),
      ]));
      expect(made.webhooks).to.deep.equal([{
        name: 'a.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } }, rules: [{ ...RULE, scope: '*' }],
        sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', matchPolicy: 'Equivalent',
        namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never',
      }]);
      expect(made.metadata.generation).to.equal(1);
    });

    it('v1beta1: Ignore, Exact, 30 s, sideEffects Unknown, admissionReviewVersions [v1beta1]; no reinvocationPolicy for validating', async () => {
      const n = name('defaults-v1beta1');
      const made = await created('v1beta1', 'ValidatingWebhookConfiguration', config('v1beta1', 'ValidatingWebhookConfiguration', n, [
        { name: 'b.example.com', clientConfig: { url: 'https://hooks.example.com' }, rules: [RULE] },
      ]));
      expect(made.apiVersion).to.equal(av('v1beta1'));
      expect(made.webhooks).to.deep.equal([{
        name: 'b.example.com', clientConfig: { url: 'https://hooks.example.com' }, rules: [{ ...RULE, scope: '*' }],
        failurePolicy: 'Ignore', matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {}, sideEffects: 'Unknown',
        timeoutSeconds: 30, admissionReviewVersions: ['v1beta1'],
      }]);
    });
  });

  describe('one resource at two versions', () => {
    it('an object created at v1beta1 is stored at v1 under <prefix>/<resource>/<name> and reads at either version', async () => {
      const n = name('both');
      const made = await created('v1beta1', 'MutatingWebhookConfiguration', config('v1beta1', 'MutatingWebhookConfiguration', n, [{ name: 'c.example.com', clientConfig: { url: 'https://h.example.com' } }]));
      const kv = await stored('MutatingWebhookConfiguration', n);
      expect(JSON.parse(kv!.value.toString()).apiVersion).to.equal(av('v1'));
      const v1 = await t.get(path('v1', 'MutatingWebhookConfiguration', n));
      expect(v1.body.apiVersion).to.equal(av('v1'));
      expect(v1.body.webhooks).to.deep.equal(made.webhooks);
      expect(v1.body.metadata.resourceVersion).to.equal(made.metadata.resourceVersion);
      // Changed through v1 (v1's defaults do not touch what is set), read back through v1beta1.
      const put = await t.put(path('v1', 'MutatingWebhookConfiguration', n), { ...v1.body, webhooks: [{ ...v1.body.webhooks[0], timeoutSeconds: 3 }] });
      expectCode(put, 200);
      const back = await t.get(path('v1beta1', 'MutatingWebhookConfiguration', n));
      expect(back.body).to.include({ apiVersion: av('v1beta1'), kind: 'MutatingWebhookConfiguration' });
      expect(back.body.webhooks[0]).to.include({ timeoutSeconds: 3, sideEffects: 'Unknown', failurePolicy: 'Ignore' });
      expect(back.body.metadata.generation).to.equal(2);
      const list = await t.get(`${path('v1beta1', 'MutatingWebhookConfiguration')}?resourceVersion=0`);
      expect(list.body).to.include({ kind: 'MutatingWebhookConfigurationList', apiVersion: av('v1beta1') });
      expect(list.body.items.find((o: Obj) => o.metadata.name === n).apiVersion).to.equal(av('v1beta1'));
    });

    it('a watch through each version sees the same changes in its own version', async () => {
      const n = name('watched');
      const kind = 'ValidatingWebhookConfiguration';
      const rv = (await t.get(path('v1', kind))).body.metadata.resourceVersion;
      const watches = VERSIONS.map((v) => openWatch(adminTarget(t.server), `${path(v, kind)}?watch=true&resourceVersion=${rv}`));
      try {
        await created('v1beta1', kind, config('v1beta1', kind, n, [hook('w.example.com')]));
        expectCode(await patch(path('v1', kind, n), MERGE, { metadata: { labels: { a: 'b' } } }), 200);
        expectCode(await t.del(path('v1', kind, n)), 200);
        for (const [i, v] of VERSIONS.entries()) {
          for (const type of ['ADDED', 'MODIFIED', 'DELETED']) {
            const ev = await watches[i].waitFor((e) => e.type === type && e.object.metadata?.name === n);
            expect(ev.object.apiVersion, `${v} ${type}`).to.equal(av(v));
          }
        }
      } finally {
        for (const w of watches) w.close();
      }
    });
  });

  for (const v of VERSIONS) {
    for (const kind of KINDS) {
      describe(`${kind} at ${v}`, () => {
        it('create, get, list, PUT, patches, apply, delete', async () => {
          const n = name(`verbs-${v}`);
          const made = await created(v, kind, config(v, kind, n, [hook('one.example.com'), hook('two.example.com')]));
          expect(made).to.include({ apiVersion: av(v), kind });
          const got = await t.get(path(v, kind, n));
          expect(got.body).to.deep.equal(made);
          const list = await t.get(path(v, kind));
          expect(list.body.items.map((o: Obj) => o.metadata.name)).to.include(n);

          // A real change (v1beta1's default failurePolicy is already Ignore, and a PUT that
          // changes nothing writes nothing, so the next PUT would not be stale).
          const put = await t.put(path(v, kind, n), { ...got.body, webhooks: [{ ...got.body.webhooks[0], timeoutSeconds: 7 }, got.body.webhooks[1]] });
          expectCode(put, 200);
          expect(put.body.webhooks[0].timeoutSeconds).to.equal(7);
          expect(put.body.metadata.resourceVersion).to.not.equal(got.body.metadata.resourceVersion);
          const stale = await t.put(path(v, kind, n), got.body);
          expectCode(stale, 409);

          // Strategic merge: webhooks merge by name, rules are replaced whole.
          const rules = [{ operations: ['DELETE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: 'Namespaced' }];
          const smp = await patch(path(v, kind, n), SMP, { webhooks: [{ name: 'two.example.com', rules }] });
          expectCode(smp, 200);
          expect(smp.body.webhooks.map((h: Obj) => h.name)).to.deep.equal(['one.example.com', 'two.example.com']);
          expect(smp.body.webhooks[1].rules).to.deep.equal(rules);
          expect(smp.body.webhooks[0].rules).to.deep.equal([{ ...RULE, scope: '*' }]);

          const merge = await patch(path(v, kind, n), MERGE, { metadata: { labels: { team: 'x' } } });
          expectCode(merge, 200);
          expect(merge.body.metadata.labels).to.deep.equal({ team: 'x' });
          const jp = await patch(path(v, kind, n), JSON_PATCH, [{ op: 'replace', path: '/webhooks/0/timeoutSeconds', value: 7 }]);
          expectCode(jp, 200);
          expect(jp.body.webhooks[0].timeoutSeconds).to.equal(7);

          const applied = await t.request('PATCH', `${path(v, kind, n)}?fieldManager=tester&force=true`, {
            raw: JSON.stringify({ apiVersion: av(v), kind, metadata: { name: n }, webhooks: [{ name: 'one.example.com', timeoutSeconds: 9 }] }),
            headers: { 'content-type': APPLY },
          });
          expectCode(applied, 200);
          expect(applied.body.apiVersion).to.equal(av(v));
          expect(applied.body.webhooks.find((h: Obj) => h.name === 'one.example.com').timeoutSeconds).to.equal(9);
          expect(applied.body.metadata.managedFields.find((m: Obj) => m.manager === 'tester').apiVersion).to.equal(av(v));

          const del = await t.del(path(v, kind, n));
          expectCode(del, 200);
          expect(del.body).to.include({ kind: 'Status', status: 'Success' });
          expectCode(await t.get(path(v, kind, n)), 404);
        });

        it('apply creates; dry run stores nothing', async () => {
          const n = name(`apply-${v}`);
          const applied = await t.request('PATCH', `${path(v, kind, n)}?fieldManager=tester`, {
            raw: JSON.stringify(config(v, kind, n, [hook('a.example.com')])), headers: { 'content-type': APPLY },
          });
          expectCode(applied, 201);
          const dry = await t.post(`${path(v, kind)}?dryRun=All`, config(v, kind, name('dry'), [hook('d.example.com')]));
          expectCode(dry, 201);
          expect(dry.body.webhooks[0].timeoutSeconds).to.equal(v === 'v1' ? 10 : 30);
          expect(await stored(kind, dry.body.metadata.name)).to.equal(undefined);
          const dryDelete = await t.del(`${path(v, kind, n)}?dryRun=All`);
          expectCode(dryDelete, 200);
          expectCode(await t.get(path(v, kind, n)), 200);
        });

        it('deletecollection removes what a label selector picks', async () => {
          const keep = name('keep');
          const drop = name('drop');
          await created(v, kind, { ...config(v, kind, keep, []), metadata: { name: keep, labels: { set: `k-${v}` } } });
          await created(v, kind, { ...config(v, kind, drop, []), metadata: { name: drop, labels: { set: `d-${v}` } } });
          expectCode(await t.del(`${path(v, kind)}?labelSelector=set%3Dd-${v}`), 200);
          expectCode(await t.get(path(v, kind, drop)), 404);
          expectCode(await t.get(path(v, kind, keep)), 200);
        });

        it('Table: NAME, WEBHOOKS, AGE', async () => {
          const n = name('table');
          await created(v, kind, config(v, kind, n, [hook('a.example.com'), hook('b.example.com')]));
          const res = await t.get(path(v, kind), { headers: { accept: `application/json;as=Table;v=v1;g=${t.server.naming.metaGroup}` } });
          expectCode(res, 200);
          expect(res.body.columnDefinitions.map((c: Obj) => [c.name, c.type])).to.deep.equal([['Name', 'string'], ['Webhooks', 'integer'], ['Age', 'string']]);
          const row = res.body.rows.find((r: Obj) => r.cells[0] === n);
          expect(row.cells[1]).to.equal(2);
          expect(row.cells[2]).to.match(/^\d+s$/);
        });

        it('protobuf: created from a protobuf body and read back equal to the JSON', async () => {
          const n = name('pb');
          const obj = config(v, kind, n, [hook('p.example.com', {
            clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/admit', port: 8443 }, caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') },
            namespaceSelector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x'] }] },
            objectSelector: { matchExpressions: [{ key: 'e', operator: 'Exists' }] },
          })]);
          const res = await t.request('POST', path(v, kind), { raw: encodeProtobuf(obj), headers: { 'content-type': K8S_PB, accept: K8S_PB } });
          expectCode(res, 201);
          expect(res.raw!.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
          const made = decodeProtobuf(res.raw!) as Obj;
          expect(made.apiVersion).to.equal(av(v));
          expect((await t.get(path(v, kind, n))).body).to.deep.equal(made);
          const list = await t.get(path(v, kind), { headers: { accept: K8S_PB } });
          const items = (decodeProtobuf(list.raw!) as Obj).items;
          expect(items.find((o: Obj) => o.metadata.name === n).webhooks).to.deep.equal(made.webhooks);
        });
      });
    }
  }

  describe('validation (422 with Kubernetes\' field and message; nothing stored)', () => {
    const M: Kind = 'MutatingWebhookConfiguration';
    const cases: Array<[string, Version, Obj[], string, string, string]> = [
      ['name required', 'v1', [hook('')], 'webhooks[0].name', 'FieldValueRequired', 'Required value'],
      ['name with two segments', 'v1', [hook('example.com')], 'webhooks[0].name', 'FieldValueInvalid', 'Invalid value: "example.com": should be a domain with at least three segments separated by dots'],
      ['name not a DNS subdomain', 'v1', [hook('A.example.com')], 'webhooks[0].name', 'FieldValueInvalid',
        "Invalid value: \"A.example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
      ['duplicate names at v1', 'v1', [hook('a.example.com'), hook('a.example.com')], 'webhooks[1].name', 'FieldValueDuplicate', 'Duplicate value: "a.example.com"'],
      ['no operations', 'v1', [hook('a.example.com', { rules: [{ ...RULE, operations: [] }] })], 'webhooks[0].rules[0].operations', 'FieldValueRequired', 'Required value'],
      ['* with other operations', 'v1', [hook('a.example.com', { rules: [{ ...RULE, operations: ['*', 'CREATE'] }] })], 'webhooks[0].rules[0].operations', 'FieldValueInvalid',
        'Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations'],
      ['unknown operation', 'v1', [hook('a.example.com', { rules: [{ ...RULE, operations: ['PATCH'] }] })], 'webhooks[0].rules[0].operations[0]', 'FieldValueNotSupported',
        'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'],
      ['no apiGroups', 'v1', [hook('a.example.com', { rules: [{ ...RULE, apiGroups: [] }] })], 'webhooks[0].rules[0].apiGroups', 'FieldValueRequired', 'Required value'],
      ['* with other apiVersions', 'v1', [hook('a.example.com', { rules: [{ ...RULE, apiVersions: ['*', 'v1'] }] })], 'webhooks[0].rules[0].apiVersions', 'FieldValueInvalid',
        'Invalid value: []string{"*", "v1"}: if \'*\' is present, must not specify other API versions'],
      ['no resources', 'v1', [hook('a.example.com', { rules: [{ ...RULE, resources: [] }] })], 'webhooks[0].rules[0].resources', 'FieldValueRequired', 'Required value'],
      ['*/* with others', 'v1', [hook('a.example.com', { rules: [{ ...RULE, resources: ['*/*', 'pods'] }] })], 'webhooks[0].rules[0].resources', 'FieldValueInvalid',
        'Invalid value: []string{"*/*", "pods"}: if \'*/*\' is present, must not specify other resources'],
      ['x/* then x/y', 'v1', [hook('a.example.com', { rules: [{ ...RULE, resources: ['pods/*', 'pods/status'] }] })], 'webhooks[0].rules[0].resources[1]', 'FieldValueInvalid',
        'Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status'],
      ['* with a plain resource', 'v1', [hook('a.example.com', { rules: [{ ...RULE, resources: ['*', 'pods'] }] })], 'webhooks[0].rules[0].resources', 'FieldValueInvalid',
        'Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources'],
      ['bad scope', 'v1', [hook('a.example.com', { rules: [{ ...RULE, scope: 'Global' }] })], 'webhooks[0].rules[0].scope', 'FieldValueNotSupported',
        'Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"'],
      ['bad failurePolicy', 'v1', [hook('a.example.com', { failurePolicy: 'Maybe' })], 'webhooks[0].failurePolicy', 'FieldValueNotSupported', 'Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
      ['bad matchPolicy', 'v1', [hook('a.example.com', { matchPolicy: 'Loose' })], 'webhooks[0].matchPolicy', 'FieldValueNotSupported', 'Unsupported value: "Loose": supported values: "Equivalent", "Exact"'],
      ['sideEffects missing at v1', 'v1', [hook('a.example.com', { sideEffects: undefined })], 'webhooks[0].sideEffects', 'FieldValueRequired', 'Required value: must specify one of None, NoneOnDryRun'],
      ['sideEffects Unknown at v1', 'v1', [hook('a.example.com', { sideEffects: 'Unknown' })], 'webhooks[0].sideEffects', 'FieldValueNotSupported', 'Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"'],
      ['bad sideEffects at v1beta1', 'v1beta1', [hook('a.example.com', { sideEffects: 'Many' })], 'webhooks[0].sideEffects', 'FieldValueNotSupported',
        'Unsupported value: "Many": supported values: "None", "NoneOnDryRun", "Some", "Unknown"'],
      ['bad reinvocationPolicy', 'v1', [hook('a.example.com', { reinvocationPolicy: 'Always' })], 'webhooks[0].reinvocationPolicy', 'FieldValueNotSupported', 'Unsupported value: "Always": supported values: "IfNeeded", "Never"'],
      ['timeout 31', 'v1', [hook('a.example.com', { timeoutSeconds: 31 })], 'webhooks[0].timeoutSeconds', 'FieldValueInvalid', 'Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
      ['timeout 0', 'v1beta1', [hook('a.example.com', { timeoutSeconds: 0 })], 'webhooks[0].timeoutSeconds', 'FieldValueInvalid', 'Invalid value: 0: the timeout value must be between 1 and 30 seconds'],
      ['admissionReviewVersions missing at v1', 'v1', [hook('a.example.com', { admissionReviewVersions: undefined })], 'webhooks[0].admissionReviewVersions', 'FieldValueRequired', 'Required value: must specify one of v1, v1beta1'],
      ['no supported review version', 'v1', [hook('a.example.com', { admissionReviewVersions: ['v2'] })], 'webhooks[0].admissionReviewVersions', 'FieldValueInvalid',
        'Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'],
      ['duplicate review version', 'v1', [hook('a.example.com', { admissionReviewVersions: ['v1', 'v1'] })], 'webhooks[0].admissionReviewVersions[1]', 'FieldValueInvalid', 'Invalid value: "v1": duplicate version'],
      ['neither url nor service', 'v1', [hook('a.example.com', { clientConfig: {} })], 'webhooks[0].clientConfig', 'FieldValueRequired', 'Required value: exactly one of url or service is required'],
      ['both url and service', 'v1', [hook('a.example.com', { clientConfig: { url: 'https://h.example.com', service: { namespace: 'n', name: 's' } } })], 'webhooks[0].clientConfig', 'FieldValueRequired',
        'Required value: exactly one of url or service is required'],
      ['http url', 'v1', [hook('a.example.com', { clientConfig: { url: 'http://h.example.com/x' } })], 'webhooks[0].clientConfig.url', 'FieldValueInvalid',
        'Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]'],
      ['url with user info', 'v1', [hook('a.example.com', { clientConfig: { url: 'https://user@h.example.com' } })], 'webhooks[0].clientConfig.url', 'FieldValueInvalid',
        'Invalid value: "user": user information is not permitted in the URL'],
      ['url with a fragment', 'v1', [hook('a.example.com', { clientConfig: { url: 'https://h.example.com/#frag' } })], 'webhooks[0].clientConfig.url', 'FieldValueInvalid',
        'Invalid value: "frag": fragments are not permitted in the URL'],
      ['url with a query', 'v1', [hook('a.example.com', { clientConfig: { url: 'https://h.example.com/?a=b' } })], 'webhooks[0].clientConfig.url', 'FieldValueInvalid',
        'Invalid value: "a=b": query parameters are not permitted in the URL'],
      ['service without name', 'v1', [hook('a.example.com', { clientConfig: { service: { namespace: 'n' } } })], 'webhooks[0].clientConfig.service.name', 'FieldValueRequired', 'Required value'],
      ['service path without /', 'v1', [hook('a.example.com', { clientConfig: { service: { namespace: 'n', name: 's', path: 'admit' } } })], 'webhooks[0].clientConfig.service.path', 'FieldValueInvalid',
        'Invalid value: "admit": must start with a \'/\''],
      ['service port 70000', 'v1', [hook('a.example.com', { clientConfig: { service: { namespace: 'n', name: 's', port: 70000 } } })], 'webhooks[0].clientConfig.service.port', 'FieldValueInvalid',
        'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive'],
      ['bad selector operator', 'v1', [hook('a.example.com', { namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Near' }] } })], 'webhooks[0].namespaceSelector.matchExpressions[0].operator', 'FieldValueInvalid',
        'Invalid value: "Near": not a valid selector operator'],
      ['a match condition that is not a bool', 'v1', [hook('a.example.com', { matchConditions: [{ name: 'c', expression: "'x'" }] })], 'webhooks[0].matchConditions[0].expression', 'FieldValueInvalid',
        'Invalid value: "\'x\'": must evaluate to bool'],
    ];
    for (const [what, v, webhooks, field, reason, message] of cases) {
      it(`${v}: ${what}`, async () => {
        const n = name('invalid');
        const res = await t.post(path(v, M), config(v, M, n, webhooks));
        expectCode(res, 422);
        expect(res.body).to.include({ kind: 'Status', reason: 'Invalid', code: 422 });
        expect(causes(res), JSON.stringify(causes(res))).to.deep.include({ reason, message, field });
        expect(await stored(M, n)).to.equal(undefined);
      });
    }

    it('v1beta1 accepts what v1 refuses: repeated names and sideEffects Unknown or Some', async () => {
      await created('v1beta1', M, config('v1beta1', M, name('lenient'), [hook('a.example.com', { sideEffects: 'Some' }), hook('a.example.com', { sideEffects: 'Unknown' })]));
    });

    it('an update through v1 keeps what the stored object already had (side effects, repeated names); new objects may not', async () => {
      const n = name('ratchet');
      await created('v1beta1', M, config('v1beta1', M, n, [hook('a.example.com', { sideEffects: 'Some' }), hook('a.example.com')]));
      const current = (await t.get(path('v1', M, n))).body;
      const put = await t.put(path('v1', M, n), { ...current, webhooks: current.webhooks.map((h: Obj) => ({ ...h, timeoutSeconds: 5 })) });
      expectCode(put, 200);
      const fixed = { ...put.body, webhooks: [{ ...put.body.webhooks[0], sideEffects: 'None', name: 'b.example.com' }] };
      expectCode(await t.put(path('v1', M, n), fixed), 200);
      // Once fixed, v1's checks apply again.
      const again = await t.get(path('v1', M, n));
      const res = await t.put(path('v1', M, n), { ...again.body, webhooks: [{ ...again.body.webhooks[0], sideEffects: 'Some' }] });
      expectCode(res, 422);
      expect(causes(res)).to.deep.include({ reason: 'FieldValueNotSupported', field: 'webhooks[0].sideEffects', message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"' });
    });

    it('a body of the wrong type is 400 and stores nothing', async () => {
      const n = name('badtype');
      const res = await t.post(path('v1', M), config('v1', M, n, [hook('a.example.com', { timeoutSeconds: 'ten' })]));
      expectCode(res, 400);
      expect(await stored(M, n)).to.equal(undefined);
    });
  });
});
