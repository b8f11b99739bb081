/**
 * Schema of core/v1 ResourceQuota: the hard limits per resource name, the scopes and the scope
 * selector that pick which objects a quota tracks, and the status the quota controller and the
 * ResourceQuota admission plugin keep (hard copied from the spec, used summed over the objects).
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { resourceList } from '../quantity-schema';

export const QUOTA_SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];
export const SCOPE_SELECTOR_OPERATORS = ['DoesNotExist', 'Exists', 'In', 'NotIn'];

const scopedResourceSelectorRequirement: Schema = goType('io.k8s.api.core.v1.ScopedResourceSelectorRequirement', object({
  scopeName: {
    ...str('The name of the scope that the selector applies to.\n\nPossible enum values:\n - `"BestEffort"` Match all pod objects that have best effort quality of service\n - `"CrossNamespacePodAffinity"` Match all pod objects that have cross-namespace pod (anti)affinity mentioned.\n - `"NotBestEffort"` Match all pod objects that do not have best effort quality of service\n - `"NotTerminating"` Match all pod objects where spec.activeDeadlineSeconds is nil\n - `"PriorityClass"` Match all pod objects that have priority class mentioned\n - `"Terminating"` Match all pod objects where spec.activeDeadlineSeconds >=0'),
    enum: QUOTA_SCOPES,
  },
  operator: {
    ...str('Represents a scope\'s relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist.\n\nPossible enum values:\n - `"DoesNotExist"`\n - `"Exists"`\n - `"In"`\n - `"NotIn"`'),
    enum: SCOPE_SELECTOR_OPERATORS,
  },
  values: atomicList(str(), 'An array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.'),
}, {
  required: ['scopeName', 'operator'],
  description: 'A scoped-resource selector requirement is a selector that contains values, a scope name, and an operator that relates the scope name and values.',
}));

const scopeSelector: Schema = goType('io.k8s.api.core.v1.ScopeSelector', object({
  matchExpressions: atomicList(scopedResourceSelectorRequirement, 'A list of scope selector requirements by scope of the resources.'),
}, {
  description: 'A scope selector represents the AND of the selectors represented by the scoped-resource selector requirements.',
  'x-kubernetes-map-type': 'atomic',
}));

export const resourceQuotaSpec: Schema = goType('io.k8s.api.core.v1.ResourceQuotaSpec', object({
  hard: resourceList('hard is the set of desired hard limits for each named resource. More info: https://kubernetes.io/docs/concepts/policy/resource-quotas/'),
  scopes: atomicList({ ...str(), enum: QUOTA_SCOPES }, 'A collection of filters that must match each object tracked by a quota. If not specified, the quota matches all objects.'),
  scopeSelector: fieldOfType(scopeSelector, { description: 'scopeSelector is also a collection of filters like scopes that must match each object tracked by a quota but expressed using ScopeSelectorOperator in combination with possible values. For a resource to match, both scopes AND scopeSelector (if specified in spec), must be matched.' }),
}, { description: 'ResourceQuotaSpec defines the desired hard limits to enforce for Quota.' }));

export const resourceQuotaStatus: Schema = goType('io.k8s.api.core.v1.ResourceQuotaStatus', object({
  hard: resourceList('Hard is the set of enforced hard limits for each named resource. More info: https://kubernetes.io/docs/concepts/policy/resource-quotas/'),
  used: resourceList('Used is the current observed total usage of the resource in the namespace.'),
}, { description: 'ResourceQuotaStatus defines the enforced hard limits and observed use.' }));

export const resourceQuotaSchema: Schema = kindSchema({
  spec: fieldOfType(resourceQuotaSpec, { description: 'Spec defines the desired quota. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(resourceQuotaStatus, { description: 'Status defines the actual enforced quota and its current usage. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'ResourceQuota sets aggregate quota restrictions enforced per namespace');
