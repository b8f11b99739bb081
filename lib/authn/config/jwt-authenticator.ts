/**
 * One JWT authenticator of an AuthenticationConfiguration (a `jwt[]` entry), checking a token as
 * kube-apiserver's structured OIDC authenticator does: the signature by one of the issuer's keys
 * (discovery and key sets: lib/authn/oidc-issuer.ts), issuer, expiry and not-before as go-oidc
 * checks them (lib/authn/oidc.ts), at least one of the configured audiences (MatchAny), then the
 * claim mappings (claims or CEL), the required claims, the claim validation rules and the user
 * validation rules, in Kubernetes' order and with its messages. Never throws: every failure is an
 * `invalid` answer whose reason is for the log (it never holds the token).
 */
import { jose } from '../../lazy-packages';
import { AuthResult, authenticated, invalid } from '../authenticator';
import { UserInfo } from '../../meta/user';
import { KeySet, idTokenClaimsProblem, verifiedPayload } from '../oidc';
import { evaluate, stringList } from './cel';
import type { CompiledJwt, CompiledRule } from './validation';

type Claims = Record<string, unknown>;

/** Every algorithm Kubernetes accepts with a configuration file (oidc.AllValidSigningAlgorithms). */
export const ALL_SIGNING_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

/** Go's %q of a string list: `["a" "b"]`. */
const goQuoteList = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;

/** The verified answer and, on success, how long it may be remembered (the token's exp). */
export type Verified = { result: AuthResult; expiresAtMs?: number };

export class JwtIssuerAuthenticator {
  readonly issuer: string;

  constructor(readonly compiled: CompiledJwt, private readonly keys: () => Promise<KeySet | undefined>) {
    this.issuer = compiled.config.issuer.url;
  }

