/** The kinds this server serves, for one naming flavor. */
import { Naming } from '../naming';
import { ResourceDef } from '../scheme/types';
import { FeatureGates } from '../scheme/feature-gates';
import { namespaceResource } from './core/namespaces/definition';
import { configMapResource } from './core/configmaps/definition';
import { secretResource } from './core/secrets/definition';
import { podResource } from './core/pods/definition';
import { podTemplateResource } from './core/pod-templates/definition';
import { limitRangeResource } from './core/limit-ranges/definition';
import { replicationControllerResource } from './core/replication-controllers/definition';
import { resourceQuotaResource } from './core/resource-quotas/definition';
import { nodeResource } from './core/nodes/definition';
import { bindingResource } from './core/bindings/definition';
import { persistentVolumeClaimResource } from './core/persistent-volume-claims/definition';
import { persistentVolumeResource } from './core/persistent-volumes/definition';
import { storageClassResource } from './storage/storage-classes/definition';
import { volumeAttachmentResource } from './storage/volume-attachments/definition';
import { csiDriverResource } from './storage/csi-drivers/definition';
import { csiNodeResource } from './storage/csi-nodes/definition';
import { csiStorageCapacityResource } from './storage/csi-storage-capacities/definition';
import { storageV1beta1Resources } from './storage/v1beta1';
import { serviceAccountResource } from './core/service-accounts/definition';
import { eventResource } from './core/events/definition';
import { eventV1Resource } from './events/events/definition';
import { eventV1beta1Resource } from './events/events/v1beta1';
import { roleResource } from './rbac/roles/definition';
import { clusterRoleResource } from './rbac/cluster-roles/definition';
import { roleBindingResource } from './rbac/role-bindings/definition';
import { clusterRoleBindingResource } from './rbac/cluster-role-bindings/definition';
import { roleV1beta1Resource } from './rbac/roles/v1beta1';
import { clusterRoleV1beta1Resource } from './rbac/cluster-roles/v1beta1';
import { roleBindingV1beta1Resource } from './rbac/role-bindings/v1beta1';
import { clusterRoleBindingV1beta1Resource } from './rbac/cluster-role-bindings/v1beta1';

import { tokenReviewResource } from './authentication/token-reviews/definition';
import { tokenReviewV1beta1Resource } from './authentication/token-reviews/v1beta1';
import { selfSubjectReviewResource } from './authentication/self-subject-reviews/definition';
import { localSubjectAccessReviewResource } from './authorization/local-subject-access-reviews/definition';
import { selfSubjectAccessReviewResource } from './authorization/self-subject-access-reviews/definition';
import { selfSubjectRulesReviewResource } from './authorization/self-subject-rules-reviews/definition';
import { subjectAccessReviewResource } from './authorization/subject-access-reviews/definition';
import { localSubjectAccessReviewV1beta1Resource } from './authorization/local-subject-access-reviews/v1beta1';
import { selfSubjectAccessReviewV1beta1Resource } from './authorization/self-subject-access-reviews/v1beta1';
import { selfSubjectRulesReviewV1beta1Resource } from './authorization/self-subject-rules-reviews/v1beta1';
import { subjectAccessReviewV1beta1Resource } from './authorization/subject-access-reviews/v1beta1';
import { mutatingWebhookConfigurationResource } from './admissionregistration/mutating-webhook-configurations/definition';
import { validatingWebhookConfigurationResource } from './admissionregistration/validating-webhook-configurations/definition';
import { validatingAdmissionPolicyResource } from './admissionregistration/validating-admission-policies/definition';
import { validatingAdmissionPolicyBindingResource } from './admissionregistration/validating-admission-policy-bindings/definition';
import { certificateSigningRequestResource } from './certificates/certificate-signing-requests/definition';
import { certificateSigningRequestV1beta1Resource } from './certificates/certificate-signing-requests/v1beta1';
import { leaseResource } from './coordination/leases/definition';
import { leaseV1beta1Resource } from './coordination/leases/v1beta1';
import { customResourceDefinitionResource } from './apiextensions/custom-resource-definitions/definition';
import { customResourceDefinitionV1beta1Resource } from './apiextensions/custom-resource-definitions/v1beta1';
import { controllerRevisionResource } from './apps/controller-revisions/definition';
import { daemonSetResource } from './apps/daemon-sets/definition';
import { statefulSetResource } from './apps/stateful-sets/definition';
import { podDisruptionBudgetResource } from './policy/pod-disruption-budgets/definition';
import { podDisruptionBudgetV1beta1Resource } from './policy/pod-disruption-budgets/v1beta1';
import { endpointsResource } from './core/endpoints/definition';
import { endpointSliceResource } from './discovery/endpoint-slices/definition';
import { endpointSliceV1beta1Resource } from './discovery/endpoint-slices/v1beta1';
import { deploymentResource } from './apps/deployments/definition';
import { replicaSetResource } from './apps/replica-sets/definition';
import { removedWorkloadResources } from './apps/removed-versions';
import { cronJobResource } from './batch/cron-jobs/definition';
import { cronJobV1beta1Resource } from './batch/cron-jobs/v1beta1';
import { jobResource } from './batch/jobs/definition';
import { componentStatusResource } from './core/component-statuses/definition';
import { ingressClassResource } from './networking/ingress-classes/definition';
import { ingressResource } from './networking/ingresses/definition';
import { ingressClassV1beta1Resource } from './networking/ingress-classes/v1beta1';
import { ingressV1beta1Resource } from './networking/ingresses/v1beta1';
import { networkPolicyResource } from './networking/network-policies/definition';
import { networkPolicyExtensionsV1beta1Resource } from './networking/network-policies/extensions-v1beta1';
import {
  horizontalPodAutoscalerV1Resource, horizontalPodAutoscalerV2Resource, horizontalPodAutoscalerV2beta1Resource, horizontalPodAutoscalerV2beta2Resource,
} from './autoscaling/horizontal-pod-autoscalers/definition';
import { serviceResource } from './core/services/definition';
import { ServiceNetwork, serviceNetworkOf } from './core/services/network';
import { flowSchemaResource } from './flowcontrol/flow-schemas/definition';
import { priorityLevelConfigurationResource } from './flowcontrol/priority-level-configurations/definition';
import { flowSchemaBetaResources } from './flowcontrol/flow-schemas/beta-versions';
import { priorityLevelConfigurationBetaResources } from './flowcontrol/priority-level-configurations/beta-versions';
import { priorityClassResource } from './scheduling/priority-classes/definition';
import { priorityClassV1beta1Resource } from './scheduling/priority-classes/v1beta1';
import { apiServiceResource } from './apiregistration/api-services/definition';
import { apiServiceV1beta1Resource } from './apiregistration/api-services/v1beta1';
import { runtimeClassResource } from './node/runtime-classes/definition';
import { runtimeClassV1beta1Resource } from './node/runtime-classes/v1beta1';

