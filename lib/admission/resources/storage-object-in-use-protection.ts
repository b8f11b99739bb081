/**
 * StorageObjectInUseProtection: every new PersistentVolumeClaim gets the pvc-protection
 * finalizer and every new PersistentVolume the pv-protection finalizer, so that deleting one
 * in use only marks it Terminating; the protection controllers
 * (lib/controllers/pvc-protection-controller.ts, pv-protection-controller.ts) remove the
 * finalizer once no pod uses the claim / no claim is bound to the volume.
 */
import { AdmissionPlugin } from '../interfaces';
import { Naming } from '../../naming';
import { isCore } from './storage-classes';
import { pvProtectionFinalizer, pvcProtectionFinalizer } from './protection-finalizers';

/** The StorageObjectInUseProtection plugin for the flavor's finalizer names. */
export function storageObjectInUseProtection(naming: Naming): AdmissionPlugin {
  const pvc = pvcProtectionFinalizer(naming);
  const pv = pvProtectionFinalizer(naming);
  return {
    name: 'StorageObjectInUseProtection',
    resources: ['/persistentvolumeclaims', '/persistentvolumes'],
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || !attrs.object) return;
      const finalizer = isCore(attrs, 'persistentvolumeclaims') ? pvc : isCore(attrs, 'persistentvolumes') ? pv : undefined;
      if (!finalizer) return;
      const meta = (attrs.object.metadata ??= {});
      const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}
