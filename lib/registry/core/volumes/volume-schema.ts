/**
 * Schema of a pod volume (core/v1 Volume): a name and one source. The shapes the persistent
 * sources share with PersistentVolume come from persistent-sources-schema.ts; the pod variants whose
 * secret references are local (LocalObjectReference) are declared here. List and struct
 * markers follow Kubernetes' types.go (items and sources are atomic lists, references atomic).
 */
import { goType } from '../../../scheme/type-names';
import { Schema, atomicList, bool, int32, int64, object, str, stringMap } from '../../../scheme/schema';
import { objectMeta } from '../../../scheme/meta-schema';
import { localObjectReference } from '../object-reference-schema';
import { persistentSources } from './persistent-sources-schema';
import { persistentVolumeClaimSpec } from './persistent-volume-claim-spec-schema';
import { quantity } from '../quantity-schema';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

const fsType = str('fsType to mount, e.g. "ext4", "xfs", "ntfs"; "ext4" when unset.');
const readOnly = bool('readOnly forces the read-only setting in volume mounts; default false.');
const defaultMode = int32('Mode bits of created files by default: 0000 to 0777 (0 to 511 in JSON); default 0644 (420).');
const optional = bool('Whether the referenced object (and, with items, its keys) must exist.');

/** KeyToPath: one key of a ConfigMap or Secret projected to a relative path. */
export const keyToPath: Schema = goType('io.k8s.api.core.v1.KeyToPath', object({
  key: str('The key to project.'),
  path: str('The relative path of the file; may not be absolute, contain ".." or start with "..".'),
  mode: int32('Mode bits of this file: 0000 to 0777; the volume defaultMode when unset.'),
}, { required: ['key', 'path'] }));

/** ObjectFieldSelector (atomic): a field of the workload (downward API). */
export const objectFieldSelector: Schema = goType('io.k8s.api.core.v1.ObjectFieldSelector', object({
  apiVersion: str('Version of the schema the FieldPath is written in; "v1" when unset.'),
  fieldPath: str('Path of the field to select in the specified API version.'),
}, { required: ['fieldPath'], ...atomic }));

/** ResourceFieldSelector (atomic): a container resource (downward API). */
export const resourceFieldSelector: Schema = goType('io.k8s.api.core.v1.ResourceFieldSelector', object({
  containerName: str('Container name: required for volumes, optional for env vars.'),
  resource: str('Required: resource to select, e.g. limits.cpu.'),
  divisor: quantity('Specifies the output format of the exposed resources; defaults to "1".'),
}, { required: ['resource'], ...atomic }));

/** DownwardAPIVolumeFile: one workload field or container resource written to a file. */
export const downwardAPIVolumeFile: Schema = goType('io.k8s.api.core.v1.DownwardAPIVolumeFile', object({
  path: str('Required: the relative path of the file to be created; UTF-8, no "..".'),
  fieldRef: objectFieldSelector,
  resourceFieldRef: resourceFieldSelector,
  mode: int32('Mode bits of this file: 0000 to 0777; the volume defaultMode when unset.'),
}, { required: ['path'] }));

const items = atomicList(keyToPath, 'Keys to project; without items every key becomes a file named by the key.');
const downwardItems = atomicList(downwardAPIVolumeFile, 'Downward API volume files.');

/** One entry of projected.sources: exactly one of its fields. */
export const volumeProjection: Schema = goType('io.k8s.api.core.v1.VolumeProjection', object({
  secret: object({ name: str('Name of the referent.'), items, optional }),
  configMap: object({ name: str('Name of the referent.'), items, optional }),
  downwardAPI: object({ items: downwardItems }),
  serviceAccountToken: object({
    audience: str('Intended audience of the token; empty means the API server\'s identifier.'),
    expirationSeconds: int64('Requested token lifetime: default 1 hour, at least 10 minutes.'),
    path: str('Path relative to the mount point of the file to project the token into.'),
  }, { required: ['path'] }),
}));

