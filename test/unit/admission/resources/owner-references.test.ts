/**
 * OwnerReferencesPermissionEnforcement's comparisons as Kubernetes makes them: what counts as a
 * change of owner references (order and unset-vs-false count) and which references newly block
 * owner deletion (matched by uid); and NamespaceAutoProvision's tolerance of a namespace created
 * meanwhile, with a stand-in namespace store.
 */
import { expect } from 'chai';
import { AdmissionAttributes } from '../../../../lib/registry/admission-attributes';
import { changesOwnerReferences, newBlockingReferences } from '../../../../lib/admission/resources/owner-references-permission-enforcement';
import { namespaceAutoProvision } from '../../../../lib/admission/resources/namespace-auto-provision';
import { ApiError, errors } from '../../../../lib/meta/api-errors';
import { OwnerReference, ResourceDef } from '../../../../lib/scheme/types';
import { StoreIndex } from '../../../../lib/registry/store-index';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as ResourceDef;
const ref = (uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...extra });
const attrs = (refs: OwnerReference[] | undefined, oldRefs?: OwnerReference[] | null): AdmissionAttributes => ({
  operation: oldRefs === undefined ? 'CREATE' : 'UPDATE', resource: configMaps, namespace: 'ns', name: 'x', dryRun: false, ctx: {},
  object: { metadata: { name: 'x', ownerReferences: refs } },
  oldObject: oldRefs === undefined ? undefined : { metadata: { name: 'x', ...(oldRefs ? { ownerReferences: oldRefs } : {}) } },
});

describe('OwnerReferencesPermissionEnforcement comparisons', () => {
  it('a create changes owner references only when it has some', () => {
    expect(changesOwnerReferences(attrs([ref('a')]))).to.equal(true);
    expect(changesOwnerReferences(attrs([]))).to.equal(false);
    expect(changesOwnerReferences(attrs(undefined))).to.equal(false);
  });

  it('an update changes them when the list differs in length, order or any field (unset and false differ)', () => {
    expect(changesOwnerReferences(attrs([ref('a')], [ref('a')]))).to.equal(false);
    expect(changesOwnerReferences(attrs([], null))).to.equal(false);
    expect(changesOwnerReferences(attrs([ref('a'), ref('b')], [ref('b'), ref('a')]))).to.equal(true);
    expect(changesOwnerReferences(attrs([ref('a', { controller: false })], [ref('a')]))).to.equal(true);
    expect(changesOwnerReferences(attrs([ref('a')], [ref('a'), ref('b')]))).to.equal(true);
  });

  it('new blocking references: added blocking ones and ones turned from unset or false to true', () => {
    const blocking = (uid: string) => ref(uid, { blockOwnerDeletion: true });
    expect(newBlockingReferences(attrs([blocking('a'), ref('b')])).map((r) => r.uid)).to.deep.equal(['a']);
    expect(newBlockingReferences(attrs([blocking('a'), blocking('b'), blocking('c')],
      [blocking('a'), ref('b', { blockOwnerDeletion: false }), ref('z')])).map((r) => r.uid)).to.deep.equal(['b', 'c']);
    expect(newBlockingReferences(attrs([ref('a')], [blocking('a')]))).to.deep.equal([]);
  });
});

describe('NamespaceAutoProvision', () => {
  const missing = { get: async () => undefined };
  const storeThat = (create: () => Promise<unknown>) => new Map([['/v1/namespaces', { create }]]) as unknown as StoreIndex;
  const create = (dryRun = false): AdmissionAttributes => ({ ...attrs(undefined), dryRun, namespace: 'new-ns' });

  it('accepts a namespace that someone else created meanwhile (AlreadyExists)', async () => {
    const plugin = namespaceAutoProvision(missing, storeThat(async () => { throw errors.alreadyExists({ group: '', resource: 'namespaces' }, 'new-ns'); }), 'orch-apiserver');
    await plugin.admit!(create());
  });

  it('refuses the request with 403 when the namespace cannot be created', async () => {
    const plugin = namespaceAutoProvision(missing, storeThat(async () => { throw new ApiError(500, 'InternalError', 'etcd is down'); }), 'orch-apiserver');
    const err = await plugin.admit!(create()).then(() => undefined, (e) => e);
    expect(err).to.include({ code: 403, message: 'configmaps "x" is forbidden: etcd is down' });
  });

  it('creates nothing on a dry run', async () => {
    let created = 0;
    const plugin = namespaceAutoProvision(missing, storeThat(async () => { created++; }), 'orch-apiserver');
    await plugin.admit!(create(true));
    expect(created).to.equal(0);
    await plugin.admit!(create(false));
    expect(created).to.equal(1);
  });
});
