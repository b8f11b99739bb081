/** Schema of storage/v1 CSIStorageCapacity. */
import { fieldOfType } from '../../../scheme/type-names';
import { Schema, str } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { quantity } from '../../core/quantity-schema';

export const csiStorageCapacitySchema: Schema = kindSchema({
  nodeTopology: fieldOfType(labelSelector, { description: 'the nodes that have access to the storage; unset means none, empty means all; immutable.' }),
  storageClassName: str('the name of the StorageClass that the reported capacity applies to; immutable.'),
  capacity: quantity('the value reported by the CSI driver in its GetCapacityResponse; unset means unknown.'),
  maximumVolumeSize: quantity('the largest size usable in a CreateVolumeRequest; falls back to capacity when unset.'),
}, 'CSIStorageCapacity stores the result of one CSI GetCapacity call.');
