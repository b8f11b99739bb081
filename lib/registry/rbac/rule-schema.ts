/**
 * PolicyRule, what Roles and ClusterRoles grant. As in Kubernetes' types, every RBAC list is atomic
 * (rules, subjects, verbs, selectors are replaced whole by a merge or an apply).
 */
import { Schema, atomicList, object, str } from '../../scheme/schema';

/** PolicyRule: verbs on resources of API groups (optionally by name), or on non-resource URLs. */
export const policyRule: Schema = object({
  verbs: atomicList(str(), "Verbs that apply to all the resources of this rule; '*' means all verbs."),
  apiGroups: atomicList(str(), 'API groups of the resources; "" is the core group and "*" every group.'),
  resources: atomicList(str(), "Resources this rule applies to; '*' means all, 'x/y' a subresource."),
  resourceNames: atomicList(str(), 'Names the rule is limited to; empty means every name.'),
  nonResourceURLs: atomicList(str(), "Non-resource URL paths (e.g. /healthz); a '*' may end one. Only for ClusterRoles bound by ClusterRoleBindings; a rule holds either these or resources."),
}, { required: ['verbs'], description: 'PolicyRule describes what a rule allows, not who it applies to.' });

export const rules = atomicList(policyRule, 'The rules this role grants.');
