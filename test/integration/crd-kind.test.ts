/**
 * The CustomResourceDefinition kind itself over HTTPS against a real etcd: create with
 * Kubernetes' defaults and status, get/list, the Table kubectl prints, updates (status kept,
 * generation, storedVersions), `/status` (spec kept), Kubernetes' 422s with its field paths
 * (one version: spec.validation / spec.subresources...; several: spec.versions[i]...),
 * immutability, the approval annotation of protected groups, deletion held by the cleanup
 * finalizer, and protobuf bodies.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

type Obj = Record<string, any>;
const GROUP = 'apiextensions.orch.io';
const BASE = `/apis/${GROUP}/v1/customresourcedefinitions`;
const K8S_PB = 'application/vnd.kubernetes.protobuf';
const MERGE = 'application/merge-patch+json';
const FINALIZER = 'customresourcecleanup.apiextensions.orch.io';

const causes = (res: HttpResponse): Array<{ field: string; reason: string; message: string }> => res.body?.details?.causes ?? [];
function expectCause(res: HttpResponse, field: string, message: string): void {
  expect(res.status, res.text).to.equal(422);
  expect(causes(res).map((c) => `${c.field}: ${c.message}`), JSON.stringify(causes(res))).to.include(`${field}: ${message}`);
}

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } };

/** A CronTab-like CRD in `group` with plural `plural`; `extra` is merged into spec. */
function crd(plural: string, group = 'stable.example.com', extra: Obj = {}): Obj {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: `${GROUP}/v1`, kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural, kind, shortNames: [plural.slice(0, 2)] },
      versions: [{ name: 'v1', served: true, storage: true, schema }],
      ...extra,
    },
  };
}

