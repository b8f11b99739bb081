/**
 * SubjectAccessReview (create): may this user (spec.user, groups, uid, extra, taken as given) do
 * this action? 201 with the request echoed and `status` filled from the authorization chain.
 * Nothing is stored; a dry run answers the same. At v1beta1 the spec's `groups` is `group`.
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { Authorizer } from '../authorizer';
import { attributesOfSpec, decide, specAsWritten, specFromVersion, specToVersion, userOfSpec } from './access-review';
import { validateEmptyMetadata, validateSubjectSpec } from './review-validation';
import { invalidReview } from './review-errors';

export function subjectAccessReviewHandler(authorizer: Authorizer) {
  return async (s: CustomScope): Promise<void> => {
    writeOptionsOf(s.ctx, 'create');
    const review = await readBodyAs(s.ctx, s.def, undefined);
    const spec = specFromVersion((review.spec ?? {}) as Record<string, unknown>, s.def.version);
    const errs = [...validateSubjectSpec(spec), ...validateEmptyMetadata(review.metadata, 'must be empty')];
    if (errs.length) throw invalidReview(s.def.group, errs);
    const status = await decide(authorizer, attributesOfSpec(userOfSpec(spec), spec));
    writeObject(s.ctx, 201, {
      apiVersion: review.apiVersion, kind: review.kind, metadata: { creationTimestamp: null }, spec: specToVersion(specAsWritten(spec), s.def.version), status,
    });
  };
}
