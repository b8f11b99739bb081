import { expect } from 'chai';
import {
  buildAggregatedDiscovery, buildApiGroup, buildApiGroupList, buildApiResourceList, buildApiVersions,
  negotiateDiscovery,
} from '../../../lib/api/discovery';
import { ApiError } from '../../../lib/meta/api-errors';
import { flavors } from '../../../lib/naming';
import { ResourceDef } from '../../../lib/scheme/types';

function def(over: Partial<ResourceDef>): ResourceDef {
  return {
    group: '', version: 'v1', kind: 'Thing', listKind: 'ThingList', resource: 'things', singular: 'thing',
    namespaced: true, shortNames: [], categories: [], verbs: ['get', 'list'], subresources: [],
    strategy: {}, deleteReturnsStatus: false, nameValidation: 'dns-subdomain', schema: { type: 'object' },
    ...over,
  };
}

const configmaps = def({
  kind: 'ConfigMap', listKind: 'ConfigMapList', resource: 'configmaps', singular: 'configmap', shortNames: ['cm'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
});
const namespaces = def({
  kind: 'Namespace', listKind: 'NamespaceList', resource: 'namespaces', singular: 'namespace', namespaced: false,
  shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: [
    { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
    { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
  ],
});
const storageClasses = def({
  group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', listKind: 'StorageClassList',
  resource: 'storageclasses', singular: 'storageclass', namespaced: false, shortNames: ['sc'],
});
const leases = def({
  group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', listKind: 'LeaseList', resource: 'leases',
  singular: 'lease', categories: ['all'],
});
const storageBeta = def({
  group: 'storage.k8s.io', version: 'v1beta1', kind: 'CSIStorageCapacity', listKind: 'CSIStorageCapacityList',
  resource: 'csistoragecapacities', singular: 'csistoragecapacity',
});
const all = [storageClasses, namespaces, configmaps, leases, storageBeta];

const kubectlAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,'
  + 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('discovery', () => {
  describe('buildApiVersions', () => {
    it('lists v1 and the address the client used', () => {
      expect(buildApiVersions('10.0.0.1:6443')).to.deep.equal({
        kind: 'APIVersions', versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
      });
    });
  });

  describe('buildApiResourceList', () => {
    it('lists the core group sorted by name, subresources after their parent, empty lists omitted', () => {
      const list = buildApiResourceList({ group: '', version: 'v1' }, all);
      expect(list).to.deep.equal({
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1',
        resources: [
          // storageVersionHash: the values kube-apiserver lists for these kinds.
          { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: configmaps.verbs, shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=' },
          { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: namespaces.verbs, shortNames: ['ns'], storageVersionHash: 'Q3oi5N2YM8M=' },
          { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
          { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
        ],
      });
      expect(list.resources[0]).not.to.have.property('categories');
    });

    it('uses group/version for a named group and keeps categories', () => {
      const list = buildApiResourceList({ group: 'coordination.k8s.io', version: 'v1' }, all);
      expect(list.groupVersion).to.equal('coordination.k8s.io/v1');
      expect(list.resources).to.deep.equal([
        { name: 'leases', singularName: 'lease', namespaced: true, kind: 'Lease', verbs: ['get', 'list'], categories: ['all'], storageVersionHash: 'gqkMMb/YqFM=' },
      ]);
    });

    it('is empty for a group/version that is not served', () => {
      expect(buildApiResourceList({ group: 'apps', version: 'v1' }, all).resources).to.deep.equal([]);
    });
  });

  describe('buildApiGroupList / buildApiGroup', () => {
    it('lists named groups in kube-apiserver\'s priority order (storage 16800 before coordination 16500) with versions as given, first preferred', () => {
      expect(buildApiGroupList(all)).to.deep.equal({
        kind: 'APIGroupList', apiVersion: 'v1',
        groups: [
          {
            name: 'storage.k8s.io',
            versions: [
              { groupVersion: 'storage.k8s.io/v1', version: 'v1' },
              { groupVersion: 'storage.k8s.io/v1beta1', version: 'v1beta1' },
            ],
            preferredVersion: { groupVersion: 'storage.k8s.io/v1', version: 'v1' },
          },
          {
            name: 'coordination.k8s.io',
            versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
            preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
          },
        ],
      });
    });

    it('orders groups as kube-apiserver 1.32 does: by priority, ties by name, custom resource groups last', () => {
      const def = (group: string, custom = false) => ({ ...leases, group, ...(custom ? { strategicMerge: false } : {}) });
      const groups = [def('zeta.example.com', true), def('apiextensions.k8s.io'), def('batch'), def('apps'), def('policy'),
        def('admissionregistration.k8s.io'), def('alpha.example.com', true), def('events.k8s.io'), def('rbac.authorization.orch.io')];
      expect(buildApiGroupList(groups).groups.map((g) => g.name)).to.deep.equal([
        'apps', 'events.k8s.io', 'batch', 'policy', 'rbac.authorization.orch.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
        'alpha.example.com', 'zeta.example.com',
      ]);
    });

    it('answers one group as APIGroup and nothing for unknown or core groups', () => {
      expect(buildApiGroup('coordination.k8s.io', all)).to.deep.equal({
        kind: 'APIGroup', apiVersion: 'v1', name: 'coordination.k8s.io',
        versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
      });
      expect(buildApiGroup('apps', all)).to.equal(undefined);
      expect(buildApiGroup('', all)).to.equal(undefined);
    });
  });

  describe('buildAggregatedDiscovery', () => {
    it('gives /api one core item with empty metadata, scopes, subresources and freshness', () => {
      const doc = buildAggregatedDiscovery(all, '/api', 'apidiscovery.k8s.io/v2');
      expect(doc.kind).to.equal('APIGroupDiscoveryList');
      expect(doc.apiVersion).to.equal('apidiscovery.k8s.io/v2');
      expect(doc.metadata).to.deep.equal({});
      expect(doc.items).to.have.length(1);
      expect(doc.items[0].metadata).to.deep.equal({});
      expect(doc.items[0].versions).to.have.length(1);
      const v1 = doc.items[0].versions[0];
      expect(v1.version).to.equal('v1');
      expect(v1.freshness).to.equal('Current');
      expect(v1.resources).to.deep.equal([
        {
          resource: 'configmaps', responseKind: { group: '', version: 'v1', kind: 'ConfigMap' }, scope: 'Namespaced',
          singularResource: 'configmap', verbs: configmaps.verbs, shortNames: ['cm'],
        },
        {
          resource: 'namespaces', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, scope: 'Cluster',
          singularResource: 'namespace', verbs: namespaces.verbs, shortNames: ['ns'],
          subresources: [
            { subresource: 'finalize', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] },
            { subresource: 'status', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] },
          ],
        },
      ]);
    });

    it('gives /apis the named groups in priority order, each version with its resources', () => {
      const doc = buildAggregatedDiscovery(all, '/apis', 'apidiscovery.k8s.io/v2beta1');
      expect(doc.apiVersion).to.equal('apidiscovery.k8s.io/v2beta1');
      expect(doc.items.map((i) => i.metadata.name)).to.deep.equal(['storage.k8s.io', 'coordination.k8s.io']);
      const storage = doc.items[0];
      expect(storage.versions.map((v) => v.version)).to.deep.equal(['v1', 'v1beta1']);
      expect(storage.versions[0].resources).to.deep.equal([{
        resource: 'storageclasses', responseKind: { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' },
        scope: 'Cluster', singularResource: 'storageclass', verbs: ['get', 'list'], shortNames: ['sc'],
      }]);
      expect(doc.items[1].versions[0].resources[0]).to.include({ resource: 'leases', scope: 'Namespaced' });
      expect(doc.items[1].versions[0].resources[0].categories).to.deep.equal(['all']);
      expect(doc.items[1].versions[0].resources[0]).not.to.have.property('subresources');
      expect(doc.items[1].versions[0].resources[0]).not.to.have.property('shortNames');
    });

    it('has no items when nothing of that root is served', () => {
      expect(buildAggregatedDiscovery([leases], '/api', 'apidiscovery.k8s.io/v2').items).to.deep.equal([]);
    });
  });

  describe('negotiateDiscovery', () => {
    const naming = flavors.kubernetes;

    it("picks aggregated v2 for kubectl's Accept, with the exact Content-Type", () => {
      expect(negotiateDiscovery(kubectlAccept, naming)).to.deep.equal({
        form: 'aggregated', group: 'apidiscovery.k8s.io', version: 'v2', apiVersion: 'apidiscovery.k8s.io/v2',
        contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      });
    });

    it("falls back to plain JSON for kubectl's Accept where aggregated is not allowed", () => {
      expect(negotiateDiscovery(kubectlAccept, naming, false)).to.deep.equal({ form: 'plain', contentType: 'application/json' });
    });

    it('answers v2beta1 and the orch spelling as requested, whatever the flavor', () => {
      const beta = negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList', naming);
      expect(beta).to.include({ form: 'aggregated', apiVersion: 'apidiscovery.k8s.io/v2beta1' });
      const orch = negotiateDiscovery('application/json; g=apidiscovery.orch.io; v=v2; as=APIGroupDiscoveryList', naming);
      expect(orch).to.include({
        form: 'aggregated', apiVersion: 'apidiscovery.orch.io/v2',
        contentType: 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList',
      });
    });

    it('means plain for application/json, */*, application/* and a missing header', () => {
      for (const accept of ['application/json', '*/*', 'application/*', 'application/json, */*', undefined, '']) {
        expect(negotiateDiscovery(accept, naming), String(accept)).to.deep.equal({ form: 'plain', contentType: 'application/json' });
      }
    });

    it('orders by q-value, keeps header order on ties, and drops q=0', () => {
      const preferPlain = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json;q=0.9';
      expect(negotiateDiscovery(preferPlain, naming).form).to.equal('plain');
      const preferAggregated = 'application/json;q=0.8,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
      expect(negotiateDiscovery(preferAggregated, naming).form).to.equal('aggregated');
      expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0,*/*;q=0.1', naming).form)
        .to.equal('plain');
    });

    it('skips entries it cannot produce (protobuf, unknown versions, other `as`)', () => {
      const accept = 'application/vnd.kubernetes.protobuf,application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,'
        + 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
      expect(negotiateDiscovery(accept, naming)).to.include({ version: 'v2beta1' });
    });

    it('throws NotAcceptable (406) listing what it can produce when nothing fits', () => {
      let caught: unknown;
      try {
        negotiateDiscovery('application/xml', naming);
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(ApiError);
      const err = caught as ApiError;
      expect(err.code).to.equal(406);
      expect(err.reason).to.equal('NotAcceptable');
      expect(err.message).to.include('application/json');
      expect(err.message).to.include('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      expect(() => negotiateDiscovery('application/json;as=Table;g=meta.k8s.io;v=v1', naming)).to.throw(ApiError);
    });
  });
});
