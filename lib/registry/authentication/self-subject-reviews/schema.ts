/** Schema of authentication/v1 SelfSubjectReview. */
import { Schema, object } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { userInfo } from '../user-info-schema';

export const selfSubjectReviewSchema: Schema = kindSchema({
  status: object({ userInfo }),
}, 'SelfSubjectReview contains the user information that the API server has about the user making this request.');
