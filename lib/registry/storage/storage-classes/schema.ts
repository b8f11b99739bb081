/** Schema of storage/v1 StorageClass. */
import { Schema, atomicList, bool, str, stringMap } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { topologySelectorTerm } from '../../core/node-selector-schema';

export const storageClassSchema: Schema = kindSchema({
  provisioner: str('the type of the provisioner.'),
  parameters: stringMap('parameters for the provisioner that should create volumes of this storage class.'),
  reclaimPolicy: str('Delete (default) or Retain: the reclaim policy of dynamically provisioned volumes.'),
  mountOptions: atomicList(str(), 'mount options of dynamically provisioned volumes, e.g. ["ro", "soft"]; not validated.'),
  allowVolumeExpansion: bool('whether the storage class allows volume expand.'),
  volumeBindingMode: str('Immediate (default) or WaitForFirstConsumer.'),
  allowedTopologies: atomicList(topologySelectorTerm, 'restricts the node topologies where volumes can be dynamically provisioned; empty means no restriction.'),
}, 'StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned.');
