/**
 * SubjectAccessReview (create): may this user (spec.user, groups, uid, extra, taken as given) do
 * this action? 201 with the request echoed and `status` filled from the authorization chain.
 * Nothing is stored; a dry run answers the same.
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { Authorizer } from '../authorizer';
import { AccessReviewSpec, attributesOfSpec, decide, specAsWritten, userOfSpec } from './access-review';
import { validateEmptyMetadata, validateSubjectSpec } from './review-validation';
import { invalidReview } from './review-errors';

export function subjectAccessReviewHandler(authorizer: Authorizer) {
  return async (s: CustomScope): Promise<void> => {
    writeOptionsOf(s.ctx, 'create');
    const review = await readBodyAs(s.ctx, s.def, undefined);
    const spec = (review.spec ?? {}) as AccessReviewSpec;
    const errs = [...validateSubjectSpec(spec), ...validateEmptyMetadata(review.metadata, 'must be empty')];
    if (errs.length) throw invalidReview(s.def.group, errs);
    const status = await decide(authorizer, attributesOfSpec(userOfSpec(spec), spec));
    writeObject(s.ctx, 201, {
      apiVersion: review.apiVersion, kind: review.kind, metadata: { creationTimestamp: null }, spec: specAsWritten(spec), status,
    });
  };
}
