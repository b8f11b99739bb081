/**
 * The policy until RBAC lands (issue 14 replaces this with --authorization-mode):
 * - `system:masters` may do everything, as in Kubernetes;
 * - impersonation (verb `impersonate`) is for `system:masters` only;
 * - any other authenticated user may do everything else;
 * - anonymous requests may read what Kubernetes' `system:public-info-viewer` role grants:
 *   `/healthz`, `/livez`, `/readyz` (and their checks) and `/version`.
 */
import { AuthorizationAttributes } from './attributes';
import { AuthorizationResult, Authorizer, allow, noOpinion } from './authorizer';
import { ALL_AUTHENTICATED, SYSTEM_MASTERS } from '../authn/user';

const PUBLIC_INFO = /^\/(healthz|livez|readyz)(\/.*)?$|^\/version\/?$/;

export const interimAuthorizer: Authorizer = {
  authorize(a: AuthorizationAttributes): AuthorizationResult {
    const groups = a.user.groups;
    if (groups.includes(SYSTEM_MASTERS)) return allow();
    if (a.verb === 'impersonate') return noOpinion('until authorization modes are served, only system:masters may impersonate');
    if (groups.includes(ALL_AUTHENTICATED)) return allow();
    if (!a.isResourceRequest && a.verb === 'get' && PUBLIC_INFO.test(a.path)) return allow();
    return noOpinion();
  },
};
