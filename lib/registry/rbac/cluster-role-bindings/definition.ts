/**
 * ClusterRoleBinding (rbac.authorization/v1, cluster-scoped): grants a ClusterRole to users,
 * groups and service accounts in every namespace. roleRef is immutable and names a ClusterRole;
 * a ServiceAccount subject needs its namespace. Names are path segments. PUT may create; DELETE
 * answers a Status; kubectl's ROLE and wide USERS/GROUPS/SERVICEACCOUNTS columns.
 */
import { ResourceDef } from '../../../scheme/types';
import { clusterRoleBindingSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { BindingObject } from '../types';
import { BindingRules, defaultBinding, validateBinding, validateBindingUpdate } from '../binding-validation';
import { bindingTable } from '../binding-table';
import { RBAC_VERBS } from '../verbs';

const ROLE_REF = 'roleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.';

/** The ClusterRoleBinding kind of the flavor's RBAC group (its roleRef and User/Group subjects default to that group). */
export function clusterRoleBindingResource(naming: Naming): ResourceDef {
  const group = naming.group('rbac.authorization');
  const rules: BindingRules = { namespaced: false, roleKinds: ['ClusterRole'], rbacGroup: group };
  return {
    group, version: 'v1', kind: 'ClusterRoleBinding', listKind: 'ClusterRoleBindingList', resource: 'clusterrolebindings',
    singular: 'clusterrolebinding', namespaced: false, shortNames: [], categories: [], verbs: RBAC_VERBS, subresources: [],
    deleteReturnsStatus: true, nameValidation: 'path-segment', schema: clusterRoleBindingSchema,
    table: bindingTable('clusterRoleBinding', ROLE_REF),
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, clusterRoleBindingSchema, 'ClusterRoleBinding'),
      prepareForCreate: (obj) => defaultBinding(obj as BindingObject, group),
      prepareForUpdate: (obj) => defaultBinding(obj as BindingObject, group),
      validate: (obj) => validateBinding(obj as BindingObject, rules),
      validateUpdate: (obj, old) => validateBindingUpdate(obj as BindingObject, old as BindingObject, rules),
    },
  };
}
