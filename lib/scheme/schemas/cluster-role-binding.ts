/** Schema of rbac.authorization/v1 ClusterRoleBinding. */
import { Schema } from '../schema';
import { kindSchema } from './meta';
import { roleRef, subjects } from './rbac-binding';

/** ClusterRoleBinding: subjects and the required roleRef. */
export const clusterRoleBindingSchema: Schema = {
  ...kindSchema({ subjects, roleRef: { ...roleRef, description: 'A ClusterRole; immutable.' } },
    'ClusterRoleBinding grants a ClusterRole to subjects in every namespace.'),
  required: ['roleRef'],
};
