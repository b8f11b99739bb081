/**
 * Service-account JWTs: bound tokens (TokenRequest; issuer one of --service-account-issuer,
 * an audience of those asked, not expired, and their service account and bound pod or secret
 * still there with the same uid) and legacy tokens (the token controller's, issuer
 * `<flavor>/serviceaccount`, valid while their Secret holds them and the account exists, checked
 * with --service-account-lookup). Signatures are verified with jose against every verification
 * key; verified claims are cached by the token's digest, so a repeated token costs a hash and
 * the in-memory lookups, never another signature check. Lookups run on every request: deleting
 * the account revokes its tokens at once.
 */
import { jose } from '../lazy-packages';
import { AuthResult, Authenticated, Invalid, MaybePromise, NOT_MINE, TokenAuthenticator, authenticated, invalid, isPromise } from './authenticator';
import { intersectAudiences } from './audiences';
import { ObjectLookup } from './object-lookup';
import { TokenCache } from './token-cache';
import { sameSecret } from './constant-time';
import { ALL_AUTHENTICATED, UserInfo, serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername } from '../meta/user';
import { ApiObject } from '../scheme/types';
import { BoundPrivateClaim, ClaimNames } from '../serviceaccount/claims';
import { VerificationKey } from '../serviceaccount/keys';

/** Clock skew allowed on exp, nbf and iat, and on deletions (go-jose's DefaultLeeway). */
const LEEWAY_S = 60;
/** How long verified (or refused) signatures are remembered. */
const VERIFIED_TTL_MS = 10 * 60_000;
const REFUSED_TTL_MS = 10_000;

type Claims = Record<string, unknown>;
/** A token whose signature verified, with what was worked out from it once (shared; never mutated). */
interface Accepted {
  claims: Claims;
  /** The user its claims name. */
  user?: UserInfo;
  /** The audiences last asked (the server asks with the same array every time) and the answer for them. */
  asked?: readonly string[];
  answer?: Authenticated | Invalid;
}
type Verified = Accepted | { refused: string };

export interface ServiceAccountTokenOptions {
  /** --service-account-issuer: bound tokens of these issuers are ours. */
  issuers: string[];
  keys: VerificationKey[];
  names: ClaimNames;
  /** --service-account-lookup: check legacy tokens against their Secret and account. */
  lookup: boolean;
  /** --api-audiences: what legacy tokens (no `aud`) are valid for. */
  implicitAudiences: string[];
  serviceAccounts: ObjectLookup;
  pods: ObjectLookup;
  secrets: ObjectLookup;
}

