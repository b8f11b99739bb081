/** The kinds this server serves, for one naming flavor. */
import { Naming } from '../naming';
import { ResourceDef } from './types';
import { FeatureGates } from './feature-gates';
import { namespaceResource } from '../registry/core/namespaces';
import { configMapResource } from '../registry/core/configmaps';
import { secretResource } from '../registry/core/secrets';
import { podResource } from '../registry/core/pods';
import { persistentVolumeClaimResource } from '../registry/core/persistent-volume-claims';
import { persistentVolumeResource } from '../registry/core/persistent-volumes';
import { storageClassResource } from '../registry/storage/storage-classes';
import { volumeAttachmentResource } from '../registry/storage/volume-attachments';
import { csiDriverResource } from '../registry/storage/csi-drivers';
import { csiNodeResource } from '../registry/storage/csi-nodes';
import { csiStorageCapacityResource } from '../registry/storage/csi-storage-capacities';
import { serviceAccountResource } from '../registry/core/service-accounts';
import { eventResource } from '../registry/core/events';
import { roleResource } from '../registry/rbac/roles';
import { clusterRoleResource } from '../registry/rbac/cluster-roles';
import { roleBindingResource } from '../registry/rbac/role-bindings';
import { clusterRoleBindingResource } from '../registry/rbac/cluster-role-bindings';

import { selfSubjectReviewResource, tokenReviewResource } from '../registry/authentication/kinds';
import { authorizationResources } from '../registry/authorization/kinds';
import { webhookConfigurationResources } from '../registry/admissionregistration/webhook-configurations';
import { certificateSigningRequestResource } from '../registry/certificates/certificate-signing-requests';
import { leaseResource } from '../registry/coordination/leases';
import { customResourceDefinitionResource } from '../registry/apiextensions/custom-resource-definitions';

/**
 * `gates`: the --feature-gates the kinds read (defaults when omitted); `eventTtlSeconds`:
 * --event-ttl in seconds (absent or 0: events do not expire).
 */
export function builtinResources(naming: Naming, gates: FeatureGates = new FeatureGates(), opts: { eventTtlSeconds?: number } = {}): ResourceDef[] {
  return [
    namespaceResource(naming), configMapResource(), secretResource(naming), podResource(naming, gates),
    persistentVolumeClaimResource(naming, gates), persistentVolumeResource(naming, gates),
    storageClassResource(naming), volumeAttachmentResource(naming), csiDriverResource(naming), csiNodeResource(naming),
    csiStorageCapacityResource(naming), serviceAccountResource(naming), eventResource(opts.eventTtlSeconds),
    tokenReviewResource(naming), selfSubjectReviewResource(naming), ...authorizationResources(naming),
    clusterRoleResource(naming), clusterRoleBindingResource(naming), roleResource(naming), roleBindingResource(naming),
    ...webhookConfigurationResources(naming), certificateSigningRequestResource(naming),
    leaseResource(naming), customResourceDefinitionResource(naming),
  ];
}
