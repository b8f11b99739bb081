/** Schema of authorization/v1 LocalSubjectAccessReview. */
import { Schema } from '../schema';
import { kindSchema } from './meta';
import { accessReviewStatus, subjectAccessReviewSpec } from './access-review';

export const localSubjectAccessReviewSchema: Schema = kindSchema({
  spec: subjectAccessReviewSpec,
  status: accessReviewStatus,
}, 'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace; spec.resourceAttributes.namespace must be the namespace of the request.');
