/** Schema of authentication/v1 TokenReview. */
import { Schema, atomicList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { userInfo } from '../user-info-schema';

export const tokenReviewSchema: Schema = kindSchema({
  spec: object({
    token: str('The opaque bearer token.'),
    audiences: atomicList(str(), 'Audiences the resource server accepts the token for; defaults to the API server\'s audiences.'),
  }),
  status: object({
    authenticated: { type: 'boolean', description: 'Whether the token was associated with a known user.' },
    user: userInfo,
    audiences: atomicList(str(), 'The audiences of spec.audiences the token is valid for.'),
    error: str('Why the token could not be checked.'),
  }),
}, 'TokenReview attempts to authenticate a token to a known user.');
