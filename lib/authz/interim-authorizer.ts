/**
 * The policy until RBAC lands (issue 14 replaces this with --authorization-mode):
 * - `system:masters` may do everything, as in Kubernetes;
 * - impersonation (verb `impersonate`) is for `system:masters` only;
 * - any other authenticated user may do everything else;
 * - anonymous requests may read what Kubernetes' `system:public-info-viewer` role grants:
 *   exactly `/healthz`, `/livez`, `/readyz`, `/version` and `/version/` (not the single checks).
 */
import { AuthorizationAttributes } from './attributes';
import { AuthorizationResult, Authorizer, allow, noOpinion } from './authorizer';
import { ALL_AUTHENTICATED, SYSTEM_MASTERS } from '../authn/user';

const PUBLIC_INFO = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

export const interimAuthorizer: Authorizer = {
  authorize(a: AuthorizationAttributes): AuthorizationResult {
    const groups = a.user.groups;
    if (groups.includes(SYSTEM_MASTERS)) return allow();
    if (a.verb === 'impersonate') return noOpinion('until authorization modes are served, only system:masters may impersonate');
    if (groups.includes(ALL_AUTHENTICATED)) return allow();
    if (!a.isResourceRequest && a.verb === 'get' && PUBLIC_INFO.has(a.path)) return allow();
    return noOpinion();
  },
};
