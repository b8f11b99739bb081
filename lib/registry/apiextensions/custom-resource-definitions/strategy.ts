/**
 * How writes change a CustomResourceDefinition, as Kubernetes' CRD strategies: a create starts
 * with an empty status (generation 1, the storage version recorded in storedVersions); a write
 * of the object keeps the stored status, records a new storage version, and bumps generation
 * when the spec changed; `/status` keeps the stored spec. The first DELETE only marks the CRD
 * (deletionTimestamp, the cleanup finalizer, Terminating) so its objects can be removed first.
 */
import { ApiObject, ObjectMeta } from '../../../scheme/types';
import { defaultCrd } from './defaults';
import { crdSpec, crdVersions, semanticEqual } from './view';
import { setCondition } from './conditions';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Appends the storage version to status.storedVersions when missing. */
function recordStorageVersion(obj: ApiObject): void {
  const storage = crdVersions(crdSpec(obj)).find((v) => v.storage === true);
  if (!storage) return;
  const status = (isObject(obj.status) ? obj.status : (obj.status = {})) as Record<string, unknown>;
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
}

/** PrepareForCreate: no status from the client, generation 1, storedVersions from the spec. */
export function prepareCrdCreate(obj: ApiObject): void {
  defaultCrd(obj);
  obj.status = { acceptedNames: { plural: '', kind: '' } };
  (obj.metadata as ObjectMeta).generation = 1;
  recordStorageVersion(obj);
}

/** PrepareForUpdate of the object itself: the stored status, plus a new storage version. */
export function prepareCrdUpdate(obj: ApiObject, old: ApiObject): void {
  defaultCrd(obj);
  obj.status = isObject(old.status) ? structuredClone(old.status) : {};
  recordStorageVersion(obj);
}

/** Whether the spec changed (generation is bumped): Kubernetes' semantic equality of the specs. */
export function crdSpecChanged(obj: ApiObject, old: ApiObject): boolean {
  return !semanticEqual(obj.spec, old.spec);
}

/**
 * `/status`: the incoming object with the stored spec. Kubernetes 1.32 keeps the incoming
 * metadata too (its reset of metadata for status writes is a no-op for CRDs), which the cleanup
 * controller relies on to drop its finalizer through /status.
 */
export function applyCrdStatusUpdate(incoming: ApiObject, current: ApiObject): ApiObject {
  return { ...incoming, spec: current.spec, metadata: incoming.metadata ?? current.metadata };
}

/** The first DELETE: the cleanup finalizer and the Terminating condition (deletionTimestamp is the store's). */
export function markCrdForDeletion(finalizer: string) {
  return (obj: ApiObject): void => {
    const meta = obj.metadata as ObjectMeta;
    // Kubernetes sets only the timestamp on a CRD, no grace period.
    delete meta.deletionGracePeriodSeconds;
    if (!(meta.finalizers ?? []).includes(finalizer)) meta.finalizers = [...(meta.finalizers ?? []), finalizer];
    setCondition(obj, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
  };
}
