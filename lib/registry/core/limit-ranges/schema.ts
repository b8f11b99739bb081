/**
 * Schema of core/v1 LimitRange: per-namespace bounds and defaults of compute and storage
 * resources, as a list of LimitRangeItems (one per limit type: Pod, Container,
 * PersistentVolumeClaim or a qualified custom type), each a set of ResourceLists. The Go type
 * names (LimitRangeSpec, LimitRangeItem) are Kubernetes' so that OpenAPI names them as it does.
 */
import { Schema, atomicList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { resourceList } from '../quantity-schema';

export const limitRangeItemSchema: Schema = goType('io.k8s.api.core.v1.LimitRangeItem', object({
  type: str('Type of resource that this limit applies to.'),
  max: resourceList('Max usage constraints on this kind by resource name.'),
  min: resourceList('Min usage constraints on this kind by resource name.'),
  default: resourceList('Default resource requirement limit value by resource name if resource limit is omitted.'),
  defaultRequest: resourceList('DefaultRequest is the default resource requirement request value by resource name if resource request is omitted.'),
  maxLimitRequestRatio: resourceList('MaxLimitRequestRatio if specified, the named resource must have a request and limit that are both non-zero where limit divided by request is less than or equal to the enumerated value; this represents the max burst for the named resource.'),
}, { required: ['type'], description: 'LimitRangeItem defines a min/max usage limit for any resource that matches on kind.' }));

export const limitRangeSpecSchema: Schema = goType('io.k8s.api.core.v1.LimitRangeSpec', object({
  limits: atomicList(limitRangeItemSchema, 'Limits is the list of LimitRangeItem objects that are enforced.'),
}, { required: ['limits'], description: 'LimitRangeSpec defines a min/max usage limit for resources that match on kind.' }));

export const limitRangeSchema: Schema = kindSchema({
  spec: fieldOfType(limitRangeSpecSchema, {
    description: 'Spec defines the limits enforced. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  }),
}, 'LimitRange sets resource usage limits for each kind of resource in a Namespace.');
