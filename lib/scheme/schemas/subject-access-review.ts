/** Schema of authorization/v1 SubjectAccessReview. */
import { Schema } from '../schema';
import { kindSchema } from './meta';
import { accessReviewStatus, subjectAccessReviewSpec } from './access-review';

export const subjectAccessReviewSchema: Schema = kindSchema({
  spec: subjectAccessReviewSpec,
  status: accessReviewStatus,
}, 'SubjectAccessReview checks whether or not a user or group can perform an action.');
