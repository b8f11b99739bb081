/**
 * RoleBinding (rbac.authorization/v1, namespaced): grants a Role of its namespace or a
 * ClusterRole to users, groups and service accounts within its namespace. roleRef is immutable;
 * User/Group subjects and roleRef default to the RBAC group. Names are path segments. PUT may
 * create; DELETE answers a Status; kubectl's ROLE and wide USERS/GROUPS/SERVICEACCOUNTS columns.
 */
import { ResourceDef } from '../../../scheme/types';
import { roleBindingSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { BindingObject } from '../types';
import { BindingRules, defaultBinding, validateBinding, validateBindingUpdate } from '../binding-validation';
import { bindingTable } from '../binding-table';
import { RBAC_VERBS } from '../verbs';

const ROLE_REF = 'roleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.';

/** The RoleBinding kind of the flavor's RBAC group (its roleRef and User/Group subjects default to that group). */
export function roleBindingResource(naming: Naming): ResourceDef {
  const group = naming.group('rbac.authorization');
  const rules: BindingRules = { namespaced: true, roleKinds: ['Role', 'ClusterRole'], rbacGroup: group };
  return {
    group, version: 'v1', kind: 'RoleBinding', listKind: 'RoleBindingList', resource: 'rolebindings', singular: 'rolebinding',
    namespaced: true, shortNames: [], categories: [], verbs: RBAC_VERBS, subresources: [],
    deleteReturnsStatus: true, nameValidation: 'path-segment', schema: roleBindingSchema,
    table: bindingTable('roleBinding', ROLE_REF),
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, roleBindingSchema, 'RoleBinding'),
      prepareForCreate: (obj) => defaultBinding(obj as BindingObject, group),
      prepareForUpdate: (obj) => defaultBinding(obj as BindingObject, group),
      validate: (obj) => validateBinding(obj as BindingObject, rules),
      validateUpdate: (obj, old) => validateBindingUpdate(obj as BindingObject, old as BindingObject, rules),
    },
  };
}
