/** TokenRequest (authentication/v1): not served as a resource of its own, the body of `serviceaccounts/<name>/token`. */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { tokenRequestSchema } from './schema';
import { reviewKind } from '../review-kind';

/** TokenRequest as a body kind (what readBodyAs decodes `serviceaccounts/<name>/token` as). */
export function tokenRequestKind(naming: Naming): ResourceDef {
  return { ...reviewKind(naming, 'TokenRequest', 'tokenrequests', tokenRequestSchema), namespaced: true };
}
