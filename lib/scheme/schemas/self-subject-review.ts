/** Schema of authentication/v1 SelfSubjectReview. */
import { Schema, object } from '../schema';
import { kindSchema } from './meta';
import { userInfo } from './user-info';

export const selfSubjectReviewSchema: Schema = kindSchema({
  status: object({ userInfo }),
}, 'SelfSubjectReview contains the user information that the API server has about the user making this request.');
