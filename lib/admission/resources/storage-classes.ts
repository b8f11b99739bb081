/**
 * What the storage plugins read of storage classes and claims: the classes from the
 * StorageClass watch cache (etcd when the server runs without one), and Kubernetes' helpers
 * for a claim's class, where the beta annotation `volume.beta.<domain>/storage-class` wins over
 * spec.storageClassName.
 */
import { ApiObject } from '../../scheme/types';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { listStoredObjects } from './stored-objects';
import { Naming } from '../../naming';
import { StorageNames, storageNames } from '../../registry/core/storage-annotations';

/** Storage classes as the plugins see them (a lister over the watch cache). */
export class StorageClassLister {
  readonly names: StorageNames;
  private readonly key: string;

  constructor(private readonly stores: StoreIndex, naming: Naming) {
    this.names = storageNames(naming);
    this.key = storeKey(naming.group('storage'), 'v1', 'storageclasses');
  }

  /** Every class; none when the server does not serve storage classes. */
  async list(): Promise<ApiObject[]> {
    return listStoredObjects(this.stores, this.key);
  }

  /** The class of that name (any cached version), or undefined. */
  async get(name: string): Promise<ApiObject | undefined> {
    const store = this.stores.get(this.key);
    if (!store || !name) return undefined;
    try {
      return await store.get(undefined, name, '0');
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }

  /** storageutil.IsDefaultAnnotation: either spelling of the default annotation is "true". */
  isDefault(sc: ApiObject): boolean {
    const ann = sc.metadata?.annotations ?? {};
    return this.names.isDefaultClassAnnotations.some((k) => ann[k] === 'true');
  }
}

const specOf = (claim: ApiObject) => (claim.spec ?? {}) as { storageClassName?: string | null };

/** helper.PersistentVolumeClaimHasClass: the beta annotation is present or spec.storageClassName is set (even to ""). */
export function claimHasClass(claim: ApiObject, names: StorageNames): boolean {
  if (claim.metadata?.annotations && names.storageClassAnnotation in claim.metadata.annotations) return true;
  const cls = specOf(claim).storageClassName;
  return cls !== undefined && cls !== null;
}

/** helper.GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
export function claimClass(claim: ApiObject, names: StorageNames): string {
  const ann = claim.metadata?.annotations;
  if (ann && names.storageClassAnnotation in ann) return String(ann[names.storageClassAnnotation]);
  return specOf(claim).storageClassName ?? '';
}

/** Whether the request is a write of the core kind `resource` itself (no subresource). */
export const isCore = (attrs: { resource: { group: string; resource: string }; subresource?: string }, resource: string): boolean =>
  attrs.resource.group === '' && attrs.resource.resource === resource && !attrs.subresource;
