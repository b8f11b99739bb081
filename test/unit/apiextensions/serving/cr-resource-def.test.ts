import { expect } from 'chai';
import { buildCrServing, CR_VERBS } from '../../../../lib/apiextensions/serving/cr-resource-def';
import { crReadPath } from '../../../../lib/apiextensions/serving/cr-read';
import { defaultDeprecationWarning } from '../../../../lib/apiextensions/serving/cr-deprecation';
import { compareKubeAwareVersions } from '../../../../lib/meta/kube-version';
import { customKey } from '../../../../lib/api/resource-handler';
import { patchTypesForDef } from '../../../../lib/api/handlers/patch';
import { resourcePaths } from '../../../../lib/api/openapi/operations';
import { deprecationWarning } from '../../../../lib/api/deprecation';
import { decodeRequestBody } from '../../../../lib/api/protobuf-body';
import { negotiateResponse } from '../../../../lib/api/negotiation';
import { ApiError } from '../../../../lib/meta/api-errors';
import { flavors } from '../../../../lib/naming';
import { cronTabCrd } from '../../../helpers/crd-fixtures';

const deps = { naming: flavors.kubernetes };

describe('buildCrServing (custom-resource defs)', () => {
  it('makes one def per served version, named from status.acceptedNames', () => {
    const crd = cronTabCrd({ versions: ['v1', 'v2', 'v3'], notServed: ['v3'] });
    (crd.status as { acceptedNames: Record<string, unknown> }).acceptedNames = {
      plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'],
    };
    (crd.spec as { names: Record<string, unknown> }).names.shortNames = ['ct', 'cts-not-accepted'];
    const b = buildCrServing(crd, deps);
    expect([...b.defs.keys()]).to.deep.equal(['v1', 'v2']);
    expect(b).to.include({ uid: crd.metadata!.uid, name: 'crontabs.stable.example.com', group: 'stable.example.com', plural: 'crontabs', keySegment: 'stable.example.com/crontabs', storageVersion: 'v1', terminating: false, generation: 1 });
    const v1 = b.defs.get('v1')!;
    expect(v1).to.include({ group: 'stable.example.com', version: 'v1', kind: 'CronTab', listKind: 'CronTabList', resource: 'crontabs', singular: 'crontab', namespaced: true, deleteReturnsStatus: false, nameValidation: 'dns-subdomain', strategicMerge: false });
    expect(v1.shortNames).to.deep.equal(['ct']);
    expect(v1.categories).to.deep.equal(['all']);
    expect(v1.verbs).to.deep.equal(['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
    expect(v1.storageVersion).to.equal(undefined);
    expect(b.defs.get('v2')!.storageVersion).to.equal('v1');
  });

  it('serves Cluster scope as not namespaced', () => {
    expect(buildCrServing(cronTabCrd({ scope: 'Cluster' }), deps).defs.get('v1')!.namespaced).to.equal(false);
  });

  it('refuses a CRD without accepted names or storage version', () => {
    const crd = cronTabCrd();
    (crd.status as { acceptedNames: Record<string, unknown> }).acceptedNames = { plural: 'crontabs' };
    expect(() => buildCrServing(crd, deps)).to.throw('unexpected empty status.acceptedNames.singular');
    const noStorage = cronTabCrd();
    for (const v of (noStorage.spec as { versions: Array<{ storage: boolean }> }).versions) v.storage = false;
    expect(() => buildCrServing(noStorage, deps)).to.throw('has no storage version');
  });

  it('has a server schema with apiVersion, kind, ObjectMeta, list types (atomic by default) and map keys', () => {
    const s = buildCrServing(cronTabCrd(), deps).defs.get('v1')!.schema;
    expect(Object.keys(s.properties!)).to.include.members(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const spec = s.properties!.spec.properties!;
    expect(spec.ports['x-kubernetes-list-type']).to.equal('map');
    expect(spec.ports['x-kubernetes-list-map-keys']).to.deep.equal(['name']);
    expect(spec.replicas.type).to.equal('integer');
  });

  it('lists /status and /scale (autoscaling/v1 Scale) only when the version has them, with scale handlers', () => {
    const plain = buildCrServing(cronTabCrd(), deps);
    expect(plain.defs.get('v1')!.subresources).to.deep.equal([]);
    expect(plain.customHandlers.size).to.equal(0);
    const full = buildCrServing(cronTabCrd({ status: true, scale: true, versions: ['v1', 'v2'] }), deps);
    const subs = full.defs.get('v1')!.subresources;
    expect(subs.map((r) => [r.name, r.kind, r.group, r.version, r.verbs])).to.deep.equal([
      ['status', 'CronTab', undefined, undefined, ['get', 'patch', 'update']],
      ['scale', 'Scale', 'autoscaling', 'v1', ['get', 'patch', 'update']],
    ]);
    for (const v of ['v1', 'v2']) {
      for (const verb of ['get', 'update', 'patch']) expect(full.customHandlers.has(customKey('stable.example.com', v, 'crontabs', 'scale', verb)), `${v} ${verb}`).to.equal(true);
    }
  });

  it('refuses strategic merge patch with the media types Kubernetes accepts for custom resources', () => {
    const def = buildCrServing(cronTabCrd(), deps).defs.get('v1')!;
    expect(patchTypesForDef(def)).to.deep.equal(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    // The OpenAPI PATCH operations (object and /status) consume the same list.
    const withStatus = buildCrServing(cronTabCrd({ status: true }), deps).defs.get('v1')!;
    const patches = resourcePaths(withStatus).flatMap((p) => p.operations).filter((o) => o.method === 'patch');
    expect(patches).to.have.length(2);
    for (const op of patches) expect(op.body!.contentTypes).to.deep.equal(patchTypesForDef(def));
  });

  it('refuses protobuf bodies (415) and answers JSON or 406 to protobuf Accept', () => {
    const kind = { apiVersion: 'stable.example.com/v1', kind: 'CronTab' };
    let err: unknown;
    try { decodeRequestBody(Buffer.from([0x6b, 0x38, 0x73, 0x00]), 'application/vnd.kubernetes.protobuf', kind); } catch (e) { err = e; }
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).code).to.equal(415);
    expect(negotiateResponse('application/vnd.kubernetes.protobuf, application/json', 'object', kind).mediaType).to.equal('application/json');
    expect(() => negotiateResponse('application/vnd.kubernetes.protobuf', 'object', kind)).to.throw(ApiError).with.property('code', 406);
  });

  it("exposes each version's read path", () => {
    const b = buildCrServing(cronTabCrd({ versions: ['v1', 'v2'] }), deps);
    const rp = crReadPath(b.defs.get('v2')!)!;
    expect(rp).to.include({ apiVersion: 'stable.example.com/v2', storageApiVersion: 'stable.example.com/v1', changesObjects: true });
    const served = rp.fromStorage({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'a' }, spec: { image: 'x' } });
    expect(served).to.deep.equal({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'a' }, spec: { image: 'x', color: 'red' } });
  });
});

