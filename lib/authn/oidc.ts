/**
 * OpenID Connect ID tokens (--oidc-*), checked as kube-apiserver checks them: a token whose
 * unverified `iss` is not the issuer URL is not ours; ours must be signed by one of the issuer's
 * keys (oidc-issuer.ts) with an algorithm of --oidc-signing-algs, be issued to --oidc-client-id,
 * be unexpired, carry the required claims, and name a user in the username claim. The user is
 * the claim with its prefix, the groups the groups claim with theirs; no uid, no extra. The
 * issuer is never asked per request, and tokens cannot be revoked: a verified token's user is
 * cached by the token's digest until it expires (at most CACHE_TTL_MS), so a repeated token costs
 * a hash, not a signature check. The authenticator checks the client id, not the API audiences:
 * build.ts wraps it as audience-agnostic.
 */
import { readFileSync } from 'node:fs';
import type { CompactVerifyGetKey } from 'jose';
import { jose } from '../lazy-packages';
import type { ServerConfig } from '../config';
import { AuthResult, MaybePromise, NOT_MINE, TokenAuthenticator, authenticated, invalid } from './authenticator';
import { TokenCache } from './token-cache';
import { UserInfo } from '../meta/user';
import { CertificatePool } from './cert-pool';
import { OidcIssuer } from './oidc-issuer';

type Claims = Record<string, unknown>;
/** What signatures are checked with: a function from a token's header to a key (jose's JWK sets). */
export type KeySet = CompactVerifyGetKey;

/** Clock skew allowed on nbf (go-oidc's); exp is checked without leeway, as go-oidc does. */
const NBF_LEEWAY_MS = 5 * 60_000;
/** Longest time a verified token is remembered, whatever its exp. */
const CACHE_TTL_MS = 10 * 60_000;
/** The issuer Google's older tokens name, coalesced with its URL as Kubernetes does. */
const LEGACY_GOOGLE_ISSUER = 'accounts.google.com';

/** How claims become a user (the --oidc-*-claim and --oidc-*-prefix flags). */
export interface OidcClaimMapping {
  usernameClaim: string;
  /** Already resolved by oidcUsernamePrefix(). */
  usernamePrefix: string;
  /** Empty: no groups. */
  groupsClaim: string;
  groupsPrefix: string;
  /** --oidc-required-claim: each claim must be present with exactly this string value. */
  requiredClaims: Record<string, string>;
}

export interface OidcOptions extends OidcClaimMapping {
  /** --oidc-issuer-url, exactly as given. */
  issuer: string;
  clientId: string;
  /** --oidc-signing-algs */
  signingAlgs: string[];
  /** The issuer's keys, or undefined while they cannot be had (oidc-issuer.ts). */
  keys(): Promise<KeySet | undefined>;
}

/**
 * The username prefix of the flags (the spec's table): `-` is none; unset is the issuer URL and
 * `#`, unless the username claim is `email` (then none); anything else is used as given.
 */
export function oidcUsernamePrefix(flag: string | undefined, usernameClaim: string, issuer: string): string {
  if (flag === '-') return '';
  if (flag === undefined) return usernameClaim === 'email' ? '' : `${issuer}#`;
  return flag;
}

