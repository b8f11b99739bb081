/** TokenReview (authentication/v1, virtual): asks whether a token authenticates, and as whom. */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { tokenReviewSchema } from './schema';
import { reviewKind } from '../review-kind';

export const tokenReviewResource = (naming: Naming): ResourceDef => reviewKind(naming, 'TokenReview', 'tokenreviews', tokenReviewSchema);