/**
 * `gates`: the --feature-gates the kinds read (defaults when omitted); `eventTtlSeconds`:
 * --event-ttl in seconds (absent or 0: events do not expire).
 * `serviceNetwork`: --service-cluster-ip-range and --service-node-port-range (absent: kube's defaults).
 */
export function builtinResources(naming: Naming, gates: FeatureGates = new FeatureGates(), opts: { eventTtlSeconds?: number; serviceNetwork?: ServiceNetwork } = {}): ResourceDef[] {
  return [
    namespaceResource(naming), configMapResource(), secretResource(naming), podResource(naming, gates),
    podTemplateResource(naming, gates),
    limitRangeResource(),
    endpointsResource(),
    serviceResource(opts.serviceNetwork ?? serviceNetworkOf('', '')),
    replicationControllerResource(naming, gates),
    resourceQuotaResource(),
    nodeResource(naming, gates),
    bindingResource(),
    persistentVolumeClaimResource(naming, gates), persistentVolumeResource(naming, gates),
    storageClassResource(naming), volumeAttachmentResource(naming), csiDriverResource(naming), csiNodeResource(naming),
    csiStorageCapacityResource(naming), serviceAccountResource(naming), eventResource(opts.eventTtlSeconds),
    // storage v1beta1 over the v1 objects (off unless --runtime-config switches it on).
    ...storageV1beta1Resources(naming),
    // apps/v1 (the same name in both flavors).
    controllerRevisionResource(),
    daemonSetResource(naming, gates),
    deploymentResource(naming, gates), replicaSetResource(naming, gates),
    statefulSetResource(naming, gates),
    // apps/v1beta2, apps/v1beta1, extensions/v1beta1 workloads over apps/v1 (off unless --runtime-config switches them on).
    ...removedWorkloadResources(naming, gates),
    tokenReviewResource(naming), selfSubjectReviewResource(naming),
    // authentication v1beta1 TokenReview: off unless --runtime-config switches it on.
    tokenReviewV1beta1Resource(naming),
    // The access reviews in the order discovery lists them.
    localSubjectAccessReviewResource(naming), selfSubjectAccessReviewResource(naming),
    selfSubjectRulesReviewResource(naming), subjectAccessReviewResource(naming),
    // The same at authorization v1beta1: off unless --runtime-config switches it on.
    localSubjectAccessReviewV1beta1Resource(naming), selfSubjectAccessReviewV1beta1Resource(naming),
    selfSubjectRulesReviewV1beta1Resource(naming), subjectAccessReviewV1beta1Resource(naming),
    clusterRoleResource(naming), clusterRoleBindingResource(naming), roleResource(naming), roleBindingResource(naming),
    // rbac v1beta1 over the v1 objects: off unless --runtime-config switches it on.
    clusterRoleV1beta1Resource(naming), clusterRoleBindingV1beta1Resource(naming), roleV1beta1Resource(naming), roleBindingV1beta1Resource(naming),
    // Both webhook configuration kinds at both versions, v1 first (the preferred version discovery names first).
    ...(['v1', 'v1beta1'] as const).flatMap((v) => [mutatingWebhookConfigurationResource(naming, v), validatingWebhookConfigurationResource(naming, v)]),
    // ValidatingAdmissionPolicy and its binding (admissionregistration/v1).
    validatingAdmissionPolicyResource(naming), validatingAdmissionPolicyBindingResource(naming),
    certificateSigningRequestResource(naming),
    // certificates v1beta1 over the v1 objects: off unless --runtime-config switches it on.
    certificateSigningRequestV1beta1Resource(naming),
    // coordination v1 Lease, and v1beta1 over the same objects (off unless --runtime-config switches it on).
    leaseResource(naming), leaseV1beta1Resource(naming), customResourceDefinitionResource(naming),
    // apiextensions v1beta1 over the v1 objects (removed in 1.22; off unless --runtime-config switches it on).
    customResourceDefinitionV1beta1Resource(naming),
    podDisruptionBudgetResource(),
    // batch/v1 (the same name in both flavors), in discovery's order.
    cronJobResource(naming, gates), jobResource(naming, gates),
    // batch/v1beta1 CronJob over the v1 objects: off unless --runtime-config=batch/v1beta1=true.
    cronJobV1beta1Resource(naming, gates),
    // autoscaling (no domain): v2 first, the preferred and storage version, then v1 over the same objects.
    horizontalPodAutoscalerV2Resource(), horizontalPodAutoscalerV1Resource(),
    // autoscaling/v2beta2 and v2beta1 over the same objects (off unless --runtime-config switches them on).
    horizontalPodAutoscalerV2beta2Resource(), horizontalPodAutoscalerV2beta1Resource(),
    // policy/v1beta1: off unless --runtime-config=policy/v1beta1=true.
    podDisruptionBudgetV1beta1Resource(),
    // networking.k8s.io/v1 in discovery's order.
    ingressClassResource(naming), ingressResource(naming), networkPolicyResource(naming),
    // networking v1beta1 IngressClass and Ingress, and extensions/v1beta1 Ingress, over the v1 objects
    // (off unless --runtime-config switches their group version on).
    ingressClassV1beta1Resource(naming), ingressV1beta1Resource(naming, 'networking'), ingressV1beta1Resource(naming, 'extensions'),
    // extensions/v1beta1 NetworkPolicy over networking/v1 (off unless --runtime-config switches it on).
    networkPolicyExtensionsV1beta1Resource(networkPolicyResource(naming)),
    // core/v1 ComponentStatus: read-only, answered by lib/api/component-status/.
    componentStatusResource(),
    // discovery/v1 EndpointSlice, and v1beta1 over the same objects (off unless --runtime-config switches it on).
    endpointSliceResource(naming), endpointSliceV1beta1Resource(naming),
    // flowcontrol.apiserver.k8s.io/v1: API priority and fairness, in discovery's order.
    flowSchemaResource(naming.group('flowcontrol.apiserver')), priorityLevelConfigurationResource(naming.group('flowcontrol.apiserver')),
    // Its v1beta1, v1beta2 and v1beta3 over the v1 objects (off unless --runtime-config switches them on).
    ...flowSchemaBetaResources(naming.group('flowcontrol.apiserver')), ...priorityLevelConfigurationBetaResources(naming.group('flowcontrol.apiserver')),
    // scheduling.k8s.io/v1 PriorityClass.
    priorityClassResource(naming), priorityClassV1beta1Resource(naming),
    // node.k8s.io/v1 RuntimeClass.
    runtimeClassResource(naming), runtimeClassV1beta1Resource(naming),
    // events.k8s.io/v1 Event over the core/v1 Events' keys and cache (core/v1 Event, listed before it, owns them).
    eventV1Resource(naming, opts.eventTtlSeconds),
    // events.k8s.io/v1beta1 over the same objects (off unless --runtime-config switches it on).
    eventV1beta1Resource(naming, opts.eventTtlSeconds),
    // apiregistration.k8s.io/v1 APIService: the aggregation layer's registrations (lib/aggregation/).
    apiServiceResource(naming),
    // apiregistration v1beta1 over the v1 objects (removed in 1.22; off unless --runtime-config switches it on).
    apiServiceV1beta1Resource(naming),
  ];
}