/** The token's `iss`, read without verifying anything; undefined when the token is no compact JWT. */
export function untrustedIssuer(token: string): string | undefined {
  if (token.trimStart().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const iss = decodeObject(parts[1])?.iss;
  if (typeof iss !== 'string') return undefined;
  return iss === LEGACY_GOOGLE_ISSUER ? `https://${LEGACY_GOOGLE_ISSUER}` : iss;
}

/**
 * Why verified claims do not make a valid ID token for `clientId` of `issuer` at `nowMs`
 * (go-oidc's checks: issuer, audience, expiry, not-before), or undefined when they do.
 */
export function idTokenClaimsProblem(c: Claims, issuer: string, clientId: string, nowMs: number): string | undefined {
  const iss = c.iss === LEGACY_GOOGLE_ISSUER ? `https://${LEGACY_GOOGLE_ISSUER}` : c.iss;
  if (iss !== issuer) return `oidc: id token issued by a different provider, expected ${JSON.stringify(issuer)} got ${JSON.stringify(c.iss)}`;
  const aud = typeof c.aud === 'string' ? [c.aud] : Array.isArray(c.aud) ? c.aud : undefined;
  if (!aud) return 'oidc: malformed claims: aud must be a string or a list of strings';
  if (!aud.includes(clientId)) return `oidc: expected audience ${JSON.stringify(clientId)} got ${JSON.stringify(aud)}`;
  if (typeof c.exp !== 'number') return 'oidc: malformed claims: exp must be a number';
  if (c.exp * 1000 < nowMs) return `oidc: token is expired (Token Expiry: ${isoOf(c.exp)})`;
  if (c.nbf !== undefined) {
    if (typeof c.nbf !== 'number') return 'oidc: malformed claims: nbf must be a number';
    if (nowMs + NBF_LEEWAY_MS < c.nbf * 1000) return `oidc: current time ${new Date(nowMs).toISOString()} before the nbf (not before) time: ${isoOf(c.nbf)}`;
  }
  return undefined;
}

/**
 * The user named by verified claims, or why they name none (in Kubernetes' order: username,
 * email_verified, groups, then the required claims).
 */
export function userFromClaims(c: Claims, m: OidcClaimMapping): UserInfo | string {
  const name = c[m.usernameClaim];
  if (name === undefined) return `oidc: parse username claims ${JSON.stringify(m.usernameClaim)}: claim not present`;
  if (typeof name !== 'string') return `oidc: parse username claims ${JSON.stringify(m.usernameClaim)}: not a string`;
  // Kubernetes would accept an empty name; a user without a name is refused here instead.
  if (name === '') return `oidc: username claim ${JSON.stringify(m.usernameClaim)} is empty`;
  if (m.usernameClaim === 'email' && 'email_verified' in c && c.email_verified !== true) {
    // OIDC core 5.1: a present email_verified must be true for the address to be trusted.
    return typeof c.email_verified === 'boolean' || c.email_verified === null
      ? 'oidc: email not verified' : "oidc: parse 'email_verified' claim: not a boolean";
  }
  const groups = groupsOf(c, m.groupsClaim);
  if (typeof groups === 'string') return groups;
  for (const [claim, want] of Object.entries(m.requiredClaims)) {
    if (!(claim in c)) return `oidc: required claim ${claim} not present in ID token`;
    const got = c[claim];
    if (typeof got !== 'string') return `oidc: parse claim ${claim}: not a string`;
    if (got !== want) return `oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`;
  }
  return { name: m.usernamePrefix + name, groups: groups.map((g) => m.groupsPrefix + g) };
}

/** The groups claim: absent or null is none; a string is one group; else a list of strings. */
function groupsOf(c: Claims, claim: string): string[] | string {
  if (!claim) return [];
  const v = c[claim];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((g) => typeof g === 'string')) return v as string[];
  return `oidc: parse groups claim ${JSON.stringify(claim)}: must be a string or a list of strings`;
}

export class OidcAuthenticator implements TokenAuthenticator {
  readonly name = 'oidc';
  private readonly verified = new TokenCache<UserInfo>();

  constructor(private readonly opts: OidcOptions) {}

