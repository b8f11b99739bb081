/** Schema of rbac.authorization/v1 ClusterRole. */
import { Schema, atomicList, object } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { rules } from '../rule-schema';

/** ClusterRole: rules and the optional aggregationRule. */
export const clusterRoleSchema: Schema = kindSchema({
  rules,
  aggregationRule: object({
    clusterRoleSelectors: atomicList(labelSelector, 'Selectors of the ClusterRoles whose rules are aggregated into this one; any match adds.'),
  }, { description: 'How the rules of this ClusterRole are built from other ClusterRoles; when set, rules are controller managed.' }),
}, 'ClusterRole is a cluster-wide grouping of PolicyRules that a RoleBinding or ClusterRoleBinding grants.');
