/** SelfSubjectAccessReview at authorization/v1beta1 (removed in 1.22), off unless switched on (../served-v1beta1.ts). */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedAtV1beta1 } from '../served-v1beta1';
import { selfSubjectAccessReviewResource } from './definition';

export const selfSubjectAccessReviewV1beta1Resource = (naming: Naming): ResourceDef => servedAtV1beta1(selfSubjectAccessReviewResource(naming));
