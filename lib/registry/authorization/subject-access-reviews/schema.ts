/** Schema of authorization/v1 SubjectAccessReview. */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { accessReviewStatus, subjectAccessReviewSpec } from '../access-review-schema';

export const subjectAccessReviewSchema: Schema = kindSchema({
  spec: subjectAccessReviewSpec,
  status: accessReviewStatus,
}, 'SubjectAccessReview checks whether or not a user or group can perform an action.');
