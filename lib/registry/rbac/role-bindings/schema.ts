/** Schema of rbac.authorization/v1 RoleBinding. */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { roleRef, subjects } from '../binding-schema';

/** RoleBinding: subjects and the required roleRef. */
export const roleBindingSchema: Schema = {
  ...kindSchema({ subjects, roleRef: { ...roleRef, description: 'A Role in the binding\'s namespace or a ClusterRole; immutable.' } },
    'RoleBinding grants a Role or ClusterRole to subjects within its namespace.'),
  required: ['roleRef'],
};
