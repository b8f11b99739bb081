/** core/v1 PersistentVolumeSpec: a PersistentVolume's spec and a VolumeAttachment's inline volume spec. */
import { Schema, atomicList, object, str } from '../../../scheme/schema';
import { objectReference } from '../object-reference-schema';
import { persistentSources } from './persistent-sources-schema';
import { resourceList } from '../quantity-schema';
import { nodeSelector } from '../node-selector-schema';

/** PersistentVolumeSpec: also the inline spec of a VolumeAttachment source. */
export const persistentVolumeSpec: Schema = object({
  capacity: resourceList("capacity is the description of the persistent volume's resources and capacity."),
  ...persistentSources,
  accessModes: atomicList(str(), 'accessModes contains all ways the volume can be mounted.'),
  claimRef: { ...objectReference, 'x-kubernetes-map-type': 'granular', description: 'claimRef is part of a bi-directional binding between a volume and a claim.' },
  persistentVolumeReclaimPolicy: str('Retain (default for manually created volumes), Delete (default for dynamically provisioned volumes) or Recycle (deprecated).'),
  storageClassName: str('the name of StorageClass to which this persistent volume belongs; empty means no class.'),
  mountOptions: atomicList(str(), 'the list of mount options, e.g. ["ro", "soft"]; not validated.'),
  volumeMode: str('Block or Filesystem; Filesystem when absent.'),
  nodeAffinity: object({ required: nodeSelector }, { description: 'the constraints on the nodes this volume can be accessed from.' }),
});
