/**
 * The authorization group's kinds (`authorization.<domain>/v1`): four virtual resources, create
 * only, nothing stored (handlers in this folder). LocalSubjectAccessReview is namespaced, the
 * others cluster-wide. Their bodies are type-checked as Kubernetes decodes them (400).
 */
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { Schema } from '../../scheme/schema';
import { decodeProblem } from '../../scheme/decode-check';
import { localSubjectAccessReviewSchema } from '../../scheme/schemas/local-subject-access-review';
import { selfSubjectAccessReviewSchema } from '../../scheme/schemas/self-subject-access-review';
import { selfSubjectRulesReviewSchema } from '../../scheme/schemas/self-subject-rules-review';
import { subjectAccessReviewSchema } from '../../scheme/schemas/subject-access-review';

function reviewKind(naming: Naming, kind: string, resource: string, schema: Schema, namespaced = false): ResourceDef {
  return {
    group: naming.group('authorization'), version: 'v1', kind, listKind: `${kind}List`, resource, singular: kind.toLowerCase(),
    namespaced, shortNames: [], categories: [], verbs: ['create'], subresources: [],
    deleteReturnsStatus: false, nameValidation: 'path-segment', schema,
    strategy: { checkDecode: (obj) => decodeProblem(obj, schema, kind) },
    virtual: true,
  };
}

export const subjectAccessReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'SubjectAccessReview', 'subjectaccessreviews', subjectAccessReviewSchema);
export const localSubjectAccessReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'LocalSubjectAccessReview', 'localsubjectaccessreviews', localSubjectAccessReviewSchema, true);
export const selfSubjectAccessReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', selfSubjectAccessReviewSchema);
export const selfSubjectRulesReviewResource = (naming: Naming): ResourceDef =>
  reviewKind(naming, 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', selfSubjectRulesReviewSchema);

/** The four kinds, in the order discovery lists them. */
export function authorizationResources(naming: Naming): ResourceDef[] {
  return [
    localSubjectAccessReviewResource(naming), selfSubjectAccessReviewResource(naming),
    selfSubjectRulesReviewResource(naming), subjectAccessReviewResource(naming),
  ];
}
