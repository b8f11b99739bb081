/**
 * The authentication group's kinds (`authentication.<domain>/v1`): TokenReview and
 * SelfSubjectReview are virtual resources (create only, nothing stored; handlers in this folder),
 * TokenRequest is the body of `serviceaccounts/<name>/token`.
 */
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { selfSubjectReviewSchema } from '../../scheme/schemas/self-subject-review';
import { tokenRequestSchema } from '../../scheme/schemas/token-request';
import { tokenReviewSchema } from '../../scheme/schemas/token-review';
import { Schema } from '../../scheme/schema';

function reviewKind(naming: Naming, kind: string, resource: string, schema: Schema): ResourceDef {
  return {
    group: naming.group('authentication'), version: 'v1', kind, listKind: `${kind}List`, resource, singular: resource.replace(/s$/, ''),
    namespaced: false, shortNames: [], categories: [], verbs: ['create'], subresources: [],
    deleteReturnsStatus: false, nameValidation: 'path-segment', schema, strategy: {}, virtual: true,
  };
}

export const tokenReviewResource = (naming: Naming): ResourceDef => reviewKind(naming, 'TokenReview', 'tokenreviews', tokenReviewSchema);
export const selfSubjectReviewResource = (naming: Naming): ResourceDef => reviewKind(naming, 'SelfSubjectReview', 'selfsubjectreviews', selfSubjectReviewSchema);

/** TokenRequest as a body kind (what readBodyAs decodes `serviceaccounts/<name>/token` as). */
export function tokenRequestKind(naming: Naming): ResourceDef {
  return { ...reviewKind(naming, 'TokenRequest', 'tokenrequests', tokenRequestSchema), namespaced: true };
}
