/** LocalSubjectAccessReview (authorization/v1, virtual, namespaced): may this user do this in this namespace? */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { localSubjectAccessReviewSchema } from './schema';
import { reviewKind } from '../review-kind';

export const localSubjectAccessReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'LocalSubjectAccessReview', 'localsubjectaccessreviews', localSubjectAccessReviewSchema, true);