  /**
   * The authenticator of the --oidc-* flags; discovery starts in the background. Throws one line
   * naming the flag when --oidc-ca-file cannot be read or holds no certificate.
   */
  static fromFlags(config: ServerConfig, log: (message: string) => void): OidcAuthenticator {
    let ca: string | undefined;
    if (config.oidcCaFile) {
      const source = `--oidc-ca-file ${config.oidcCaFile}`;
      try {
        ca = readFileSync(config.oidcCaFile, 'utf8');
      } catch (err) {
        throw new Error(`${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      ca = CertificatePool.fromPem(ca, source).pem;
    }
    const issuer = new OidcIssuer({ issuer: config.oidcIssuerUrl, ca, log });
    return new OidcAuthenticator({
      issuer: config.oidcIssuerUrl, clientId: config.oidcClientId, signingAlgs: config.oidcSigningAlgs,
      usernameClaim: config.oidcUsernameClaim,
      usernamePrefix: oidcUsernamePrefix(config.oidcUsernamePrefix, config.oidcUsernameClaim, config.oidcIssuerUrl),
      groupsClaim: config.oidcGroupsClaim, groupsPrefix: config.oidcGroupsPrefix, requiredClaims: config.oidcRequiredClaim,
      keys: () => issuer.keys(),
    });
  }

  authenticateToken(token: string): MaybePromise<AuthResult> {
    const key = TokenCache.keyOf(token);
    const cached = this.verified.get(key);
    if (cached) return authenticated(copyUser(cached));
    if (untrustedIssuer(token) !== this.opts.issuer) return NOT_MINE;
    return this.verify(token, key).catch((err) => invalid(`oidc: ${(err as Error).message}`));
  }

  private async verify(token: string, key: string): Promise<AuthResult> {
    const keySet = await this.opts.keys();
    if (!keySet) return invalid('oidc: authenticator not initialized');
    let payload: Uint8Array;
    try {
      payload = await verifiedPayload(token, keySet, this.opts.signingAlgs);
    } catch (err) {
      return invalid(`oidc: verify token: ${this.signatureProblem(err, token)}`);
    }
    const claims = parseObject(Buffer.from(payload).toString('utf8'));
    if (!claims) return invalid('oidc: verify token: oidc: malformed claims: the payload is not a JSON object');
    const now = Date.now();
    const problem = idTokenClaimsProblem(claims, this.opts.issuer, this.opts.clientId, now);
    if (problem) return invalid(`oidc: verify token: ${problem}`);
    const user = userFromClaims(claims, this.opts);
    if (typeof user === 'string') return invalid(user);
    this.verified.set(key, user, Math.min((claims.exp as number) * 1000 - now, CACHE_TTL_MS), now);
    return authenticated(copyUser(user));
  }



  private signatureProblem(err: unknown, token: string): string {
    const header = decodeObject(token.slice(0, token.indexOf('.'))) ?? {};
    if (err instanceof jose().errors.JOSEAlgNotAllowed) {
      return `oidc: id token signed with unsupported algorithm, expected ${JSON.stringify(this.opts.signingAlgs)} got ${JSON.stringify(header.alg)}`;
    }
    if (err instanceof jose().errors.JWKSNoMatchingKey) return `failed to verify signature: no key of the issuer matches kid ${JSON.stringify(header.kid)}`;
    if (err instanceof jose().errors.JWSSignatureVerificationFailed) return 'failed to verify signature: signature verification failed';
    return `failed to verify signature: ${(err as Error).message}`;
  }
}

function parseObject(text: string): Claims | undefined {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const decodeObject = (segment: string): Claims | undefined => parseObject(Buffer.from(segment, 'base64url').toString('utf8'));

function isoOf(seconds: number): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? String(seconds) : d.toISOString();
}

/** A copy: later stages may add groups to the user they are handed. */
const copyUser = (u: UserInfo): UserInfo => ({ name: u.name, groups: [...u.groups] });

/**
 * The verified payload of a compact JWS; the key is the one of the token's kid, or each of the key
 * set's candidates in turn when the token names none (shared by --oidc-* and --authentication-config).
 */
export async function verifiedPayload(token: string, keySet: KeySet, algorithms: string[]): Promise<Uint8Array> {
  const options = { algorithms };
  try {
    return (await jose().compactVerify(token, keySet, options)).payload;
  } catch (err) {
    if (!(err instanceof jose().errors.JWKSMultipleMatchingKeys)) throw err;
    for await (const candidate of err) {
      try {
        return (await jose().compactVerify(token, candidate, options)).payload;
      } catch {
        // the next candidate
      }
    }
    throw new (jose().errors.JWSSignatureVerificationFailed)();
  }
}
