/** Schema of rbac.authorization/v1 ClusterRoleBinding. */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { roleRef, subjects } from '../binding-schema';

/** ClusterRoleBinding: subjects and the required roleRef. */
export const clusterRoleBindingSchema: Schema = {
  ...kindSchema({ subjects, roleRef: { ...roleRef, description: 'A ClusterRole; immutable.' } },
    'ClusterRoleBinding grants a ClusterRole to subjects in every namespace.'),
  required: ['roleRef'],
};
