/**
 * Schema of policy/v1 PodDisruptionBudget: how many of the pods a selector picks may be down at
 * once (minAvailable or maxUnavailable, each a count or a percentage), and the status the
 * disruption controller keeps (conditions merged by type).
 */
import { fieldOfType } from '../../../scheme/type-names';
import { Schema, int32, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';

/** intstr.IntOrString: a count or a percentage. */
const intOrString = (description: string): Schema => ({ type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true, description });

/** metav1.Condition. */
export const metaCondition: Schema = object({
  type: str('type of condition in CamelCase or in foo.example.com/CamelCase.'),
  status: str('status of the condition, one of True, False, Unknown.'),
  observedGeneration: int64('observedGeneration represents the .metadata.generation that the condition was set based upon. For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date with respect to the current state of the instance.'),
  lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another. This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.'),
  reason: str('reason contains a programmatic identifier indicating the reason for the condition\'s last transition. Producers of specific condition types may define expected values and meanings for this field, and whether the values are considered a guaranteed API. The value should be a CamelCase string. This field may not be empty.'),
  message: str('message is a human readable message indicating details about the transition. This may be an empty string.'),
}, { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'], description: 'Condition contains details for one aspect of the current state of this API Resource.' });

export const podDisruptionBudgetSpec: Schema = object({
  minAvailable: intOrString('An eviction is allowed if at least "minAvailable" pods selected by "selector" will still be available after the eviction, i.e. even in the absence of the evicted pod.  So for example you can prevent all voluntary evictions by specifying "100%".'),
  selector: fieldOfType(labelSelector, {
    'x-kubernetes-patch-strategy': 'replace',
    description: 'Label query over pods whose evictions are managed by the disruption budget. A null selector will match no pods, while an empty ({}) selector will select all pods within the namespace.',
  }),
  maxUnavailable: intOrString('An eviction is allowed if at most "maxUnavailable" pods selected by "selector" are unavailable after the eviction, i.e. even in absence of the evicted pod. For example, one can prevent all voluntary evictions by specifying 0. This is a mutually exclusive setting with "minAvailable".'),
  unhealthyPodEvictionPolicy: {
    ...str('UnhealthyPodEvictionPolicy defines the criteria for when unhealthy pods should be considered for eviction. Current implementation considers healthy pods, as pods that have status.conditions item with type="Ready",status="True".\n\nValid policies are IfHealthyBudget and AlwaysAllow. If no policy is specified, the default behavior will be used, which corresponds to the IfHealthyBudget policy.\n\nIfHealthyBudget policy means that running pods (status.phase="Running"), but not yet healthy can be evicted only if the guarded application is not disrupted (status.currentHealthy is at least equal to status.desiredHealthy). Healthy pods will be subject to the PDB for eviction.\n\nAlwaysAllow policy means that all running pods (status.phase="Running"), but not yet healthy are considered disrupted and can be evicted regardless of whether the criteria in a PDB is met. This means perspective running pods of a disrupted application might not get a chance to become healthy. Healthy pods will be subject to the PDB for eviction.\n\nAdditional policies may be added in the future. Clients making eviction decisions should disallow eviction of unhealthy pods if they encounter an unrecognized policy in this field.\n\nThis field is beta-level. The eviction API uses this field when the feature gate PDBUnhealthyPodEvictionPolicy is enabled (enabled by default).\n\nPossible enum values:\n - `"AlwaysAllow"` policy means that all running pods (status.phase="Running"), but not yet healthy are considered disrupted and can be evicted regardless of whether the criteria in a PDB is met. This means perspective running pods of a disrupted application might not get a chance to become healthy. Healthy pods will be subject to the PDB for eviction.\n - `"IfHealthyBudget"` policy means that running pods (status.phase="Running"), but not yet healthy can be evicted only if the guarded application is not disrupted (status.currentHealthy is at least equal to status.desiredHealthy). Healthy pods will be subject to the PDB for eviction.'),
    enum: ['AlwaysAllow', 'IfHealthyBudget'],
  },
}, { description: 'PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.' });

export const podDisruptionBudgetStatus: Schema = object({
  observedGeneration: int64('Most recent generation observed when updating this PDB status. DisruptionsAllowed and other status information is valid only if observedGeneration equals to PDB\'s object generation.'),
  disruptedPods: {
    type: 'object', additionalProperties: time(),
    description: 'DisruptedPods contains information about pods whose eviction was processed by the API server eviction subresource handler but has not yet been observed by the PodDisruptionBudget controller. A pod will be in this map from the time when the API server processed the eviction request to the time when the pod is seen by PDB controller as having been marked for deletion (or after a timeout). The key in the map is the name of the pod and the value is the time when the API server processed the eviction request. If the deletion didn\'t occur and a pod is still there it will be removed from the list automatically by PodDisruptionBudget controller after some time. If everything goes smooth this map should be empty for the most of the time. Large number of entries in the map may indicate problems with pod deletions.',
  },
  disruptionsAllowed: int32('Number of pod disruptions that are currently allowed.'),
  currentHealthy: int32('current number of healthy pods'),
  desiredHealthy: int32('minimum desired number of healthy pods'),
  expectedPods: int32('total number of pods counted by this disruption budget'),
  conditions: mapList(metaCondition, ['type'], 'Conditions contain conditions for PDB. The disruption controller sets the DisruptionAllowed condition. The following are known values for the reason field (additional reasons could be added in the future): - SyncFailed: The controller encountered an error and wasn\'t able to compute\n              the number of allowed disruptions. Therefore no disruptions are\n              allowed and the status of the condition will be False.\n- InsufficientPods: The number of pods are either at or below the number\n                    required by the PodDisruptionBudget. No disruptions are\n                    allowed and the status of the condition will be False.\n- SufficientPods: There are more pods than required by the PodDisruptionBudget.\n                  The condition will be True, and the number of allowed\n                  disruptions are provided by the disruptionsAllowed property.'),
}, {
  required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'],
  description: 'PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget. Status may trail the actual state of a system.',
});

export const podDisruptionBudgetSchema: Schema = kindSchema({
  spec: { ...podDisruptionBudgetSpec, description: 'Specification of the desired behavior of the PodDisruptionBudget.' },
  status: { ...podDisruptionBudgetStatus, description: 'Most recently observed status of the PodDisruptionBudget.' },
}, 'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods');
