/** Schema of authorization/v1 LocalSubjectAccessReview. */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { accessReviewStatus, subjectAccessReviewSpec } from '../access-review-schema';

export const localSubjectAccessReviewSchema: Schema = kindSchema({
  spec: subjectAccessReviewSpec,
  status: accessReviewStatus,
}, 'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace; spec.resourceAttributes.namespace must be the namespace of the request.');
