/**
 * TokenReview (create): asks this server's token authenticators, in the chain's order, who a
 * bearer token is, for `spec.audiences` (default: the server's own). 201 with `status`:
 * `authenticated`, `user`, the audiences the token is valid for, and `error` when it is not.
 * Unlike kube-apiserver, the answer does not echo `spec.token` (no credential is written back).
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { errors } from '../../meta/api-errors';
import { TokenAuthenticator } from '../authenticator';
import { authenticateToken } from '../bearer-token';
import { intersectAudiences } from '../audiences';
import { withAuthenticatedGroup } from '../../meta/user';
import { userInfoJson } from './user-info';

export function tokenReviewHandler(tokens: () => readonly TokenAuthenticator[], apiAudiences: readonly string[]) {
  return async (s: CustomScope): Promise<void> => {
    if (s.info.namespace) throw errors.badRequest(`namespace is not allowed on this type: ${s.info.namespace}`);
    const review = await readBodyAs(s.ctx, s.def, undefined);
    const spec = (review.spec ?? {}) as { token?: unknown; audiences?: unknown };
    if (typeof spec.token !== 'string' || spec.token === '') throw errors.badRequest('token is required for TokenReview in authentication');
    const asked = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
    const audiences = asked.length ? asked : [...apiAudiences];
    const result = await authenticateToken(tokens(), spec.token, audiences);
    // Go's omitempty: `authenticated` only when true; `user` always (an empty struct is written).
    const status: Record<string, unknown> = {};
    if (result.kind === 'user') {
      status.authenticated = true;
      const valid = result.audiences ?? audiences;
      if (!intersectAudiences(audiences, valid).length) throw errors.internal('error validating audiences');
      status.user = userInfoJson(withAuthenticatedGroup(result.user));
      status.audiences = valid;
    } else {
      status.user = {};
      status.error = result.kind === 'invalid' ? (result.clientMessage ?? result.reason) : 'invalid bearer token';
    }
    const { token: _token, ...echoed } = spec;
    writeObject(s.ctx, 201, { apiVersion: review.apiVersion, kind: review.kind, metadata: review.metadata ?? {}, spec: echoed, status });
  };
}
