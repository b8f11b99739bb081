/**
 * Schemas of the storage group's kinds (storage/v1): StorageClass, VolumeAttachment, CSIDriver,
 * CSINode, CSIStorageCapacity.
 */
import { Schema, atomicList, bool, int32, int64, mapList, object, setList, str, stringMap, time } from '../schema';
import { kindSchema } from './meta';
import { labelSelector, persistentVolumeSpec, quantity, topologySelectorTerm } from './core-storage';

export const storageClassSchema: Schema = kindSchema({
  provisioner: str('the type of the provisioner.'),
  parameters: stringMap('parameters for the provisioner that should create volumes of this storage class.'),
  reclaimPolicy: str('Delete (default) or Retain: the reclaim policy of dynamically provisioned volumes.'),
  mountOptions: atomicList(str(), 'mount options of dynamically provisioned volumes, e.g. ["ro", "soft"]; not validated.'),
  allowVolumeExpansion: bool('whether the storage class allows volume expand.'),
  volumeBindingMode: str('Immediate (default) or WaitForFirstConsumer.'),
  allowedTopologies: atomicList(topologySelectorTerm, 'restricts the node topologies where volumes can be dynamically provisioned; empty means no restriction.'),
}, 'StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned.');

const volumeError: Schema = object({
  time: time('the time the error was encountered.'),
  message: str('the error encountered during Attach or Detach; may be logged, so no sensitive information.'),
});

export const volumeAttachmentSchema: Schema = kindSchema({
  spec: object({
    attacher: str('the name of the volume driver that MUST handle this request.'),
    source: object({
      persistentVolumeName: str('the name of the persistent volume to attach.'),
      inlineVolumeSpec: { ...persistentVolumeSpec, description: 'the source information for an inline volume being migrated to CSI (beta).' },
    }, { description: 'the volume that should be attached: exactly one member.' }),
    nodeName: str('the node that the volume should be attached to.'),
  }, { required: ['attacher', 'source', 'nodeName'] }),
  status: object({
    attached: bool('whether the volume is successfully attached; set only by the attacher.'),
    attachmentMetadata: stringMap('information returned by a successful attach, passed to later wait-for-attach or mount calls.'),
    attachError: volumeError,
    detachError: volumeError,
  }, { required: ['attached'] }),
}, 'VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node.');

export const csiDriverSchema: Schema = kindSchema({
  spec: object({
    attachRequired: bool('whether the driver needs an attach operation; immutable.'),
    podInfoOnMount: bool('whether workload information is passed on mount; default false; immutable.'),
    volumeLifecycleModes: setList(str(), 'Persistent (default) and/or Ephemeral; immutable.'),
    storageCapacity: bool('whether the scheduler considers reported storage capacity.'),
    fsGroupPolicy: str('ReadWriteOnceWithFSType (default), File or None; immutable.'),
    tokenRequests: atomicList(object({
      audience: str('the intended audience of the token.'),
      expirationSeconds: int64('the duration of validity of the token.'),
    }, { required: ['audience'] }), 'service account tokens passed to the driver on publish.'),
    requiresRepublish: bool('whether publish is called periodically; default false.'),
  }),
}, 'CSIDriver captures information about a Container Storage Interface (CSI) volume driver deployed on the cluster.');

export const csiNodeSchema: Schema = kindSchema({
  spec: object({
    drivers: mapList(object({
      name: str('the name of the CSI driver this object refers to.'),
      nodeID: str('the node from the driver point of view.'),
      topologyKeys: atomicList(str(), 'the topology keys the driver supports.'),
      allocatable: object({ count: int32('the maximum number of unique volumes managed by the driver usable on a node; unset is unlimited.') }),
    }, { required: ['name', 'nodeID'] }), ['name'], 'information on all CSI drivers on the node.'),
  }, { required: ['drivers'] }),
}, 'CSINode holds information about all CSI drivers installed on a node.');

export const csiStorageCapacitySchema: Schema = kindSchema({
  nodeTopology: { ...labelSelector, description: 'the nodes that have access to the storage; unset means none, empty means all; immutable.' },
  storageClassName: str('the name of the StorageClass that the reported capacity applies to; immutable.'),
  capacity: quantity('the value reported by the CSI driver in its GetCapacityResponse; unset means unknown.'),
  maximumVolumeSize: quantity('the largest size usable in a CreateVolumeRequest; falls back to capacity when unset.'),
}, 'CSIStorageCapacity stores the result of one CSI GetCapacity call.');
