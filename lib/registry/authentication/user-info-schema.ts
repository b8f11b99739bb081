/** authentication/v1 UserInfo, as TokenReview and SelfSubjectReview answer it. */
import { Schema, atomicList, object, str } from '../../scheme/schema';

export const userInfo: Schema = object({
  username: str('The name that uniquely identifies this user among all active users.'),
  uid: str('A unique value that identifies this user across time.'),
  groups: atomicList(str(), 'The names of groups this user is a part of.'),
  extra: { type: 'object', additionalProperties: atomicList(str()), description: 'Any additional information provided by the authenticator.' },
});
