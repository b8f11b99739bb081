/**
 * Bearer tokens (`Authorization: Bearer <token>`): the token authenticators are asked in order
 * (static file, bootstrap, service-account JWT, OIDC, webhook); the first that knows the token
 * decides. A bearer token none accepts is invalid, so it is answered 401 even where anonymous
 * requests are allowed. TokenReview asks the same authenticators through authenticateToken.
 */
import { AuthResult, AuthnRequest, Invalid, MaybePromise, NOT_MINE, RequestAuthenticator, TokenAuthenticator, invalid, isPromise } from './authenticator';
import { intersectAudiences } from './audiences';
import { TokenCache, TokenDigest } from './token-cache';

/**
 * The token of an Authorization header, as Kubernetes reads it: `Bearer` in any case, one space,
 * a non-empty token; anything else is no bearer token at all.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // The usual shape, `Bearer <token>` and nothing around it, without trimming and splitting ~1 KiB.
  if (header.length > 7 && header.charCodeAt(6) === 32 && header.slice(0, 6).toLowerCase() === 'bearer'
    && !/\s/.test(header[7]) && !/\s/.test(header[header.length - 1]) && header.indexOf(' ', 7) < 0) {
    return header.slice(7);
  }
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || !parts[1]) return undefined;
  return parts[1];
}

/** The first token authenticator that answers a user decides; invalid answers are kept for the log. */
export function authenticateToken(auths: readonly TokenAuthenticator[], token: string, audiences: readonly string[]): MaybePromise<AuthResult> {
  const failures: Invalid[] = [];
  const from = (i: number): MaybePromise<AuthResult> => {
    for (; i < auths.length; i++) {
      const a = auths[i];
      let r: MaybePromise<AuthResult>;
      try {
        r = a.authenticateToken(token, audiences);
      } catch (err) {
        // The contract says never throw; one that does has failed on this token, as a rejection has.
        r = invalid(`${a.name}: ${(err as Error)?.message ?? String(err)}`);
      }
      if (isPromise(r)) {
        const next = i + 1;
        return r.then((x) => (x.kind === 'user' ? x : (record(x), from(next))),
          (err) => (record(invalid(`${a.name}: ${(err as Error)?.message ?? String(err)}`)), from(next)));
      }
      if (r.kind === 'user') return r;
      record(r);
    }
    return noneAccepted(failures);
  };
  const record = (r: AuthResult) => { if (r.kind === 'invalid') failures.push(r); };
  return from(0);
}

function noneAccepted(failures: Invalid[]): Invalid {
  const reasons = ['invalid bearer token', ...failures.map((f) => f.reason)];
  return invalid(reasons.join('; '), failures.find((f) => f.clientMessage !== undefined)?.clientMessage);
}

export class BearerTokenAuthenticator implements RequestAuthenticator {
  readonly name = 'bearer-token';
  /** Per connection, its last token's digest: a client repeats its token on every request. */
  private readonly digests = new WeakMap<object, TokenDigest>();

  constructor(private readonly tokens: readonly TokenAuthenticator[], private readonly apiAudiences: readonly string[]) {}

  authenticate(req: AuthnRequest): MaybePromise<AuthResult> {
    const token = bearerToken(req.header('authorization'));
    if (token === undefined) return NOT_MINE;
    if (req.socket) {
      let d = this.digests.get(req.socket);
      if (d?.token !== token) this.digests.set(req.socket, d = TokenCache.digest(token));
      TokenCache.useDigest(d);
    }
    let r: MaybePromise<AuthResult>;
    try {
      r = authenticateToken(this.tokens, token, this.apiAudiences);
    } finally {
      // Only the synchronous part used it; nothing keeps the token once this request moves on.
      TokenCache.useDigest(undefined);
    }
    return isPromise(r) ? r.then((x) => this.finish(x)) : this.finish(r);
  }

  private finish(r: AuthResult): AuthResult {
    if (r.kind !== 'user') return r;
    // A token valid only for other audiences does not authenticate to this server.
    if (r.audiences?.length && !intersectAudiences(this.apiAudiences, r.audiences).length) {
      return invalid(`token audiences ${JSON.stringify(r.audiences)} are not this server's`);
    }
    return r;
  }
}