  /** A token whose unverified `iss` is this issuer's. */
  async verify(token: string, nowMs = Date.now()): Promise<Verified> {
    const keySet = await this.keys();
    if (!keySet) return { result: invalid('oidc: authenticator not initialized') };
    let payload: Uint8Array;
    try {
      payload = await verifiedPayload(token, keySet, ALL_SIGNING_ALGORITHMS);
    } catch (err) {
      return { result: invalid(`oidc: verify token: ${signatureProblem(err)}`) };
    }
    let claims: Claims;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload).toString('utf8'));
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      claims = parsed as Claims;
    } catch {
      return { result: invalid('oidc: verify token: oidc: malformed claims: the payload is not a JSON object') };
    }
    const problem = this.claimsProblem(claims, nowMs);
    if (problem) return { result: invalid(`oidc: verify token: ${problem}`) };
    const user = this.userOf(claims);
    if (typeof user === 'string') return { result: invalid(user) };
    return { result: authenticated(user), expiresAtMs: (claims.exp as number) * 1000 };
  }

  /** go-oidc's checks (issuer, exp, nbf) and the audience check of Kubernetes' verifier. */
  private claimsProblem(c: Claims, nowMs: number): string | undefined {
    const audiences = this.compiled.config.issuer.audiences;
    const aud = typeof c.aud === 'string' ? [c.aud] : Array.isArray(c.aud) ? (c.aud as unknown[]) : undefined;
    const tokenAudiences = aud?.filter((a): a is string => typeof a === 'string') ?? [];
    const match = tokenAudiences.find((a) => audiences.includes(a));
    // The token's own audience when none matches: the other checks come first, as go-oidc's do.
    const problem = idTokenClaimsProblem(c, this.issuer, match ?? tokenAudiences[0] ?? '', nowMs);
    if (problem) return problem;
    if (!match) return `oidc: expected audience in ${goQuoteList([...audiences].sort())} got ${goQuoteList(tokenAudiences)}`;
    return undefined;
  }

  /** The user the verified claims name, or why they name none (Kubernetes' order and messages). */
  userOf(c: Claims): UserInfo | string {
    const m = this.compiled.config.claimMappings;
    const name = this.username(c);
    if (typeof name !== 'string' || name === '') return name === '' ? 'oidc: the username claim mapping gave an empty username' : name.error;
    const groups = this.groups(c);
    if (!Array.isArray(groups)) return groups.error;
    const user: UserInfo = { name, groups };
    if (m.uid.claim) {
      const uid = stringClaim(c, m.uid.claim);
      if (typeof uid !== 'string') return `oidc: parse uid claim ${JSON.stringify(m.uid.claim)}: ${uid.error}`;
      user.uid = uid;
    } else if (this.compiled.uid) {
      const r = evaluate(this.compiled.uid, { claims: c });
      if (!r.ok) return `oidc: error evaluating uid claim expression: ${r.error}`;
      if (typeof r.value !== 'string') return 'oidc: error evaluating uid claim expression: uid claim expression must return a string';
      user.uid = r.value;
    }
    const extra: Record<string, string[]> = {};
    for (const e of this.compiled.extra) {
      const r = evaluate(e.program, { claims: c });
      if (!r.ok) return `oidc: error evaluating extra claim expression: ${e.expression}: ${r.error}`;
      const values = stringList(r.value);
      if (typeof values === 'string') return `oidc: error evaluating extra claim expression: ${e.expression}: ${values}`;
      if (values.length) extra[e.key] = values;
    }
    if (Object.keys(extra).length) user.extra = extra;
    for (const rule of this.compiled.config.claimValidationRules) {
      if (!rule.claim) continue;
      if (!Object.hasOwn(c, rule.claim)) return `oidc: required claim ${rule.claim} not present in ID token`;
      const v = stringClaim(c, rule.claim);
      if (typeof v !== 'string') return `oidc: parse claim ${rule.claim}: ${v.error}`;
      if (v !== (rule.requiredValue ?? '')) return `oidc: required claim ${rule.claim} value does not match. Got = ${v}, want = ${rule.requiredValue ?? ''}`;
    }
    const claimRule = failedRule(this.compiled.claimRules, { claims: c });
    if (claimRule) return `oidc: error evaluating claim validation expression: ${claimRule}`;
    if (this.compiled.userRules.length) {
      const u = { username: user.name, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} };
      const userRule = failedRule(this.compiled.userRules, { user: u });
      if (userRule) return `oidc: error evaluating user info validation rule: ${userRule}`;
    }
    return user;
  }

  private username(c: Claims): string | { error: string } {
    const m = this.compiled.config.claimMappings.username;
    if (this.compiled.username) {
      const r = evaluate(this.compiled.username, { claims: c });
      if (!r.ok) return { error: `oidc: error evaluating username claim expression: ${r.error}` };
      if (typeof r.value !== 'string') return { error: 'oidc: error evaluating username claim expression: username claim expression must return a string' };
      return r.value;
    }
    const claim = m.claim ?? '';
    const v = stringClaim(c, claim);
    if (typeof v !== 'string') return { error: `oidc: parse username claims ${JSON.stringify(claim)}: ${v.error}` };
    if (claim === 'email' && Object.hasOwn(c, 'email_verified')) {
      if (typeof c.email_verified !== 'boolean') return { error: "oidc: parse 'email_verified' claim: json: cannot unmarshal into Go value of type bool" };
      if (!c.email_verified) return { error: 'oidc: email not verified' };
    }
    return (m.prefix ?? '') + v;
  }

  private groups(c: Claims): string[] | { error: string } {
    const m = this.compiled.config.claimMappings.groups;
    if (m.claim && Object.hasOwn(c, m.claim)) {
      const v = c[m.claim];
      const list = typeof v === 'string' ? [v] : Array.isArray(v) && v.every((g) => typeof g === 'string') ? (v as string[]) : undefined;
      if (!list) return { error: `oidc: parse groups claim ${JSON.stringify(m.claim)}: json: cannot unmarshal ${goType(v)} into Go value of type string` };
      return list.map((g) => (m.prefix ?? '') + g);
    }
    if (!this.compiled.groups) return [];
    const r = evaluate(this.compiled.groups, { claims: c });
    if (!r.ok) return { error: `oidc: error evaluating group claim expression: ${r.error}` };
    const list = stringList(r.value);
    return typeof list === 'string' ? { error: `oidc: error evaluating group claim expression: ${list}` } : list;
  }
}

/** The first rule that does not hold, as Kubernetes words it, or undefined when all hold. */
function failedRule(rules: CompiledRule[], activation: Record<string, unknown>): string | undefined {
  for (const rule of rules) {
    const r = evaluate(rule.program, activation);
    if (!r.ok) return `expression '${rule.expression}' resulted in error: ${r.error}`;
    if (typeof r.value !== 'boolean') return 'validation expression must return a boolean';
    if (!r.value) return `validation expression '${rule.expression}' failed: ${rule.message}`;
  }
  return undefined;
}

/** A claim that must be a string (Go's json.Unmarshal into a string). */
function stringClaim(c: Claims, name: string): string | { error: string } {
  if (!Object.hasOwn(c, name)) return { error: 'claim not present' };
  const v = c[name];
  if (typeof v !== 'string') return { error: `json: cannot unmarshal ${goType(v)} into Go value of type string` };
  return v;
}

function goType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

function signatureProblem(err: unknown): string {
  if (err instanceof jose().errors.JOSEAlgNotAllowed) return `oidc: id token signed with unsupported algorithm, expected ${goQuoteList(ALL_SIGNING_ALGORITHMS)}`;
  if (err instanceof jose().errors.JWKSNoMatchingKey) return 'failed to verify signature: no key of the issuer matches the token';
  if (err instanceof jose().errors.JWSSignatureVerificationFailed) return 'failed to verify signature: signature verification failed';
  return `failed to verify signature: ${(err as Error).message}`;
}
