/**
 * Schemas of the persistent-volume sources (core/v1 PersistentVolumeSource): the persistent
 * variants of the pod volume sources, whose secret references name a namespace too. Struct
 * markers follow Kubernetes (secret references are atomic).
 */
import { Schema, atomicList, bool, int32, object, str, stringMap } from '../../../scheme/schema';
import { objectReference } from '../object-reference-schema';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

/** SecretReference: a secret in any namespace. */
export const secretReference: Schema = object({
  name: str('name is unique within a namespace to reference a secret resource.'),
  namespace: str('namespace defines the space within which the secret name must be unique.'),
}, atomic);

const fsType = str('fsType is the filesystem type to mount; "ext4" is implicitly inferred if unspecified.');
const readOnly = bool('readOnly forces the read-only setting in volume mounts; default false.');

/** Every persistent source by field name, in the order Kubernetes declares them. */
export const persistentSources: Record<string, Schema> = {
  gcePersistentDisk: object({ pdName: str(), fsType, partition: int32(), readOnly }, { required: ['pdName'] }),
  awsElasticBlockStore: object({ volumeID: str(), fsType, partition: int32(), readOnly }, { required: ['volumeID'] }),
  hostPath: object({ path: str('path of the directory on the host.'), type: str('type for HostPath Volume; defaults to "".') }, { required: ['path'] }),
  glusterfs: object({ endpoints: str(), path: str(), readOnly, endpointsNamespace: str() }, { required: ['endpoints', 'path'] }),
  nfs: object({ server: str(), path: str(), readOnly }, { required: ['server', 'path'] }),
  rbd: object({
    monitors: atomicList(str()), image: str(), fsType, pool: str('Default is rbd.'), user: str('Default is admin.'),
    keyring: str('Default is /etc/ceph/keyring.'), secretRef: secretReference, readOnly,
  }, { required: ['monitors', 'image'] }),
  iscsi: object({
    targetPortal: str('iSCSI target portal: an IP or ip_addr:port.'), iqn: str('iSCSI Qualified Name.'), lun: int32('iSCSI target lun number.'),
    iscsiInterface: str('Defaults to "default" (tcp transport).'), fsType, readOnly, portals: atomicList(str()),
    chapAuthDiscovery: bool(), chapAuthSession: bool(), secretRef: secretReference, initiatorName: str(),
  }, { required: ['targetPortal', 'iqn', 'lun'] }),
  cinder: object({ volumeID: str(), fsType, readOnly, secretRef: secretReference }, { required: ['volumeID'] }),
  cephfs: object({
    monitors: atomicList(str()), path: str(), user: str('Default is admin.'), secretFile: str(), secretRef: secretReference, readOnly,
  }, { required: ['monitors'] }),
  fc: object({ targetWWNs: atomicList(str()), lun: int32(), fsType, readOnly, wwids: atomicList(str()) }),
  flocker: object({ datasetName: str('Deprecated.'), datasetUUID: str() }),
  flexVolume: object({ driver: str(), fsType, secretRef: secretReference, readOnly, options: stringMap() }, { required: ['driver'] }),
  azureFile: object({ secretName: str(), shareName: str(), readOnly, secretNamespace: str() }, { required: ['secretName', 'shareName'] }),
  vsphereVolume: object({ volumePath: str(), fsType, storagePolicyName: str(), storagePolicyID: str() }, { required: ['volumePath'] }),
  quobyte: object({ registry: str(), volume: str(), readOnly, user: str(), group: str(), tenant: str() }, { required: ['registry', 'volume'] }),
  azureDisk: object({
    diskName: str(), diskURI: str(), cachingMode: str('None, Read Only, Read Write.'), fsType, readOnly, kind: str('Shared, Dedicated or Managed.'),
  }, { required: ['diskName', 'diskURI'] }),
  photonPersistentDisk: object({ pdID: str(), fsType }, { required: ['pdID'] }),
  portworxVolume: object({ volumeID: str(), fsType, readOnly }, { required: ['volumeID'] }),
  scaleIO: object({
    gateway: str(), system: str(), secretRef: secretReference, sslEnabled: bool(), protectionDomain: str(), storagePool: str(),
    storageMode: str('ThickProvisioned or ThinProvisioned (default).'), volumeName: str(), fsType: str('Default is "xfs".'), readOnly,
  }, { required: ['gateway', 'system', 'secretRef'] }),
  local: object({
    path: str('the full path to the volume on the node: a directory or a block device.'),
    fsType: str('only applies when path is a block device; default: automatic.'),
  }, { required: ['path'] }),
  storageos: object({ volumeName: str(), volumeNamespace: str(), fsType, readOnly, secretRef: objectReference }),
  csi: object({
    driver: str('the name of the driver to use for this volume.'),
    volumeHandle: str('the unique volume name returned by the CSI volume plugin.'),
    readOnly: bool('readOnly value to pass to ControllerPublishVolumeRequest; defaults to false.'),
    fsType: str('fsType to mount.'),
    volumeAttributes: stringMap('volumeAttributes of the volume to publish.'),
    controllerPublishSecretRef: secretReference,
    nodeStageSecretRef: secretReference,
    nodePublishSecretRef: secretReference,
    controllerExpandSecretRef: secretReference,
  }, { required: ['driver', 'volumeHandle'] }),
};
