/** The kinds this server serves, for one naming flavor. */
import { Naming } from '../naming';
import { ResourceDef } from '../scheme/types';
import { FeatureGates } from '../scheme/feature-gates';
import { namespaceResource } from './core/namespaces';
import { configMapResource } from './core/configmaps';
import { secretResource } from './core/secrets';
import { podResource } from './core/pods';
import { persistentVolumeClaimResource } from './core/persistent-volume-claims';
import { persistentVolumeResource } from './core/persistent-volumes';
import { storageClassResource } from './storage/storage-classes';
import { volumeAttachmentResource } from './storage/volume-attachments';
import { csiDriverResource } from './storage/csi-drivers';
import { csiNodeResource } from './storage/csi-nodes';
import { csiStorageCapacityResource } from './storage/csi-storage-capacities';
import { serviceAccountResource } from './core/service-accounts';
import { eventResource } from './core/events';
import { roleResource } from './rbac/roles';
import { clusterRoleResource } from './rbac/cluster-roles';
import { roleBindingResource } from './rbac/role-bindings';
import { clusterRoleBindingResource } from './rbac/cluster-role-bindings';

import { tokenReviewResource } from './authentication/token-reviews';
import { selfSubjectReviewResource } from './authentication/self-subject-reviews';
import { localSubjectAccessReviewResource } from './authorization/local-subject-access-reviews';
import { selfSubjectAccessReviewResource } from './authorization/self-subject-access-reviews';
import { selfSubjectRulesReviewResource } from './authorization/self-subject-rules-reviews';
import { subjectAccessReviewResource } from './authorization/subject-access-reviews';
import { mutatingWebhookConfigurationResource } from './admissionregistration/mutating-webhook-configurations';
import { validatingWebhookConfigurationResource } from './admissionregistration/validating-webhook-configurations';
import { certificateSigningRequestResource } from './certificates/certificate-signing-requests';
import { leaseResource } from './coordination/leases';
import { customResourceDefinitionResource } from './apiextensions/custom-resource-definitions';

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
    tokenReviewResource(naming), selfSubjectReviewResource(naming),
    // The access reviews in the order discovery lists them.
    localSubjectAccessReviewResource(naming), selfSubjectAccessReviewResource(naming),
    selfSubjectRulesReviewResource(naming), subjectAccessReviewResource(naming),
    clusterRoleResource(naming), clusterRoleBindingResource(naming), roleResource(naming), roleBindingResource(naming),
    // Both webhook configuration kinds at both versions, v1 first (the preferred version discovery names first).
    ...(['v1', 'v1beta1'] as const).flatMap((v) => [mutatingWebhookConfigurationResource(naming, v), validatingWebhookConfigurationResource(naming, v)]),
    certificateSigningRequestResource(naming),
    leaseResource(naming), customResourceDefinitionResource(naming),
  ];
}
