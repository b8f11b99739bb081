/**
 * PersistentVolumeClaimResize: an update that grows a claim's spec.resources.requests.storage
 * is refused (403) unless the claim is Bound and its class, the same before and after, sets
 * allowVolumeExpansion: true. Shrinking and other changes are left to the claim's validation.
 */
import { AdmissionPlugin } from '../interfaces';
import { ApiObject } from '../../scheme/types';
import { compareQuantities, parseQuantity, tryParseQuantity } from '../../meta/quantity';
import { admissionForbidden } from './admission-forbidden';
import { StorageClassLister, claimClass, isCore } from './storage-classes';

const ZERO = parseQuantity('0');
const requestOf = (claim: ApiObject) =>
  tryParseQuantity((claim.spec as { resources?: { requests?: { storage?: unknown } } } | undefined)?.resources?.requests?.storage) ?? ZERO;

/** The PersistentVolumeClaimResize plugin over the server's storage classes. */
export function persistentVolumeClaimResize(classes: StorageClassLister): AdmissionPlugin {
  const allowResize = async (claim: ApiObject, old: ApiObject): Promise<boolean> => {
    const cls = claimClass(claim, classes.names);
    if (!cls || cls !== claimClass(old, classes.names)) return false;
    return (await classes.get(cls))?.allowVolumeExpansion === true;
  };
  return {
    name: 'PersistentVolumeClaimResize',
    resources: ['/persistentvolumeclaims'],
    async validate(attrs) {
      if (attrs.operation !== 'UPDATE' || !isCore(attrs, 'persistentvolumeclaims') || !attrs.object || !attrs.oldObject) return;
      if (compareQuantities(requestOf(attrs.object), requestOf(attrs.oldObject)) <= 0) return;
      if ((attrs.oldObject.status as { phase?: string } | undefined)?.phase !== 'Bound') {
        throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
      }
      if (!await allowResize(attrs.object, attrs.oldObject)) {
        throw admissionForbidden(attrs, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      }
    },
  };
}