describe('deprecated custom-resource versions', () => {
  it('use the custom deprecationWarning when set', () => {
    const b = buildCrServing(cronTabCrd({ versions: ['v1', 'v1beta1'], deprecated: { v1beta1: 'v1beta1 is going away' } }), deps);
    const def = b.defs.get('v1beta1')!;
    expect(deprecationWarning(def, def.deprecation!)).to.equal('v1beta1 is going away');
    expect(b.defs.get('v1')!.deprecation).to.equal(undefined);
  });

  it("default to Kubernetes' text naming the best served, non-deprecated version above it", () => {
    const b = buildCrServing(cronTabCrd({ versions: ['v1beta1', 'v1', 'v2', 'v1alpha1'], deprecated: { v1beta1: undefined, v2: undefined, v1alpha1: undefined } }), deps);
    const text = (v: string) => deprecationWarning(b.defs.get(v)!, b.defs.get(v)!.deprecation!);
    expect(text('v1beta1')).to.equal('stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab');
    expect(text('v1alpha1')).to.equal('stable.example.com/v1alpha1 CronTab is deprecated; use stable.example.com/v1 CronTab');
    expect(text('v2')).to.equal('stable.example.com/v2 CronTab is deprecated');
  });

  it('leave out versions that are not served', () => {
    const spec = { group: 'g.example.com', names: { kind: 'Foo' }, versions: [{ name: 'v1beta1', served: true, deprecated: true }, { name: 'v1', served: false }] };
    expect(defaultDeprecationWarning('v1beta1', spec)).to.equal('g.example.com/v1beta1 Foo is deprecated');
  });

  it('rank versions as CompareKubeAwareVersionStrings', () => {
    const sorted = ['v1alpha1', 'foo10', 'v2', 'v11beta2', 'v1', 'foo1', 'v10beta3', 'v12alpha1', 'v10'].sort((a, b) => compareKubeAwareVersions(b, a));
    expect(sorted).to.deep.equal(['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v12alpha1', 'v1alpha1', 'foo1', 'foo10']);
  });
});

it('CR_VERBS is the discovery order Kubernetes uses for custom resources', () => {
  expect(CR_VERBS).to.deep.equal(['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
});
