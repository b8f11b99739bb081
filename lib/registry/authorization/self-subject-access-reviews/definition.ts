/** SelfSubjectAccessReview (authorization/v1, virtual): may I do this? */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { selfSubjectAccessReviewSchema } from './schema';
import { reviewKind } from '../review-kind';

export const selfSubjectAccessReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', selfSubjectAccessReviewSchema);
