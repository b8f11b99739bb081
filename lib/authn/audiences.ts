/**
 * Token audiences. Audience-aware authenticators (service-account JWTs, OIDC, webhooks) check a
 * token's audiences themselves; the others (static and bootstrap tokens) know none and answer only
 * when what is asked includes one of the server's own audiences (--api-audiences), as
 * Kubernetes' WrapAudienceAgnosticToken does.
 */
import { AuthResult, MaybePromise, NOT_MINE, TokenAuthenticator, authenticated, invalid, isPromise } from './authenticator';

/** The members of `wanted` that are also in `have`, in `wanted`'s order. */
export function intersectAudiences(wanted: readonly string[], have: readonly string[]): string[] {
  return wanted.filter((a) => have.includes(a));
}

export function audienceAgnostic(inner: TokenAuthenticator, apiAudiences: readonly string[]): TokenAuthenticator {
  const finish = (r: AuthResult, auds: string[]): AuthResult => {
    if (r.kind !== 'user') return r;
    if (r.audiences?.length) return invalid(`${inner.name}: an audience-agnostic authenticator answered audiences`);
    return authenticated(r.user, auds);
  };
  return {
    name: inner.name,
    authenticateToken(token: string, audiences: readonly string[]): MaybePromise<AuthResult> {
      // The asked audiences' order, as Kubernetes' implicit.Intersect(asked).
      const auds = intersectAudiences(audiences, apiAudiences);
      if (!auds.length) return NOT_MINE;
      const r = inner.authenticateToken(token, audiences);
      return isPromise(r) ? r.then((x) => finish(x, auds)) : finish(r, auds);
    },
  };
}
