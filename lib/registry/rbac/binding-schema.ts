/** Subject and RoleRef (atomic structs, as in Kubernetes' types): what RoleBindings and ClusterRoleBindings hold. */
import { Schema, atomicList, object, str } from '../../scheme/schema';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

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

export const subjects = atomicList(subject, 'The users, groups and service accounts the role is granted to.');
