/** Schema of authentication/v1 TokenRequest, the body of `serviceaccounts/<name>/token`. */
import { Schema, atomicList, int64, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

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