describe('CustomResourceDefinition kind', function () {
  this.timeout(60_000);
  let t: TestServer;
  let seq = 0;
  const plural = () => `widgets${++seq}s`.replace(/\d/g, (d) => 'abcdefghij'[Number(d)]);

  before(async () => { t = await startTestServer(); });
  /** The CRD once the naming and establishing controllers have written its status: later writes do not race them. */
  const settled = (name: string) => eventually(async () => {
    const o = (await t.get(`${BASE}/${name}`)).body;
    const status = (type: string) => (o.status?.conditions ?? []).find((c: Obj) => c.type === type)?.status;
    // Names refused (these CRDs share a short name) or Established: no controller writes after that.
    return (status('NamesAccepted') === 'False' || status('Established') === 'True') && o;
  });
  after(async () => { await t?.stop(); });

  it('creates with Kubernetes defaults and an initial status, and reads it back (get, list, short name in discovery)', async () => {
    const p = plural();
    const res = await t.post(BASE, crd(p));
    expect(res.status, res.text).to.equal(201);
    const obj = res.body;
    expect(obj.spec.names).to.deep.equal({ plural: p, kind: obj.spec.names.kind, shortNames: [p.slice(0, 2)], singular: obj.spec.names.kind.toLowerCase(), listKind: `${obj.spec.names.kind}List` });
    expect(obj.spec.conversion).to.deep.equal({ strategy: 'None' });
    expect(obj.metadata.generation).to.equal(1);
    expect(obj.status).to.deep.equal({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    expect(obj.metadata.finalizers).to.equal(undefined);
    expect((await t.get(`${BASE}/${p}.stable.example.com`)).body.spec.group).to.equal('stable.example.com');
    const list = await t.get(BASE);
    expect(list.body.kind).to.equal('CustomResourceDefinitionList');
    expect(list.body.items.map((i: Obj) => i.metadata.name)).to.include(`${p}.stable.example.com`);
    const discovery = (await t.get(`/apis/${GROUP}/v1`)).body.resources.find((r: Obj) => r.name === 'customresourcedefinitions');
    expect(discovery).to.deep.include({ namespaced: false, kind: 'CustomResourceDefinition', shortNames: ['crd', 'crds'], categories: ['api-extensions'] });
  });

  it('prints the default Table (Name, Created At)', async () => {
    const p = plural();
    await t.post(BASE, crd(p));
    const res = await t.get(`${BASE}/${p}.stable.example.com`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.columnDefinitions.map((c: Obj) => c.name)).to.deep.equal(['Name', 'Created At']);
    expect(res.body.rows[0].cells[0]).to.equal(`${p}.stable.example.com`);
  });

  it('keeps status on updates, bumps generation on spec changes only, records new storage versions', async () => {
    const p = plural();
    await t.post(BASE, crd(p));
    const created = await settled(`${p}.stable.example.com`);
    const same = await t.put(`${BASE}/${p}.stable.example.com`, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { storedVersions: ['zz'] } });
    expect(same.status, same.text).to.equal(200);
    expect(same.body.metadata.generation).to.equal(1);
    expect(same.body.status.storedVersions).to.deep.equal(['v1']);
    const v2 = { name: 'v2', served: true, storage: true, schema };
    const changed = await t.put(`${BASE}/${p}.stable.example.com`, {
      ...same.body, spec: { ...same.body.spec, versions: [{ ...same.body.spec.versions[0], storage: false }, v2] },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.metadata.generation).to.equal(2);
    expect(changed.body.status.storedVersions).to.deep.equal(['v1', 'v2']);
  });

  it('takes only status (and metadata) through /status', async () => {
    const p = plural();
    await t.post(BASE, crd(p));
    const created = await settled(`${p}.stable.example.com`);
    const res = await t.put(`${BASE}/${p}.stable.example.com/status`, {
      ...created, spec: { ...created.spec, scope: 'Cluster' },
      status: { ...created.status, acceptedNames: { plural: p, kind: 'Thing' }, conditions: [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.spec.scope).to.equal('Namespaced');
    expect(res.body.metadata.generation).to.equal(1);
    expect(res.body.status.acceptedNames).to.deep.equal({ plural: p, kind: 'Thing' });
    const bad = await t.request('PATCH', `${BASE}/${p}.stable.example.com/status`, { body: { status: { acceptedNames: { plural: 'Bad_Name', kind: 'Thing' } } }, headers: { 'content-type': MERGE } });
    expectCause(bad, 'status.acceptedNames.plural', 'Invalid value: "Bad_Name": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')');
    // Once Established, scope and kind are fixed.
    const fixed = await t.request('PATCH', `${BASE}/${p}.stable.example.com`, { body: { spec: { scope: 'Cluster' } }, headers: { 'content-type': MERGE } });
    expectCause(fixed, 'spec.scope', 'Invalid value: "Cluster": field is immutable');
  });

  it('refuses bad CRDs with Kubernetes messages and field paths, storing nothing', async () => {
    const p = plural();
    const oneVersion = crd(p, 'stable.example.com', {
      scope: 'Everywhere', names: { plural: p, kind: 'Thing', listKind: 'Thing' },
      versions: [{ name: 'v1', served: true, storage: true, schema, subresources: { scale: { specReplicasPath: '.status.r', statusReplicasPath: 'x' } }, additionalPrinterColumns: [{ name: 'C', type: 'text', jsonPath: '.spec.color' }] }],
    });
    const res = await t.post(BASE, oneVersion);
    expectCause(res, 'spec.scope', 'Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"');
    expectCause(res, 'spec.names.listKind', 'Invalid value: "Thing": kind and listKind may not be the same');
    expectCause(res, 'spec.subresources.scale.specReplicasPath', 'Invalid value: ".status.r": should be a json path under .spec');
    expectCause(res, 'spec.subresources.scale.statusReplicasPath', 'Invalid value: "x": must be a simple json path starting with .');
    expectCause(res, 'spec.additionalPrinterColumns[0].type', 'Invalid value: "text": must be one of boolean,date,integer,number,string');
    expect((await t.get(`${BASE}/${p}.stable.example.com`)).status).to.equal(404);

    const two = crd(p, 'stable.example.com', {
      versions: [
        { name: 'v1', served: true, storage: true, schema, additionalPrinterColumns: [{ name: 'C', type: 'string', jsonPath: '' }] },
        { name: 'v2', served: true, storage: true, schema },
      ],
    });
    const res2 = await t.post(BASE, two);
    expectCause(res2, 'spec.versions[0].additionalPrinterColumns[0].JSONPath', 'Required value');
    expect(causes(res2).map((c) => c.message)).to.satisfy((ms: string[]) => ms.some((m) => m.endsWith('must have exactly one version marked as storage version')));

    const misnamed = await t.post(BASE, { ...crd(p), metadata: { name: `other.stable.example.com` } });
    expectCause(misnamed, 'metadata.name', 'Invalid value: "other.stable.example.com": must be spec.names.plural+"."+spec.group');
    const noSchema = await t.post(BASE, crd(p, 'stable.example.com', { versions: [{ name: 'v1', served: true, storage: true }] }));
    expectCause(noSchema, 'spec.versions[0].schema.openAPIV3Schema', 'Required value: schemas are required');
    const webhook = await t.post(BASE, crd(p, 'stable.example.com', { conversion: { strategy: 'Webhook' } }));
    expectCause(webhook, 'spec.conversion.webhookClientConfig', 'Required value: required when strategy is set to Webhook');
    expectCause(webhook, 'spec.conversion.conversionReviewVersions', 'Required value');
  });

  it('needs the approval annotation in protected groups', async () => {
    const res = await t.post(BASE, crd('things', 'stuff.orch.io'));
    expectCause(res, 'metadata.annotations[api-approved.orch.io]', 'Required value: protected groups must have approval annotation "api-approved.orch.io", see https://github.com/kubernetes/enhancements/pull/1111');
    const approved = crd('things', 'stuff.k8s.io');
    approved.metadata.annotations = { 'api-approved.orch.io': 'https://github.com/kubernetes/kubernetes/pull/78458' };
    expect((await t.post(BASE, approved)).status).to.equal(201);
  });

  it('holds a deleted CRD with the cleanup finalizer and the Terminating condition', async () => {
    const p = plural();
    await t.post(BASE, crd(p));
    await settled(`${p}.stable.example.com`);
    const path = `${BASE}/${p}.stable.example.com`;
    const del = await t.del(path);
    expect(del.status, del.text).to.equal(200);
    expect(del.body.metadata.deletionTimestamp).to.be.a('string');
    expect(del.body.metadata.finalizers).to.deep.equal([FINALIZER]);
    expect(del.body.status.conditions).to.deep.include({
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', lastTransitionTime: del.body.status.conditions.find((c: Obj) => c.type === 'Terminating').lastTransitionTime,
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    // The cleanup controller finds no objects, drops the finalizer through /status, and the CRD goes.
    await eventually(async () => (await t.get(path)).status === 404, 10_000, 20);
  });

  it('takes and answers protobuf', async () => {
    const p = plural();
    const body = crd(p, 'stable.example.com', {
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', required: ['a'], properties: { a: { type: 'integer', default: 3, minimum: 1 }, b: { 'x-kubernetes-int-or-string': true }, l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } } } } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.a', statusReplicasPath: '.status.a' } },
        additionalPrinterColumns: [{ name: 'A', type: 'integer', jsonPath: '.spec.a', priority: 1 }],
      }],
    });
    const res = await t.request('POST', BASE, { raw: encodeProtobuf(body), headers: { 'content-type': K8S_PB, accept: K8S_PB } });
    expect(res.status, res.text).to.equal(201);
    const created = decodeProtobuf(res.raw!) as Obj;
    const json = (await t.get(`${BASE}/${p}.stable.example.com`)).body;
    expect(created.spec).to.deep.equal(json.spec);
    expect(json.spec.versions[0].schema).to.deep.equal(body.spec.versions[0].schema);
    expect(json.spec.versions[0].subresources).to.deep.equal(body.spec.versions[0].subresources);
  });
});
