/**
 * Role (rbac.authorization/v1, namespaced): rules granted within one namespace by the
 * RoleBindings there. Names are path segments; rules are validated as namespaced rules (no
 * non-resource URLs). PUT may create; DELETE answers a Status; the default table.
 */
import { ResourceDef } from '../../../scheme/types';
import { roleSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { RoleObject } from '../types';
import { validateRules } from '../rule-validation';
import { RBAC_VERBS } from '../verbs';

/** The Role kind of the flavor's RBAC group. */
export function roleResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('rbac.authorization'), version: 'v1', kind: 'Role', listKind: 'RoleList', resource: 'roles', singular: 'role',
    namespaced: true, shortNames: [], categories: [], verbs: RBAC_VERBS, subresources: [],
    deleteReturnsStatus: true, nameValidation: 'path-segment', schema: roleSchema,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, roleSchema, 'Role'),
      validate: (obj) => validateRules((obj as RoleObject).rules, true),
    },
  };
}
