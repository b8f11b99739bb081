/** Schema of rbac.authorization/v1 Role. */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { rules } from '../rule-schema';

/** Role: rules only. */
export const roleSchema: Schema = kindSchema({ rules },
  'Role is a namespaced grouping of PolicyRules that a RoleBinding grants.');
