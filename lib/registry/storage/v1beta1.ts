/**
 * storage.k8s.io/v1beta1 (storage.orch.io/v1beta1 in the orch flavor): StorageClass,
 * VolumeAttachment (with `/status`), CSIDriver and CSINode, removed from Kubernetes in 1.22, and
 * CSIStorageCapacity (first served in 1.21, removed in 1.27). Served only when `--runtime-config`
 * switches the group version (or a resource) on, deprecated with Kubernetes' warning.
 *
 * Each is its v1 kind under another version: the same fields, defaults (pkg/apis/storage/v1beta1/
 * defaults.go sets what v1's does: reclaimPolicy Delete, volumeBindingMode Immediate; a CSIDriver's
 * attachRequired true, podInfoOnMount, storageCapacity and requiresRepublish false, fsGroupPolicy
 * ReadWriteOnceWithFSType, volumeLifecycleModes [Persistent]), validation and Table columns, and
 * its objects are v1's (stored at v1, served relabelled: served-version.ts). Kubernetes' v1beta1
 * conversions are field for field.
 */
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { schemaAtVersion } from '../../scheme/versioned-schema';
import { servedOverStorage } from '../served-version';
import { storageClassResource } from './storage-classes/definition';
import { volumeAttachmentResource } from './volume-attachments/definition';
import { csiDriverResource } from './csi-drivers/definition';
import { csiNodeResource } from './csi-nodes/definition';
import { csiStorageCapacityResource } from './csi-storage-capacities/definition';

type Release = [major: number, minor: number];

/** `v1` at v1beta1 with Kubernetes' API lifecycle of the v1beta1 kind (zz_generated.prerelease-lifecycle.go). */
function atV1beta1(v1: ResourceDef, deprecatedIn: Release, removedIn: Release, introducedIn?: Release): ResourceDef {
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    // A copy, so that OpenAPI names its struct fields in the v1beta1 package.
    schema: schemaAtVersion(v1.schema, 'io.k8s.api.storage.v1', 'io.k8s.api.storage.v1beta1'),
    ...(introducedIn ? { introducedIn } : {}),
    deprecation: { deprecatedIn, removedIn, replacement: { group: v1.group, version: 'v1', kind: v1.kind } },
  }, 'v1');
}

/** The five storage v1beta1 defs, in the order of their v1 defs in the catalogue. */
export function storageV1beta1Resources(naming: Naming): ResourceDef[] {
  return [
    atV1beta1(storageClassResource(naming), [1, 19], [1, 22]),
    atV1beta1(volumeAttachmentResource(naming), [1, 19], [1, 22]),
    atV1beta1(csiDriverResource(naming), [1, 19], [1, 22]),
    atV1beta1(csiNodeResource(naming), [1, 17], [1, 22]),
    atV1beta1(csiStorageCapacityResource(naming), [1, 24], [1, 27], [1, 21]),
  ];
}
