/**
 * Schemas of the RBAC kinds (rbac.authorization/v1): Role, ClusterRole, RoleBinding,
 * ClusterRoleBinding. As in Kubernetes' types, every list is atomic (rules, subjects, verbs,
 * selectors are replaced whole by a merge or an apply) and Subject and RoleRef are atomic structs.
 */
import { Schema, atomicList, object, str } from '../schema';
import { kindSchema } from './meta';
import { labelSelector } from './core-storage';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

/** PolicyRule: verbs on resources of API groups (optionally by name), or on non-resource URLs. */
export const policyRule: Schema = object({
  verbs: atomicList(str(), "Verbs that apply to all the resources of this rule; '*' means all verbs."),
  apiGroups: atomicList(str(), 'API groups of the resources; "" is the core group and "*" every group.'),
  resources: atomicList(str(), "Resources this rule applies to; '*' means all, 'x/y' a subresource."),
  resourceNames: atomicList(str(), 'Names the rule is limited to; empty means every name.'),
  nonResourceURLs: atomicList(str(), "Non-resource URL paths (e.g. /healthz); a '*' may end one. Only for ClusterRoles bound by ClusterRoleBindings; a rule holds either these or resources."),
}, { required: ['verbs'], description: 'PolicyRule describes what a rule allows, not who it applies to.' });

/** Subject (atomic struct): a User, Group or ServiceAccount. */
export const subject: Schema = object({
  kind: str('User, Group or ServiceAccount.'),
  apiGroup: str('The API group of the subject: "" for ServiceAccount, the RBAC group for User and Group (the defaults).'),
  name: str('The name of the subject.'),
  namespace: str('The namespace of a ServiceAccount subject.'),
}, { required: ['kind', 'name'], ...atomic, description: 'Subject is a user, group or service account a binding applies to.' });

/** RoleRef (atomic struct): the role a binding grants. */
export const roleRef: Schema = object({
  apiGroup: str('The API group of the role: the RBAC group.'),
  kind: str('Role or ClusterRole.'),
  name: str('The name of the role.'),
}, { required: ['apiGroup', 'kind', 'name'], ...atomic, description: 'RoleRef points to the role a binding grants; immutable.' });

const rules = atomicList(policyRule, 'The rules this role grants.');
const subjects = atomicList(subject, 'The users, groups and service accounts the role is granted to.');

/** Role: rules only. */
export const roleSchema: Schema = kindSchema({ rules },
  'Role is a namespaced grouping of PolicyRules that a RoleBinding grants.');

/** ClusterRole: rules and the optional aggregationRule. */
export const clusterRoleSchema: Schema = kindSchema({
  rules,
  aggregationRule: object({
    clusterRoleSelectors: atomicList(labelSelector, 'Selectors of the ClusterRoles whose rules are aggregated into this one; any match adds.'),
  }, { description: 'How the rules of this ClusterRole are built from other ClusterRoles; when set, rules are controller managed.' }),
}, 'ClusterRole is a cluster-wide grouping of PolicyRules that a RoleBinding or ClusterRoleBinding grants.');

/** RoleBinding: subjects and the required roleRef. */
export const roleBindingSchema: Schema = {
  ...kindSchema({ subjects, roleRef: { ...roleRef, description: 'A Role in the binding\'s namespace or a ClusterRole; immutable.' } },
    'RoleBinding grants a Role or ClusterRole to subjects within its namespace.'),
  required: ['roleRef'],
};

/** ClusterRoleBinding: subjects and the required roleRef. */
export const clusterRoleBindingSchema: Schema = {
  ...kindSchema({ subjects, roleRef: { ...roleRef, description: 'A ClusterRole; immutable.' } },
    'ClusterRoleBinding grants a ClusterRole to subjects in every namespace.'),
  required: ['roleRef'],
};
