/**
 * SelfSubjectAccessReview (create; what `kubectl auth can-i` sends): may I do this action? The
 * user is the requester as the server sees it, after impersonation (`--as` asks for someone
 * else). 201 with the request echoed and `status` filled; nothing is stored.
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { errors } from '../../meta/api-errors';
import { Authorizer } from '../authorizer';
import { AccessReviewSpec, attributesOfSpec, decide, specAsWritten } from './access-review';
import { validateEmptyMetadata, validateSelfSpec } from './review-validation';
import { invalidReview } from './review-errors';

export function selfSubjectAccessReviewHandler(authorizer: Authorizer) {
  return async (s: CustomScope): Promise<void> => {
    writeOptionsOf(s.ctx, 'create');
    const review = await readBodyAs(s.ctx, s.def, undefined);
    const body = (review.spec ?? {}) as AccessReviewSpec;
    // Only the attributes belong to this spec (the decoder has dropped anything else).
    const spec: AccessReviewSpec = { resourceAttributes: body.resourceAttributes, nonResourceAttributes: body.nonResourceAttributes };
    const errs = [...validateSelfSpec(spec), ...validateEmptyMetadata(review.metadata, 'must be empty')];
    if (errs.length) throw invalidReview(s.def.group, errs);
    if (!s.user) throw errors.badRequest('no user present on request');
    const status = await decide(authorizer, attributesOfSpec(s.user, spec));
    writeObject(s.ctx, 201, {
      apiVersion: review.apiVersion, kind: review.kind, metadata: { creationTimestamp: null }, spec: specAsWritten(spec), status,
    });
  };
}
