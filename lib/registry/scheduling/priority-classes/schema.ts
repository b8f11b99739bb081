/**
 * Schema of scheduling.k8s.io/v1 PriorityClass: a name mapped to a pod priority value, whether it
 * is the default for pods that name no class, a description, and the preemption policy its pods
 * get. No spec or status: the fields sit at the top level, as in Kubernetes.
 */
import { Schema, bool, int32, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

export const priorityClassSchema: Schema = {
  ...kindSchema({
    value: int32('value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
    globalDefault: bool('globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.'),
    description: str('description is an arbitrary string that usually provides guidelines on when this priority class should be used.'),
    preemptionPolicy: str('preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
  }, 'PriorityClass defines mapping from a priority class name to the priority integer value. The value can be any valid integer.'),
  // Go's `value` has no omitempty: OpenAPI lists it as required (a missing value decodes as 0).
  required: ['value'],
};
