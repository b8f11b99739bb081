import { expect } from 'chai';
import { DependencyGraph, ObjectCoordinates } from '../../../../lib/controllers/garbage-collector/graph';
import { ApiObject, OwnerReference } from '../../../../lib/scheme/types';

const CM = '/registry/configmaps/';
const at = (name: string, namespace: string | undefined = 'ns', kind = 'ConfigMap'): ObjectCoordinates =>
  ({ resource: kind === 'Namespace' ? '/registry/namespaces/' : CM, group: '', kind, namespace, name });
const ref = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...extra });
const cm = (name: string, uid: string, meta: Record<string, unknown> = {}): ApiObject =>
  ({ metadata: { name, namespace: 'ns', uid, ...meta } });

describe('DependencyGraph', () => {
  it('links a dependent to its owner by uid and reports nothing to verify when the owner is observed', () => {
    const g = new DependencyGraph();
    g.observe(cm('owner', 'u-owner'), at('owner'));
    const work = g.observe(cm('dep', 'u-dep', { ownerReferences: [ref('owner', 'u-owner')] }), at('dep'));
    expect(work).to.deep.equal({ attemptToDelete: [], attemptToOrphan: [], verifyOwners: [] });
    expect([...g.get('u-owner')!.dependents].map((d) => d.uid)).to.deep.equal(['u-dep']);
  });

  it('each owner has its own dependents, through gaining, losing and regaining them', () => {
    const g = new DependencyGraph();
    for (const name of ['a', 'b', 'loner']) g.observe(cm(name, `u-${name}`), at(name));
    g.observe(cm('d1', 'u-d1', { ownerReferences: [ref('a', 'u-a')] }), at('d1'));
    g.observe(cm('d2', 'u-d2', { ownerReferences: [ref('b', 'u-b')] }), at('d2'));
    const deps = (uid: string) => [...g.get(uid)!.dependents].map((d) => d.uid).sort();
    expect([deps('u-a'), deps('u-b'), deps('u-loner')]).to.deep.equal([['u-d1'], ['u-d2'], []]);
    // d1 moves from a to b, then back to a with d2.
    g.observe(cm('d1', 'u-d1', { ownerReferences: [ref('b', 'u-b')] }), at('d1'));
    expect([deps('u-a'), deps('u-b'), deps('u-loner')]).to.deep.equal([[], ['u-d1', 'u-d2'], []]);
    g.observe(cm('d1', 'u-d1', { ownerReferences: [ref('a', 'u-a')] }), at('d1'));
    g.observe(cm('d2', 'u-d2', { ownerReferences: [ref('a', 'u-a')] }), at('d2'));
    expect([deps('u-a'), deps('u-b'), deps('u-loner'), deps('u-d1')]).to.deep.equal([['u-d1', 'u-d2'], [], [], []]);
  });

  it('an owner not observed is a virtual node, and the dependent is to be verified', () => {
    const g = new DependencyGraph();
    const work = g.observe(cm('dep', 'u-dep', { ownerReferences: [ref('gone', 'u-gone')] }), at('dep'));
    expect(work.verifyOwners).to.deep.equal(['u-dep']);
    expect(g.get('u-gone')!.coordinates).to.equal(undefined);
  });

  it('an observed owner at other coordinates (name, kind or namespace) is verified too', () => {
    const g = new DependencyGraph();
    g.observe(cm('owner', 'u-owner'), at('owner'));
    expect(g.observe(cm('a', 'u-a', { ownerReferences: [ref('other-name', 'u-owner')] }), at('a')).verifyOwners).to.deep.equal(['u-a']);
    const elsewhere = { metadata: { name: 'b', namespace: 'other', uid: 'u-b', ownerReferences: [ref('owner', 'u-owner')] } };
    expect(g.observe(elsewhere, at('b', 'other')).verifyOwners).to.deep.equal(['u-b']);
    // A cluster-scoped owner resolves from any namespace.
    g.observe({ metadata: { name: 'ns1', uid: 'u-ns' } }, at('ns1', undefined, 'Namespace'));
    const nsRef = { apiVersion: 'v1', kind: 'Namespace', name: 'ns1', uid: 'u-ns' };
    expect(g.observe(cm('c', 'u-c', { ownerReferences: [nsRef] }), at('c')).verifyOwners).to.deep.equal([]);
  });

  it('removing an owner reports its dependents', () => {
    const g = new DependencyGraph();
    g.observe(cm('owner', 'u-owner'), at('owner'));
    g.observe(cm('d1', 'u-d1', { ownerReferences: [ref('owner', 'u-owner')] }), at('d1'));
    g.observe(cm('d2', 'u-d2', { ownerReferences: [ref('owner', 'u-owner')] }), at('d2'));
    expect(g.remove('u-owner').attemptToDelete.sort()).to.deep.equal(['u-d1', 'u-d2']);
    expect(g.get('u-owner')).to.equal(undefined);
  });

  it('a foreground deletion reports every dependent and the owner itself, once', () => {
    const g = new DependencyGraph();
    g.observe(cm('owner', 'u-owner'), at('owner'));
    g.observe(cm('d1', 'u-d1', { ownerReferences: [ref('owner', 'u-owner', { blockOwnerDeletion: true })] }), at('d1'));
    const deleting = cm('owner', 'u-owner', { deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] });
    expect(g.observe(deleting, at('owner')).attemptToDelete).to.deep.equal(['u-d1', 'u-owner']);
    expect(g.observe(deleting, at('owner')).attemptToDelete).to.deep.equal([]);
    expect(g.blockingDependents(g.get('u-owner')!).map((d) => d.uid)).to.deep.equal(['u-d1']);
  });

  it('a blocking dependent that goes, or stops blocking, reports the waiting owner', () => {
    const g = new DependencyGraph();
    g.observe(cm('owner', 'u-owner', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), at('owner'));
    const blocking = [ref('owner', 'u-owner', { blockOwnerDeletion: true })];
    g.observe(cm('d1', 'u-d1', { ownerReferences: blocking }), at('d1'));
    g.observe(cm('d2', 'u-d2', { ownerReferences: blocking }), at('d2'));
    expect(g.observe(cm('d1', 'u-d1', { ownerReferences: [ref('owner', 'u-owner')] }), at('d1')).attemptToDelete).to.deep.equal(['u-owner']);
    expect(g.blockingDependents(g.get('u-owner')!).map((d) => d.uid)).to.deep.equal(['u-d2']);
    expect(g.remove('u-d2').attemptToDelete).to.deep.equal(['u-owner']);
    expect(g.blockingDependents(g.get('u-owner')!)).to.deep.equal([]);
  });

  it('a dependent that starts referencing an owner deleting in the foreground is reported', () => {
    const g = new DependencyGraph();
    g.observe(cm('owner', 'u-owner', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), at('owner'));
    expect(g.observe(cm('late', 'u-late', { ownerReferences: [ref('owner', 'u-owner')] }), at('late')).attemptToDelete).to.deep.equal(['u-late']);
  });

  it('an orphan deletion is reported once', () => {
    const g = new DependencyGraph();
    const orphaning = cm('owner', 'u-owner', { deletionTimestamp: 't', finalizers: ['orphan'] });
    expect(g.observe(orphaning, at('owner')).attemptToOrphan).to.deep.equal(['u-owner']);
    expect(g.observe(orphaning, at('owner')).attemptToOrphan).to.deep.equal([]);
  });

  it('a virtual node disappears with its last dependent', () => {
    const g = new DependencyGraph();
    g.observe(cm('dep', 'u-dep', { ownerReferences: [ref('gone', 'u-gone')] }), at('dep'));
    g.observe(cm('dep', 'u-dep'), at('dep'));
    expect(g.get('u-gone')).to.equal(undefined);
    expect(g.size).to.equal(1);
  });

  it('only references added later are verified again', () => {
    const g = new DependencyGraph();
    g.observe(cm('dep', 'u-dep', { ownerReferences: [ref('gone', 'u-gone')] }), at('dep'));
    expect(g.observe(cm('dep', 'u-dep', { ownerReferences: [ref('gone', 'u-gone')], labels: { a: 'b' } }), at('dep')).verifyOwners).to.deep.equal([]);
    expect(g.observe(cm('dep', 'u-dep', { ownerReferences: [ref('gone', 'u-gone'), ref('x', 'u-x')] }), at('dep')).verifyOwners).to.deep.equal(['u-dep']);
  });
});
