/** core/v1 PersistentVolumeClaimSpec: a claim's spec and an ephemeral volume's claim template. */
import { Schema, atomicList, object, str } from '../../../scheme/schema';
import { labelSelector } from '../../../scheme/meta-schema';
import { typedLocalObjectReference } from '../object-reference-schema';
import { resourceList } from '../quantity-schema';

/** PersistentVolumeClaimSpec: also the spec of an ephemeral volume's claim template. */
export const persistentVolumeClaimSpec: Schema = object({
  accessModes: atomicList(str(), 'the desired access modes the volume should have.'),
  selector: labelSelector,
  resources: object({
    limits: resourceList('the maximum amount of compute resources allowed.'),
    requests: resourceList('the minimum amount of compute resources required.'),
  }),
  volumeName: str('the binding reference to the PersistentVolume backing this claim.'),
  storageClassName: str('the name of the StorageClass required by the claim.'),
  volumeMode: str('what type of volume is required by the claim; Filesystem when absent.'),
  dataSource: typedLocalObjectReference,
  dataSourceRef: typedLocalObjectReference,
});
