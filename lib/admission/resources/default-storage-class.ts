/**
 * DefaultStorageClass: a claim created without a class (no beta class annotation and
 * spec.storageClassName unset; "" asks for no class and is kept) gets the class marked default
 * with `storageclass.<domain>/is-default-class: "true"` (or the beta spelling). Nothing changes
 * when no class is default; updates are left alone.
 *
 * Several default classes refuse the claim (403, Kubernetes' words up to 1.25: `<n> default
 * StorageClasses were found`), as the spec's table says. Kubernetes 1.26 and later pick the
 * newest of them instead.
 */
import { AdmissionPlugin } from '../interfaces';
import { errors } from '../../meta/api-errors';
import { admissionForbidden } from './admission-forbidden';
import { StorageClassLister, claimHasClass, isCore } from './storage-classes';

/** The DefaultStorageClass plugin over the server's storage classes. */
export function defaultStorageClass(classes: StorageClassLister): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    resources: ['/persistentvolumeclaims'],
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || !isCore(attrs, 'persistentvolumeclaims') || !attrs.object) return;
      if (claimHasClass(attrs.object, classes.names)) return;
      const defaults = (await classes.list()).filter((sc) => classes.isDefault(sc));
      if (!defaults.length) return;
      if (defaults.length > 1) {
        throw admissionForbidden(attrs, errors.internal(`${defaults.length} default StorageClasses were found`).message);
      }
      const spec = (attrs.object.spec ??= {}) as { storageClassName?: string };
      spec.storageClassName = defaults[0].metadata?.name as string;
    },
  };
}
