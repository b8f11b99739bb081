/** Schema of authorization/v1 SelfSubjectAccessReview. */
import { Schema, object } from '../schema';
import { kindSchema } from './meta';
import { accessReviewStatus, nonResourceAttributes, resourceAttributes } from './access-review';

export const selfSubjectAccessReviewSchema: Schema = kindSchema({
  spec: object({ resourceAttributes, nonResourceAttributes }, { description: 'Exactly one of resourceAttributes and nonResourceAttributes must be set.' }),
  status: accessReviewStatus,
}, 'SelfSubjectAccessReview checks whether the current user can perform an action.');
