/**
 * The authenticator contract (DESIGN: small objects tried in a fixed order, each answering
 * "user", "not mine" or "invalid"). Request authenticators look at the whole request (client
 * certificate, proxy headers, the Authorization header); token authenticators at one bearer token.
 * Answers may be synchronous: the common cases (a connection's certificate, a cached token) cost
 * no promise on the hot path.
 */
import type { TLSSocket } from 'node:tls';
import { UserInfo } from '../meta/user';

export type MaybePromise<T> = T | Promise<T>;

/** The credential is this user's. */
export interface Authenticated {
  kind: 'user';
  user: UserInfo;
  /**
   * The audiences the credential is valid for, of those asked (token authenticators); absent
   * when the authenticator does not know audiences (then: the API server's own).
   */
  audiences?: string[];
}

/** The request carries no credential of this kind: the next authenticator is asked. */
export interface NotMine { kind: 'none' }

/**
 * The request carries a credential of this kind that does not authenticate (wrong, expired,
 * revoked, tampered): the request is 401 unless a later authenticator accepts another credential.
 */
export interface Invalid {
  kind: 'invalid';
  /** For the server log: never holds the credential itself. */
  reason: string;
  /** What the client is told instead of the generic "Unauthorized" (a token webhook's status.error). */
  clientMessage?: string;
}

export type AuthResult = Authenticated | NotMine | Invalid;

export const NOT_MINE: NotMine = Object.freeze({ kind: 'none' });

export function authenticated(user: UserInfo, audiences?: string[]): Authenticated {
  return audiences ? { kind: 'user', user, audiences } : { kind: 'user', user };
}

export function invalid(reason: string, clientMessage?: string): Invalid {
  return clientMessage === undefined ? { kind: 'invalid', reason } : { kind: 'invalid', reason, clientMessage };
}

/** What request authenticators read of a request (lib/authn/request.ts builds it from Koa's). */
export interface AuthnRequest {
  /** The first value of a header (name in any case), or undefined. */
  header(name: string): string | undefined;
  /** Every value of a header, one per header line as sent (a repeated header is several). */
  headerValues(name: string): string[];
  /** The lower-case names of the headers present. */
  headerNames(): string[];
  /** Later stages (and anything proxied) no longer see these headers: credentials and proxy headers once used. */
  removeHeaders(names: string[]): void;
  /** The TLS connection, when the request came over TLS. */
  socket?: TLSSocket;
  /** The request came over --insecure-http-port's plain-HTTP listener (insecure-superuser.ts). */
  readonly unsecured?: boolean;
  /** The request's path without its query (what anonymous conditions of --authentication-config match). */
  readonly path?: string;
}

export interface RequestAuthenticator {
  readonly name: string;
  authenticate(req: AuthnRequest): MaybePromise<AuthResult>;
}

export interface TokenAuthenticator {
  readonly name: string;
  /**
   * `audiences`: what the token must be valid for: the server's --api-audiences for a request,
   * a TokenReview's `spec.audiences`. An audience-aware authenticator checks them and answers
   * the subset the token is valid for; an audience-agnostic one is wrapped (audiences.ts).
   * Must not throw: failures are `invalid` answers.
   */
  authenticateToken(token: string, audiences: readonly string[]): MaybePromise<AuthResult>;
}

/** Whether `x` is a promise (the answers above may be either). */
export function isPromise<T>(x: MaybePromise<T>): x is Promise<T> {
  return typeof (x as { then?: unknown })?.then === 'function';
}
