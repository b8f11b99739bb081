/**
 * The authentication chain: request authenticators in a fixed order, the first user wins;
 * then anonymous. The order (lib/authn/build.ts):
 *   0. the insecure superuser, on --insecure-http-port's connections (insecure-superuser.ts)
 *   1. request-header proxy (only on connections whose certificate chains to the proxy CA)
 *   2. client certificate
 *   3. bearer token: static file, bootstrap, service-account JWT, OIDC, webhook
 *   4. anonymous (`system:anonymous`, group `system:unauthenticated`), when enabled and no
 *      authenticator found an invalid credential: a bad token or certificate is never anonymous.
 * Every authenticated user carries `system:authenticated`.
 */
import { AuthResult, AuthnRequest, Invalid, MaybePromise, RequestAuthenticator, invalid, isPromise } from './authenticator';
import { UserInfo, anonymousUser, withAuthenticatedGroup } from '../meta/user';

export type ChainOutcome = { user: UserInfo; authenticator: string } | { failure: Invalid };

/** Whether anonymous requests are allowed: always, never, or for some requests (--authentication-config's conditions). */
export type AnonymousPolicy = boolean | ((req: AuthnRequest) => boolean);

export class AuthenticationChain {
  constructor(readonly authenticators: readonly RequestAuthenticator[], readonly anonymous: AnonymousPolicy) {}

  authenticate(req: AuthnRequest): MaybePromise<ChainOutcome> {
    return this.from(req, 0, undefined);
  }

  private from(req: AuthnRequest, start: number, failures: Invalid[] | undefined): MaybePromise<ChainOutcome> {
    for (let i = start; i < this.authenticators.length; i++) {
      const a = this.authenticators[i];
      let r: MaybePromise<AuthResult>;
      try {
        r = a.authenticate(req);
      } catch (err) {
        // A throw is a failed credential check, as a rejection is: 401, not 500.
        r = failed(a.name, err);
      }
      if (isPromise(r)) {
        return r.then((x) => this.step(req, i, x, failures), (err) => this.step(req, i, failed(a.name, err), failures));
      }
      if (r.kind === 'user') return this.success(r.user, a.name, req);
      if (r.kind === 'invalid') (failures ??= []).push(r);
    }
    if (failures?.length) return { failure: combine(failures) };
    if (this.anonymous === true || (typeof this.anonymous === 'function' && this.anonymous(req))) {
      return { user: anonymousUser(), authenticator: 'anonymous' };
    }
    return { failure: invalid('no credentials') };
  }

  private step(req: AuthnRequest, i: number, r: AuthResult, failures: Invalid[] | undefined): MaybePromise<ChainOutcome> {
    if (r.kind === 'user') return this.success(r.user, this.authenticators[i].name, req);
    if (r.kind === 'invalid') (failures ??= []).push(r);
    return this.from(req, i + 1, failures);
  }

  private success(user: UserInfo, authenticator: string, req: AuthnRequest): ChainOutcome {
    // Once authenticated, the credential header is of no further use to anything behind us.
    if (req.header('authorization') !== undefined) req.removeHeaders(['authorization']);
    return { user: withAuthenticatedGroup(user), authenticator };
  }
}

function failed(name: string, err: unknown): Invalid {
  return invalid(`${name}: ${(err as Error)?.message ?? String(err)}`);
}

function combine(failures: Invalid[]): Invalid {
  if (failures.length === 1) return failures[0];
  return invalid(failures.map((f) => f.reason).join('; '), failures.find((f) => f.clientMessage !== undefined)?.clientMessage);
}
