/**
 * NamespaceLifecycle's lookups: a cached copy answers normally; after a namespace's deletion went
 * through this server, its lookups are live (the cache may not show the deletion yet).
 */
import { expect } from 'chai';
import { namespaceLifecycle } from '../../../lib/admission/namespace-lifecycle';
import { AdmissionAttributes } from '../../../lib/registry/admission-attributes';
import { ApiObject, ResourceDef } from '../../../lib/scheme/types';

const configMaps = { resource: 'configmaps', group: '', namespaced: true } as ResourceDef;
const namespaces = { resource: 'namespaces', group: '', namespaced: false } as ResourceDef;

function attrs(operation: 'CREATE' | 'DELETE', resource: ResourceDef, namespace: string | undefined, name: string): AdmissionAttributes {
  return { operation, resource, namespace, name, object: undefined, dryRun: false } as unknown as AdmissionAttributes;
}

describe('NamespaceLifecycle lookups', () => {
  it('reads the cache normally and live for 30 s after a deletion through this server', async () => {
    const calls: Array<[string, boolean]> = [];
    let phase = 'Active';
    const plugin = namespaceLifecycle({
      get: async (name, live) => {
        calls.push([name, live]);
        return { metadata: { name }, status: { phase } } as ApiObject;
      },
    }, ['default']);
    await plugin.admit!(attrs('CREATE', configMaps, 'team', 'a'));
    expect(calls).to.deep.equal([['team', false]]);

    await plugin.admit!(attrs('DELETE', namespaces, undefined, 'team'));
    phase = 'Terminating';
    const err = await plugin.admit!(attrs('CREATE', configMaps, 'team', 'b')).then(() => undefined, (e) => e);
    expect(err?.code).to.equal(403);
    expect(calls[1]).to.deep.equal(['team', true]);

    await plugin.admit!(attrs('CREATE', configMaps, 'other', 'c')).catch(() => undefined);
    expect(calls[2]).to.deep.equal(['other', false]);
  });

  it('a missing namespace is 404 and the system namespaces cannot be deleted', async () => {
    const plugin = namespaceLifecycle({ get: async () => undefined }, ['default']);
    const missing = await plugin.admit!(attrs('CREATE', configMaps, 'gone', 'a')).then(() => undefined, (e) => e);
    expect(missing?.code).to.equal(404);
    const immortal = await plugin.admit!(attrs('DELETE', namespaces, undefined, 'default')).then(() => undefined, (e) => e);
    expect(immortal?.code).to.equal(403);
  });
});
