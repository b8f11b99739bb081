/**
 * The storage in-use protection finalizers (`kubernetes.io/pvc-protection` and
 * `kubernetes.io/pv-protection` in Kubernetes, under the flavor's label domain here): added by
 * the StorageObjectInUseProtection plugin, removed by the pvc-protection and pv-protection
 * controllers once nothing uses the object.
 */
import { Naming } from '../../naming';

/** `<labelDomain>/pvc-protection` */
export const pvcProtectionFinalizer = (naming: Naming): string => `${naming.labelDomain}/pvc-protection`;

/** `<labelDomain>/pv-protection` */
export const pvProtectionFinalizer = (naming: Naming): string => `${naming.labelDomain}/pv-protection`;
