/**
 * The storage annotations and groups whose names carry the vendor domain: `kubernetes.io` /
 * `k8s.io` in the kubernetes flavor, `orch.io` in the orch flavor.
 */
import { Naming } from '../../naming';

export interface StorageNames {
  /** Beta storage class of a volume or claim; read before spec.storageClassName. */
  storageClassAnnotation: string;
  /** Beta mount options of a volume (only some volume types support them). */
  mountOptionsAnnotation: string;
  /** Marks the default storage class ("true"), GA and beta spellings. */
  isDefaultClassAnnotations: string[];
  /** The volume snapshot group, a valid claim data source besides claims. */
  snapshotGroup: string;
}

export function storageNames(naming: Naming): StorageNames {
  const domain = naming.domain === 'k8s.io' ? 'kubernetes.io' : naming.domain;
  return {
    storageClassAnnotation: `volume.beta.${domain}/storage-class`,
    mountOptionsAnnotation: `volume.beta.${domain}/mount-options`,
    isDefaultClassAnnotations: [`storageclass.${domain}/is-default-class`, `storageclass.beta.${domain}/is-default-class`],
    snapshotGroup: naming.group('snapshot.storage'),
  };
}
