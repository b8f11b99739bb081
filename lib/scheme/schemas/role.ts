/** Schema of rbac.authorization/v1 Role. */
import { Schema } from '../schema';
import { kindSchema } from './meta';
import { rules } from './rbac-rule';

/** Role: rules only. */
export const roleSchema: Schema = kindSchema({ rules },
  'Role is a namespaced grouping of PolicyRules that a RoleBinding grants.');
