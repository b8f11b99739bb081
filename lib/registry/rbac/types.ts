/**
 * The RBAC kinds' content as plain JSON (rbac.authorization.<domain>/v1): rules, subjects,
 * role references, aggregation. Objects stay plain JSON from decode to storage; these types
 * name what the authorizer, the registry and the controllers read.
 */
import { ApiObject } from '../../scheme/types';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[] | null;
  resources?: string[] | null;
  resourceNames?: string[] | null;
  nonResourceURLs?: string[] | null;
}

export interface Subject {
  /** User, Group or ServiceAccount. */
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  /** Role or ClusterRole. */
  kind: string;
  name: string;
}

export interface LabelSelectorJson {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelectorJson[] | null;
}

/** Role or ClusterRole. */
export interface RoleObject extends ApiObject {
  rules?: PolicyRule[] | null;
  /** ClusterRole only. */
  aggregationRule?: AggregationRule | null;
}

/** RoleBinding or ClusterRoleBinding. */
export interface BindingObject extends ApiObject {
  subjects?: Subject[] | null;
  roleRef: RoleRef;
}

export const USER_KIND = 'User';
export const GROUP_KIND = 'Group';
export const SERVICE_ACCOUNT_KIND = 'ServiceAccount';
