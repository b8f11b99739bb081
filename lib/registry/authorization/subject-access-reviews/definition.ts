/** SubjectAccessReview (authorization/v1, virtual): may this user do this, in any namespace? */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { subjectAccessReviewSchema } from './schema';
import { reviewKind } from '../review-kind';

export const subjectAccessReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'SubjectAccessReview', 'subjectaccessreviews', subjectAccessReviewSchema);
