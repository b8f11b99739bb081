/**
 * LocalSubjectAccessReview (create in a namespace): a SubjectAccessReview limited to the
 * namespace of the request, so that a namespace's own policy can let someone ask it:
 * spec.resourceAttributes.namespace must be that namespace, and non-resource attributes are
 * refused. 201 with the request echoed and `status` filled; nothing is stored. At v1beta1 the
 * spec's `groups` is `group`.
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { Authorizer } from '../authorizer';
import { attributesOfSpec, decide, specAsWritten, specFromVersion, specToVersion, userOfSpec } from './access-review';
import { validateEmptyMetadata, validateLocalScope, validateSubjectSpec } from './review-validation';
import { invalidReview } from './review-errors';

export function localSubjectAccessReviewHandler(authorizer: Authorizer) {
  return async (s: CustomScope): Promise<void> => {
    // The dispatcher routes only namespaced paths here; readBodyAs refuses another metadata.namespace.
    const namespace = s.info.namespace as string;
    writeOptionsOf(s.ctx, 'create');
    const review = await readBodyAs(s.ctx, s.def, namespace);
    const spec = specFromVersion((review.spec ?? {}) as Record<string, unknown>, s.def.version);
    const errs = [
      ...validateSubjectSpec(spec),
      ...validateEmptyMetadata(review.metadata, 'must be empty except for namespace'),
      ...validateLocalScope(spec, namespace),
    ];
    if (errs.length) throw invalidReview(s.def.group, errs);
    const status = await decide(authorizer, attributesOfSpec(userOfSpec(spec), spec));
    writeObject(s.ctx, 201, {
      apiVersion: review.apiVersion, kind: review.kind, metadata: { namespace, creationTimestamp: null }, spec: specToVersion(specAsWritten(spec), s.def.version), status,
    });
  };
}
