/**
 * The authorization group's handlers (the four access reviews), keyed for the resource
 * dispatcher, at v1 and at v1beta1 (served only when switched on; each answers in the version asked).
 */
import { CustomHandlers, customKey } from '../../api/resource-handler';
import { Authorizer, RuleResolver } from '../authorizer';
import { Naming } from '../../naming';
import { subjectAccessReviewHandler } from './subject-access-review';
import { localSubjectAccessReviewHandler } from './local-subject-access-review';
import { selfSubjectAccessReviewHandler } from './self-subject-access-review';
import { selfSubjectRulesReviewHandler } from './self-subject-rules-review';

export function authorizationHandlers(deps: {
  naming: Naming;
  /** The --authorization-mode chain (lib/authz/build.ts: Authorization.chain): decisions and rules. */
  chain: Authorizer & RuleResolver;
}): CustomHandlers {
  const group = deps.naming.group('authorization');
  return new Map(['v1', 'v1beta1'].flatMap((version) => {
    const key = (resource: string) => customKey(group, version, resource, undefined, 'create');
    return [
      [key('subjectaccessreviews'), subjectAccessReviewHandler(deps.chain)],
      [key('localsubjectaccessreviews'), localSubjectAccessReviewHandler(deps.chain)],
      [key('selfsubjectaccessreviews'), selfSubjectAccessReviewHandler(deps.chain)],
      [key('selfsubjectrulesreviews'), selfSubjectRulesReviewHandler(deps.chain)],
    ] as const;
  }));
}
