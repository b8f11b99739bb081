/** The authentication group's handlers, keyed for the resource dispatcher. */
import { CustomHandlers, customKey } from '../../api/resource-handler';
import { StoreIndex } from '../../registry/store-index';
import { Authentication } from '../build';
import { Naming } from '../../naming';
import { TokenGenerator } from '../../serviceaccount/token-generator';
import { tokenRequestKind } from '../../registry/authentication/token-requests/definition';
import { handleSelfSubjectReview } from './self-subject-review';
import { tokenRequestHandler } from './token-request';
import { tokenReviewHandler } from './token-review';

export function authenticationHandlers(deps: {
  naming: Naming; stores: StoreIndex; authentication: Authentication; generator: TokenGenerator; maxExpirationSeconds: number;
}): CustomHandlers {
  const group = deps.naming.group('authentication');
  return new Map([
    // v1beta1 (served only when switched on) is answered by the same handler, in the version asked.
    ...['v1', 'v1beta1'].map((version) => [customKey(group, version, 'tokenreviews', undefined, 'create'),
      tokenReviewHandler(() => deps.authentication.tokenAuthenticators, deps.authentication.apiAudiences)] as const),
    [customKey(group, 'v1', 'selfsubjectreviews', undefined, 'create'), handleSelfSubjectReview],
    [customKey('', 'v1', 'serviceaccounts', 'token', 'create'), tokenRequestHandler({
      stores: deps.stores, generator: deps.generator, apiAudiences: deps.authentication.apiAudiences,
      maxExpirationSeconds: deps.maxExpirationSeconds, bodyKind: tokenRequestKind(deps.naming),
    })],
  ]);
}
