import { expect } from 'chai';
import { convertLegacy, isAggregatedDiscoveryType, parseAggregated } from '../../../lib/aggregation/remote-discovery';

describe('aggregated discovery of extension servers: parsing and the legacy conversion', () => {
  it('tells an aggregated discovery Content-Type (v2, v2beta1) from others', () => {
    expect(isAggregatedDiscoveryType('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).to.equal(true);
    expect(isAggregatedDiscoveryType('application/json; g=apidiscovery.k8s.io; v=v2beta1; as=APIGroupDiscoveryList')).to.equal(true);
    expect(isAggregatedDiscoveryType('application/json')).to.equal(false);
    expect(isAggregatedDiscoveryType(undefined)).to.equal(false);
  });

  it('converts a legacy APIResourceList, subresources under their resource', () => {
    const list = { kind: 'APIResourceList', groupVersion: 'wardle.example.com/v1alpha1', resources: [
      { name: 'flunders/status', namespaced: true, kind: 'Flunder', verbs: ['get', 'update'] },
      { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] },
      { name: 'fischers', singularName: '', namespaced: false, kind: 'Fischer', verbs: ['get'] },
    ] };
    const v = convertLegacy('wardle.example.com', 'v1alpha1', Buffer.from(JSON.stringify(list)));
    expect(v).to.deep.equal({ version: 'v1alpha1', freshness: 'Current', resources: [
      { resource: 'fischers', responseKind: { group: 'wardle.example.com', version: 'v1alpha1', kind: 'Fischer' }, scope: 'Cluster', singularResource: '', verbs: ['get'] },
      { resource: 'flunders', responseKind: { group: 'wardle.example.com', version: 'v1alpha1', kind: 'Flunder' }, scope: 'Namespaced', singularResource: 'flunder', verbs: ['get', 'list'], shortNames: ['fl'],
        subresources: [{ subresource: 'status', responseKind: { group: 'wardle.example.com', version: 'v1alpha1', kind: 'Flunder' }, verbs: ['get', 'update'] }] },
    ] });
  });

  it('reads an aggregated document by group-version, dropping what is not of its shape', () => {
    const doc = { items: [{ metadata: { name: 'g' }, versions: [{ version: 'v1', resources: [{ resource: 'xs', scope: 'Cluster', verbs: ['get', 7] }, 'junk'] }, { resources: [] }] }, null] };
    const m = parseAggregated(Buffer.from(JSON.stringify(doc)));
    expect([...m.keys()]).to.deep.equal(['g/v1']);
    expect(m.get('g/v1')!.resources).to.deep.equal([{ resource: 'xs', responseKind: { group: 'g', version: 'v1', kind: '' }, scope: 'Cluster', singularResource: '', verbs: ['get'] }]);
  });
});
