/** LocalSubjectAccessReview at authorization/v1beta1 (removed in 1.22), off unless switched on (../served-v1beta1.ts). */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedAtV1beta1 } from '../served-v1beta1';
import { localSubjectAccessReviewResource } from './definition';

export const localSubjectAccessReviewV1beta1Resource = (naming: Naming): ResourceDef => servedAtV1beta1(localSubjectAccessReviewResource(naming));
