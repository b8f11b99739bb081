/**
 * The garbage collector's writes. Each is conditional on the object's uid (and a delete also on
 * its resourceVersion), and each is a no-op when already done, so two server replicas may run
 * them at once. An object that is gone counts as done.
 */
import { GenericStore } from '../../registry/store';
import { deleteObject } from '../../registry/delete';
import { ApiObject, ObjectMeta, OwnerReference } from '../../scheme/types';
import { DeleteOptions } from '../../registry/options';

/** The manager recorded in managedFields for the collector's updates. */
export const GC_FIELD_MANAGER = 'garbage-collector';

/** Which object: enough to find it and to make sure it is still the same one. */
export interface Target { namespace?: string; name: string; uid: string }

export const targetOf = (obj: ApiObject): Target => ({
  namespace: obj.metadata?.namespace, name: obj.metadata?.name as string, uid: obj.metadata?.uid as string,
});

const ignoreNotFound = (err: unknown): void => {
  if ((err as { code?: number }).code !== 404) throw err;
};

/**
 * Deletes `obj` as it was read (uid and resourceVersion preconditions) with `policy`. A
 * Conflict means it changed since: the caller looks at it again.
 */
export async function deleteDependent(store: GenericStore, obj: ApiObject,
  policy: NonNullable<DeleteOptions['propagationPolicy']>): Promise<void> {
  const t = targetOf(obj);
  await deleteObject(store, { namespace: t.namespace }, t.name, {
    propagationPolicy: policy, preconditions: { uid: t.uid, resourceVersion: obj.metadata?.resourceVersion },
  }, { dryRun: false }).catch(ignoreNotFound);
}

/** A read-modify-write of metadata on `t`; `change` returns false when nothing needs changing. */
async function updateMeta(store: GenericStore, t: Target, change: (meta: ObjectMeta) => boolean): Promise<void> {
  await store.guaranteedUpdate({ namespace: t.namespace }, t.name, (current) => {
    const meta = (current.metadata ??= {}) as ObjectMeta;
    if (meta.uid !== t.uid) return undefined;
    const before = structuredClone(current);
    if (!change(meta)) return undefined;
    const managed = store.trackUpdate(before, current, { dryRun: false, fieldManager: GC_FIELD_MANAGER }, undefined);
    if (managed) meta.managedFields = managed;
    else delete meta.managedFields;
    return current;
  }).catch(ignoreNotFound);
}

/** Removes the references to `ownerUids` from `t` (orphaning, or dropping dangling owners). */
export function removeOwnerReferences(store: GenericStore, t: Target, ownerUids: string[]): Promise<void> {
  return updateMeta(store, t, (meta) => {
    const refs = meta.ownerReferences ?? [];
    const kept = refs.filter((r) => !ownerUids.includes(r.uid));
    if (kept.length === refs.length) return false;
    if (kept.length) meta.ownerReferences = kept;
    else delete meta.ownerReferences;
    return true;
  });
}

/** Sets blockOwnerDeletion=false on every reference of `t` (breaks foreground-deletion cycles). */
export function unblockOwnerReferences(store: GenericStore, t: Target): Promise<void> {
  return updateMeta(store, t, (meta) => {
    const refs: OwnerReference[] = meta.ownerReferences ?? [];
    if (!refs.some((r) => r.blockOwnerDeletion)) return false;
    meta.ownerReferences = refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r));
    return true;
  });
}

/** Removes `finalizer` from `t`; the store removes the object when nothing else keeps it. */
export function removeFinalizer(store: GenericStore, t: Target, finalizer: string): Promise<void> {
  return updateMeta(store, t, (meta) => {
    if (!meta.finalizers?.includes(finalizer)) return false;
    const rest = meta.finalizers.filter((f) => f !== finalizer);
    if (rest.length) meta.finalizers = rest;
    else delete meta.finalizers;
    return true;
  });
}
