/**
 * ClusterRole (rbac.authorization/v1, cluster-scoped): rules granted cluster-wide by
 * ClusterRoleBindings or within a namespace by RoleBindings, optionally built by the aggregation
 * controller from other ClusterRoles (`aggregationRule.clusterRoleSelectors`). Names are path
 * segments. PUT may create; DELETE answers a Status; the default table.
 */
import { ResourceDef } from '../../../scheme/types';
import { clusterRoleSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { RoleObject } from '../types';
import { validateRules } from '../rule-validation';
import { hasInvalidLabelValues, validateAggregationRule } from './aggregation-rule';
import { RBAC_VERBS } from '../verbs';

function validate(role: RoleObject, allowInvalidLabelValues: boolean) {
  return [...validateRules(role.rules, false), ...validateAggregationRule(role.aggregationRule, allowInvalidLabelValues)];
}

/** The ClusterRole kind of the flavor's RBAC group. */
export function clusterRoleResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('rbac.authorization'), version: 'v1', kind: 'ClusterRole', listKind: 'ClusterRoleList', resource: 'clusterroles',
    singular: 'clusterrole', namespaced: false, shortNames: [], categories: [], verbs: RBAC_VERBS, subresources: [],
    deleteReturnsStatus: true, nameValidation: 'path-segment', schema: clusterRoleSchema,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, clusterRoleSchema, 'ClusterRole'),
      validate: (obj) => validate(obj as RoleObject, false),
      // A selector stored before label values were checked may be kept by later updates.
      validateUpdate: (obj, old) => validate(obj as RoleObject, hasInvalidLabelValues((old as RoleObject).aggregationRule)),
    },
  };
}
