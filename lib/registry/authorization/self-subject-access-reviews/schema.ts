/** Schema of authorization/v1 SelfSubjectAccessReview. */
import { Schema, object } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { accessReviewStatus, nonResourceAttributes, resourceAttributes } from '../access-review-schema';

export const selfSubjectAccessReviewSchema: Schema = kindSchema({
  spec: object({ resourceAttributes, nonResourceAttributes }, { description: 'Exactly one of resourceAttributes and nonResourceAttributes must be set.' }),
  status: accessReviewStatus,
}, 'SelfSubjectAccessReview checks whether the current user can perform an action.');
