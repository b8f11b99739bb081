/** SelfSubjectReview (authentication/v1, virtual): who the server takes the caller to be. */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { selfSubjectReviewSchema } from './schema';
import { reviewKind } from '../review-kind';

export const selfSubjectReviewResource = (naming: Naming): ResourceDef => reviewKind(naming, 'SelfSubjectReview', 'selfsubjectreviews', selfSubjectReviewSchema);
