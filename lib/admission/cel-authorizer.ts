/**
 * The CEL `authorizer` of admission expressions (webhook matchConditions, ValidatingAdmissionPolicy):
 * for one request, the value that binds lib/cel's authorizer library to the server's authorization
 * chain, checking as the request's user, with `authorizer.requestResource` the request's own
 * resource. Programs that use it are evaluated with `evaluateAsync` (a check may call a webhook).
 */
import { CelAuthzAttributes, CelAuthzResult, celAuthorizer } from '../cel';
import { AdmissionAttributes, userOf } from '../registry/admission-attributes';
import type { Authorization } from '../authz/build';

/** Checks go to `holder`'s chain (set before anything is served); before that they err. */
export function authorizeVia(holder: { authorization?: Authorization }): (a: CelAuthzAttributes) => Promise<CelAuthzResult> {
  return async (a) => {
    const chain = holder.authorization?.chain;
    if (!chain) return { decision: 'no-opinion', reason: '', error: 'authorization is not ready' };
    return chain.authorize(a);
  };
}

/**
 * `(attrs) => the authorizer value for that request`: what ValidatingAdmissionPolicyPlugin's
 * authorizerFor hook takes (`plugin.authorizerFor = admissionAuthorizerFor(deps.authorization)`).
 */
export function admissionAuthorizerFor(holder: { authorization?: Authorization }): (attrs: AdmissionAttributes) => unknown {
  const authorize = authorizeVia(holder);
  return (attrs) => celAuthorizer(authorize, userOf(attrs), {
    group: attrs.resource.group, resource: attrs.resource.resource, subresource: attrs.subresource ?? '',
    namespace: attrs.namespace ?? '', name: attrs.name ?? '',
  });
}