function decodeSegment(segment: string): Claims | undefined {
  try {
    const v = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const then = <T, U>(v: MaybePromise<T>, f: (x: T) => MaybePromise<U>): MaybePromise<U> => (isPromise(v) ? v.then(f) : f(v));

/** An object deleted (deletionTimestamp) more than the leeway ago. */
function deletedLongAgo(obj: ApiObject, nowMs: number): boolean {
  const ts = obj.metadata?.deletionTimestamp;
  return !!ts && Date.parse(ts) < nowMs - LEEWAY_S * 1000;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'service-account-token';
  private readonly verified = new TokenCache<Verified>();

  constructor(private readonly opts: ServiceAccountTokenOptions) {}

  authenticateToken(token: string, audiences: readonly string[]): MaybePromise<AuthResult> {
    const parts = token.split('.');
    if (parts.length !== 3) return NOT_MINE;
    const key = TokenCache.keyOf(token);
    const cached = this.verified.get(key);
    if (cached) return this.afterVerify(cached, token, audiences);
    const unverified = decodeSegment(parts[1]);
    const iss = str(unverified?.iss);
    const legacy = iss === this.opts.names.legacyIssuer;
    if (!legacy && !this.opts.issuers.includes(iss)) return NOT_MINE;
    return this.verify(token).then((v) => {
      this.verified.set(key, v, 'refused' in v ? REFUSED_TTL_MS : VERIFIED_TTL_MS);
      return this.afterVerify(v, token, audiences);
    });
  }

  /** The signature checked against the key of the header's kid first, then every other key. */
  private async verify(token: string): Promise<Verified> {
    const header = decodeSegment(token.slice(0, token.indexOf('.')));
    const kid = str(header?.kid);
    const keys = [...this.opts.keys].sort((a, b) => Number(b.kid === kid) - Number(a.kid === kid));
    for (const k of keys) {
      try {
        const { payload } = await jose().compactVerify(token, k.key, { algorithms: [k.alg] });
        const claims = decodeSegment(Buffer.from(payload).toString('base64url'));
        if (claims) return { claims };
      } catch {
        // the next key
      }
    }
    return { refused: 'service account token signature is invalid' };
  }

  private afterVerify(v: Verified, token: string, audiences: readonly string[]): MaybePromise<AuthResult> {
    if ('refused' in v) return invalid(v.refused);
    const c = v.claims;
    const now = Date.now();
    const nowS = now / 1000;
    if (typeof c.exp === 'number' && nowS - LEEWAY_S > c.exp) return invalid('service account token has expired');
    if (typeof c.nbf === 'number' && nowS + LEEWAY_S < c.nbf) return invalid('service account token is not valid yet');
    if (typeof c.iat === 'number' && nowS + LEEWAY_S < c.iat) return invalid('service account token issued in the future');
    if (v.asked !== audiences) {
      v.asked = audiences;
      v.answer = this.audienceAnswer(v, audiences);
    }
    const answer = v.answer!;
    if (answer.kind === 'invalid') return answer;
    // Lookups on every request: a deleted account (or bound object) revokes the token at once.
    const user = c.iss === this.opts.names.legacyIssuer ? this.validateLegacy(v, token, now) : this.validateBound(v, now);
    return then(user, (u) => (typeof u === 'string' ? invalid(u) : answer));
  }

  /** The token's audiences among those asked (legacy tokens have the server's), with the user. */
  private audienceAnswer(v: Accepted, audiences: readonly string[]): Authenticated | Invalid {
    const c = v.claims;
    const tokenAudiences = Array.isArray(c.aud) ? c.aud.filter((a): a is string => typeof a === 'string')
      : typeof c.aud === 'string' ? [c.aud] : this.opts.implicitAudiences;
    const auds = intersectAudiences(tokenAudiences, audiences);
    if (!auds.length) {
      return invalid(`token audiences ${JSON.stringify(tokenAudiences)} is invalid for the target audiences ${JSON.stringify(audiences)}`);
    }
    return authenticated(this.userOf(v), auds);
  }

  /**
   * The user the claims name, built once per token. It carries `system:authenticated` already,
   * so the chain hands it on as it is (no copy per request).
   */
  private userOf(v: Accepted): UserInfo {
    if (v.user) return v.user;
    const c = v.claims;
    const n = this.opts.names;
    let user: UserInfo;
    if (c.iss === n.legacyIssuer) {
      const ns = str(c[n.legacyNamespace]);
      user = { name: serviceAccountUsername(ns, str(c[n.legacyServiceAccountName])), uid: str(c[n.legacyServiceAccountUid]), groups: serviceAccountGroups(ns) };
    } else {
      const priv = (c[n.privateClaim] ?? {}) as Partial<BoundPrivateClaim>;
      const ns = str(priv.namespace);
      user = { name: serviceAccountUsername(ns, str(priv.serviceaccount?.name)), uid: str(priv.serviceaccount?.uid), groups: serviceAccountGroups(ns) };
      const extra: Record<string, string[]> = {};
      if (priv.pod) {
        extra[n.extraPodName] = [str(priv.pod.name)];
        extra[n.extraPodUid] = [str(priv.pod.uid)];
      }
      if (str(c.jti)) extra[n.extraCredentialId] = [`JTI=${c.jti}`];
      if (Object.keys(extra).length) user.extra = extra;
    }
    user.groups.push(ALL_AUTHENTICATED);
    v.user = user;
    return user;
  }

  /** Whether a bound token still holds (undefined), or why not. */
  private validateBound(v: Accepted, now: number): MaybePromise<undefined | string> {
    const c = v.claims;
    const priv = c[this.opts.names.privateClaim] as BoundPrivateClaim | undefined;
    const ns = str(priv?.namespace);
    const sa = priv?.serviceaccount;
    if (!ns || !sa || !str(sa.name) || !str(sa.uid)) return 'service account token claims are incomplete';
    if (c.sub !== serviceAccountUsername(ns, sa.name)) return 'sub claim is invalid';
    return then(this.opts.serviceAccounts.get(ns, sa.name), (account) => {
      if (!account) return `service account ${ns}/${sa.name} was not found`;
      if (deletedLongAgo(account, now)) return `service account ${ns}/${sa.name} has been deleted`;
      if (account.metadata?.uid !== sa.uid) return `service account UID (${account.metadata?.uid}) does not match claim (${sa.uid})`;
      const bound = priv!.pod ? { lookup: this.opts.pods, ref: priv!.pod, what: 'pod' } : priv!.secret ? { lookup: this.opts.secrets, ref: priv!.secret, what: 'secret' } : undefined;
      if (!bound) return undefined;
      return then(bound.lookup.get(ns, str(bound.ref.name)), (obj): undefined | string => {
        if (!obj || deletedLongAgo(obj, now)) return 'service account token has been invalidated';
        if (obj.metadata?.uid !== bound.ref.uid) return `${bound.what} UID (${obj.metadata?.uid}) does not match service account ${bound.what} ref claim (${bound.ref.uid})`;
        return undefined;
      });
    });
  }

  /** Whether a legacy token holds (undefined), or why not. */
  private validateLegacy(v: Accepted, token: string, now: number): MaybePromise<undefined | string> {
    const c = v.claims;
    const n = this.opts.names;
    const ns = str(c[n.legacyNamespace]);
    const secretName = str(c[n.legacySecretName]);
    const saName = str(c[n.legacyServiceAccountName]);
    const saUid = str(c[n.legacyServiceAccountUid]);
    if (!str(c.sub)) return 'sub claim is missing';
    if (!ns) return 'namespace claim is missing';
    if (!secretName) return 'secretName claim is missing';
    if (!saName) return 'serviceAccountName claim is missing';
    if (!saUid) return 'serviceAccountUID claim is missing';
    const subject = splitServiceAccountUsername(str(c.sub));
    if (!subject || subject.namespace !== ns || subject.name !== saName) return 'sub claim is invalid';
    if (!this.opts.lookup) return undefined;
    return then(this.opts.secrets.get(ns, secretName), (secret) => {
      if (!secret || deletedLongAgo(secret, now)) return 'token has been invalidated';
      const stored = (secret.data as Record<string, string> | undefined)?.token;
      if (!stored || !sameSecret(Buffer.from(stored, 'base64').toString('utf8'), token)) return "token does not match server's copy";
      return then(this.opts.serviceAccounts.get(ns, saName), (account): undefined | string => {
        if (!account) return `service account ${ns}/${saName} was not found`;
        if (deletedLongAgo(account, now)) return 'service account has been deleted';
        if (account.metadata?.uid !== saUid) return `service account UID (${account.metadata?.uid}) does not match claim (${saUid})`;
        return undefined;
      });
    });
  }
}
