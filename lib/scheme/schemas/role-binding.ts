/** Schema of rbac.authorization/v1 RoleBinding. */
import { Schema } from '../schema';
import { kindSchema } from './meta';
import { roleRef, subjects } from './rbac-binding';

/** RoleBinding: subjects and the required roleRef. */
export const roleBindingSchema: Schema = {
  ...kindSchema({ subjects, roleRef: { ...roleRef, description: 'A Role in the binding\'s namespace or a ClusterRole; immutable.' } },
    'RoleBinding grants a Role or ClusterRole to subjects within its namespace.'),
  required: ['roleRef'],
};
