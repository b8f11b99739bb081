import { expect } from 'chai';
import { ResourceRegistry, RegistryChange } from '../../../lib/registry/resource-registry';
import { ResourceDef } from '../../../lib/scheme/types';
import { GenericStore } from '../../../lib/registry/store';

const def = (group: string, version: string, resource: string, extra: Partial<ResourceDef> = {}): ResourceDef => ({
  group, version, kind: resource, listKind: `${resource}List`, resource, singular: resource, namespaced: true, shortNames: [], categories: [],
  verbs: ['get', 'create'], subresources: [], strategy: {}, deleteReturnsStatus: false, nameValidation: 'dns-subdomain', schema: {}, ...extra,
});
const store = (d: ResourceDef) => ({ def: d }) as unknown as GenericStore;

describe('ResourceRegistry', () => {
  let registry: ResourceRegistry;
  let changes: RegistryChange[];
  const cm = def('', 'v1', 'configmaps');
  const review = def('authentication.orch.io', 'v1', 'tokenreviews', { virtual: true });

  beforeEach(() => {
    registry = new ResourceRegistry();
    changes = [];
    registry.addBuiltins([{ def: cm, store: store(cm) }, { def: review }]);
    registry.onChange((c) => changes.push(c));
  });

  it('serves built-ins: stores for stored kinds, every def listed, isBuiltin by group and resource', () => {
    expect([...registry.stores.keys()]).to.deep.equal(['/v1/configmaps']);
    expect(registry.resources()).to.deep.equal([cm, review]);
    expect(registry.isBuiltin('', 'configmaps')).to.equal(true);
    expect(registry.isBuiltin('', 'secrets')).to.equal(false);
    expect(registry.isBuiltinDef(cm)).to.equal(true);
  });

  it('adds, replaces and removes custom entries, one change (and generation) each, the snapshot kept between changes', () => {
    const g0 = registry.generation;
    const snapshot = registry.resources();
    expect(registry.resources()).to.equal(snapshot);
    const v1 = def('stable.example.com', 'v1', 'crontabs');
    const v2beta1 = def('stable.example.com', 'v2beta1', 'crontabs');
    const v2 = def('stable.example.com', 'v2', 'crontabs');
    const other = def('a.example.com', 'v1', 'things');
    expect(registry.add([{ def: v2beta1, store: store(v2beta1) }, { def: v1, store: store(v1) }, { def: v2, store: store(v2) }, { def: other, store: store(other) }])).to.deep.equal([]);
    expect(changes).to.have.length(1);
    expect(registry.generation).to.equal(g0 + 1);
    expect(registry.resources()).to.not.equal(snapshot);
    // Built-ins first; then by group, and Kubernetes' version priority within a group.
    expect(registry.resources()).to.deep.equal([cm, review, other, v2, v1, v2beta1]);
    expect(registry.stores.get('stable.example.com/v1/crontabs')?.def).to.equal(v1);

    const v1b = def('stable.example.com', 'v1', 'crontabs', { kind: 'CronTab2' });
    registry.replace(['stable.example.com/v1/crontabs', 'stable.example.com/v2/crontabs'], [{ def: v1b, store: store(v1b) }]);
    expect(changes).to.have.length(2);
    expect(changes[1].removed.map((e) => e.def)).to.deep.equal([v1, v2]);
    expect(changes[1].added.map((e) => e.def)).to.deep.equal([v1b]);
    expect(registry.stores.get('stable.example.com/v1/crontabs')?.def).to.equal(v1b);
    expect(registry.stores.has('stable.example.com/v2/crontabs')).to.equal(false);

    registry.remove(['stable.example.com/v1/crontabs', 'stable.example.com/v2beta1/crontabs', 'nothing/v1/here']);
    expect(registry.resources()).to.deep.equal([cm, review, other]);
    registry.remove(['nothing/v1/here']);
    expect(changes).to.have.length(3);
  });

  it('refuses a custom entry over a built-in resource (built-ins always win)', () => {
    const shadow = def('', 'v1', 'configmaps', { kind: 'Fake' });
    const alsoShadow = def('', 'v2', 'configmaps');
    expect(registry.add([{ def: shadow, store: store(shadow) }, { def: alsoShadow, store: store(alsoShadow) }])).to.deep.equal(['/v1/configmaps', '/v2/configmaps']);
    expect(registry.stores.get('/v1/configmaps')?.def).to.equal(cm);
    expect(changes).to.have.length(0);
    registry.remove(['/v1/configmaps']);
    expect(registry.stores.get('/v1/configmaps')?.def).to.equal(cm);
  });

  it('lists an entry only when listed, with its discovery verbs, and keeps that def identity across snapshots', () => {
    const hidden = def('x.example.com', 'v1', 'hiddens');
    const ending = def('x.example.com', 'v1', 'endings', { verbs: ['create', 'get'] });
    registry.add([{ def: hidden, store: store(hidden), listed: false }, { def: ending, store: store(ending), discoveryVerbs: ['get'] }]);
    expect(registry.stores.has('x.example.com/v1/hiddens')).to.equal(true);
    const listed = registry.resources().filter((d) => d.group === 'x.example.com');
    expect(listed.map((d) => [d.resource, d.verbs])).to.deep.equal([['endings', ['get']]]);
    expect(registry.stores.get('x.example.com/v1/endings')?.def.verbs).to.deep.equal(['create', 'get']);
    const other = def('y.example.com', 'v1', 'ys');
    registry.add([{ def: other, store: store(other) }]);
    expect(registry.resources().find((d) => d.resource === 'endings')).to.equal(listed[0]);
  });

  it('documents (OpenAPI) the listed entries with all their verbs, in the same order, the snapshot kept between changes', () => {
    const hidden = def('x.example.com', 'v1', 'hiddens');
    const ending = def('x.example.com', 'v1', 'endings', { verbs: ['create', 'get'] });
    registry.add([{ def: hidden, store: store(hidden), listed: false }, { def: ending, store: store(ending), discoveryVerbs: ['get'] }]);
    const documented = registry.documentedResources();
    expect(documented).to.deep.equal([cm, review, ending]);
    expect(documented[2]).to.equal(ending);
    expect(registry.documentedResources()).to.equal(documented);
    registry.remove(['x.example.com/v1/endings']);
    expect(registry.documentedResources()).to.deep.equal([cm, review]);
  });

  it('keeps notifying when a listener throws, and stops after unsubscribe', () => {
    const seen: number[] = [];
    registry.onChange(() => { throw new Error('boom'); });
    const off = registry.onChange((c) => seen.push(c.generation));
    const a = def('z.example.com', 'v1', 'as');
    registry.add([{ def: a, store: store(a) }]);
    off();
    registry.remove(['z.example.com/v1/as']);
    expect(seen).to.have.length(1);
    expect(changes).to.have.length(2);
  });
});
