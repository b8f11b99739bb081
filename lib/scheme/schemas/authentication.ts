/** Schemas of the authentication group's kinds: TokenRequest, TokenReview, SelfSubjectReview. */
import { Schema, atomicList, int64, object, str, time } from '../schema';
import { kindSchema } from './meta';

const userInfo: Schema = object({
  username: str('The name that uniquely identifies this user among all active users.'),
  uid: str('A unique value that identifies this user across time.'),
  groups: atomicList(str(), 'The names of groups this user is a part of.'),
  extra: { type: 'object', additionalProperties: atomicList(str()), description: 'Any additional information provided by the authenticator.' },
});

export const tokenRequestSchema: Schema = kindSchema({
  spec: object({
    audiences: atomicList(str(), 'Intended audiences of the token; defaults to the API server\'s audiences.'),
    expirationSeconds: int64('Requested duration of validity of the token (at least 600); defaults to 3600.'),
    boundObjectRef: object({
      kind: str('Kind of the referent: Pod or Secret.'),
      apiVersion: str('API version of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
    }, { description: 'A reference to an object the token is bound to: it is valid only while that object exists.' }),
  }, { required: ['audiences'] }),
  status: object({
    token: str('The opaque bearer token.'),
    expirationTimestamp: time('The time of expiration of the returned token.'),
  }, { required: ['token', 'expirationTimestamp'] }),
}, 'TokenRequest requests a token for a given service account.');

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

export const selfSubjectReviewSchema: Schema = kindSchema({
  status: object({ userInfo }),
}, 'SelfSubjectReview contains the user information that the API server has about the user making this request.');