/** Every pod volume source by field name, in Kubernetes' validation order. */
export const volumeSources: Record<string, Schema> = {
  emptyDir: object({
    medium: str('What type of storage medium should back this directory: "" or "Memory".'),
    sizeLimit: quantity('Total amount of local storage required for this directory.'),
  }),
  hostPath: persistentSources.hostPath,
  gitRepo: object({
    repository: str('Repository URL.'),
    revision: str('Commit hash for the specified revision.'),
    directory: str('Target directory name; must not contain or start with ".."; "." means the repository itself.'),
  }, { required: ['repository'] }),
  secret: object({ secretName: str('Name of the secret in the workload\'s namespace.'), items, defaultMode, optional }),
  iscsi: object({
    targetPortal: str('iSCSI target portal: an IP or ip_addr:port.'),
    iqn: str('iSCSI Qualified Name.'),
    lun: int32('iSCSI target lun number.'),
    iscsiInterface: str('iSCSI interface name that uses an iSCSI transport; "default" (tcp) when unset.'),
    fsType, readOnly,
    portals: atomicList(str(), 'iSCSI target portal list: IPs or ip_addr:port.'),
    chapAuthDiscovery: bool('Whether iSCSI discovery CHAP authentication is supported.'),
    chapAuthSession: bool('Whether iSCSI session CHAP authentication is supported.'),
    secretRef: localObjectReference,
    initiatorName: str('Custom iSCSI initiator name; creates a new interface <target portal>:<volume name>.'),
  }, { required: ['targetPortal', 'iqn', 'lun'] }),
  flocker: persistentSources.flocker,
  persistentVolumeClaim: object({
    claimName: str('Name of a PersistentVolumeClaim in the workload\'s namespace.'),
    readOnly,
  }, { required: ['claimName'] }),
  quobyte: persistentSources.quobyte,
  downwardAPI: object({ items: downwardItems, defaultMode }),
  fc: persistentSources.fc,
  flexVolume: object({
    driver: str('Name of the driver to use for this volume.'),
    fsType,
    secretRef: localObjectReference,
    readOnly,
    options: stringMap('Extra command options, if any.'),
  }, { required: ['driver'] }),
  configMap: object({ name: str('Name of the ConfigMap in the workload\'s namespace.'), items, defaultMode, optional }),
  vsphereVolume: persistentSources.vsphereVolume,
  photonPersistentDisk: persistentSources.photonPersistentDisk,
  portworxVolume: persistentSources.portworxVolume,
  storageos: object({
    volumeName: str('Human-readable name of the StorageOS volume; unique within a namespace.'),
    volumeNamespace: str('Scope of the volume within StorageOS; the workload\'s namespace when unset.'),
    fsType, readOnly,
    secretRef: localObjectReference,
  }),
  projected: object({ sources: atomicList(volumeProjection, 'The volume projections.'), defaultMode }),
  scaleIO: object({
    gateway: str('Host address of the ScaleIO API Gateway.'),
    system: str('Name of the storage system as configured in ScaleIO.'),
    secretRef: localObjectReference,
    sslEnabled: bool('Enable/disable SSL communication with the Gateway; default false.'),
    protectionDomain: str('Name of the ScaleIO Protection Domain for the configured storage.'),
    storagePool: str('ScaleIO Storage Pool associated with the protection domain.'),
    storageMode: str('ThickProvisioned or ThinProvisioned (default).'),
    volumeName: str('Name of a volume already created in the ScaleIO system.'),
    fsType: str('fsType to mount; default "xfs".'),
    readOnly,
  }, { required: ['gateway', 'system', 'secretRef'] }),
  csi: object({
    driver: str('Name of the CSI driver that handles this volume.'),
    readOnly: bool('Read-only configuration for the volume; defaults to false (read/write).'),
    fsType: str('fsType to mount; empty lets the driver choose.'),
    volumeAttributes: stringMap('Driver-specific properties passed to the CSI driver.'),
    nodePublishSecretRef: localObjectReference,
  }, { required: ['driver'] }),
  ephemeral: object({
    volumeClaimTemplate: object({
      metadata: objectMeta,
      spec: persistentVolumeClaimSpec,
    }, { required: ['spec'], description: 'The claim created for the workload, named <workload name>-<volume name>.' }),
  }),
};

/** Volume: a DNS-label name unique in the workload and exactly one source. */
export const volume: Schema = goType('io.k8s.api.core.v1.Volume', object({
  name: str('Name of the volume: a DNS label, unique within the workload.'),
  ...volumeSources,
}, { required: ['name'] }));
