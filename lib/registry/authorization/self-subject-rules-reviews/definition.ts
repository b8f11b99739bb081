/** SelfSubjectRulesReview (authorization/v1, virtual): what may I do in this namespace? */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { selfSubjectRulesReviewSchema } from './schema';
import { reviewKind } from '../review-kind';

export const selfSubjectRulesReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', selfSubjectRulesReviewSchema);
