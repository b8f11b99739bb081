/**
 * Validation of an AuthenticationConfiguration as Kubernetes 1.32 validates it
 * (k8s.io/apiserver/pkg/apis/apiserver/validation ValidateAuthenticationConfiguration): field paths
 * and messages as kube-apiserver gives them, every CEL expression compiled (lib/cel) and its
 * result type checked. What validates is also what runs: the compiled programs are returned with
 * the errors, so a configuration is compiled once per load.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isDns1123Subdomain } from '../../meta/validation';
import type { CelProgram } from '../../cel';
import { CertificatePool } from '../cert-pool';
import { compileClaimsExpression, compileUserExpression, readsClaim } from './cel';
import type { AuthenticationConfiguration, ClaimMappings, JwtAuthenticator, PrefixedClaimOrExpression } from './types';

/** At most this many JWT authenticators. */
export const MAX_JWT_AUTHENTICATORS = 64;

export interface CompiledRule { expression: string; message: string; program: CelProgram }

/** One JWT authenticator with its expressions compiled. */
export interface CompiledJwt {
  config: JwtAuthenticator;
  username?: CelProgram;
  groups?: CelProgram;
  uid?: CelProgram;
  extra: { key: string; expression: string; program: CelProgram }[];
  claimRules: CompiledRule[];
  userRules: CompiledRule[];
}

export interface ValidatedConfiguration { errors: FieldError[]; jwt: CompiledJwt[] }

const { required, invalid, duplicate, tooMany, forbidden } = fieldErrors;

/**
 * The field errors of `c` (empty: valid) and its compiled authenticators. `disallowedIssuers`: the
 * service-account issuers, which no JWT authenticator may claim.
 */
export function validateAuthenticationConfiguration(c: AuthenticationConfiguration, disallowedIssuers: readonly string[]): ValidatedConfiguration {
  const errors: FieldError[] = [];
  const jwt: CompiledJwt[] = [];
  if (c.jwt.length > MAX_JWT_AUTHENTICATORS) return { errors: [tooMany('jwt', c.jwt.length, MAX_JWT_AUTHENTICATORS)], jwt };
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  c.jwt.forEach((a, i) => {
    const path = `jwt[${i}]`;
    const compiled = validateJwtAuthenticator(a, path, disallowedIssuers, errors);
    jwt.push(compiled);
    if (seenIssuers.has(a.issuer.url)) errors.push(duplicate(`${path}.issuer.url`, a.issuer.url));
    seenIssuers.add(a.issuer.url);
    if (a.issuer.discoveryURL) {
      if (seenDiscovery.has(a.issuer.discoveryURL)) errors.push(duplicate(`${path}.issuer.discoveryURL`, a.issuer.discoveryURL));
      seenDiscovery.add(a.issuer.discoveryURL);
    }
  });
  if (c.anonymous && !c.anonymous.enabled && c.anonymous.conditions.length > 0) {
    errors.push(invalid('anonymous.conditions', c.anonymous.conditions, 'enabled should be set to true when conditions are defined'));
  }
  return { errors, jwt };
}

function validateJwtAuthenticator(a: JwtAuthenticator, path: string, disallowed: readonly string[], errors: FieldError[]): CompiledJwt {
  const out: CompiledJwt = { config: a, extra: [], claimRules: [], userRules: [] };
  validateIssuer(a, `${path}.issuer`, disallowed, errors);
  const state = { usesEmail: false, usesEmailVerified: false };
  validateClaimValidationRules(a, `${path}.claimValidationRules`, out, state, errors);
  validateClaimMappings(a.claimMappings, `${path}.claimMappings`, out, state, errors);
  validateUserValidationRules(a, `${path}.userValidationRules`, out, errors);
  return out;
}

function validateIssuer(a: JwtAuthenticator, path: string, disallowed: readonly string[], errors: FieldError[]): void {
  const { url, discoveryURL, audiences, audienceMatchPolicy, certificateAuthority } = a.issuer;
  if (!url) errors.push(required(`${path}.url`));
  else errors.push(...validateUrl(url, disallowed, `${path}.url`));
  if (discoveryURL) {
    if (url && url.replace(/\/+$/, '') === discoveryURL.replace(/\/+$/, '')) {
      errors.push(invalid(`${path}.discoveryURL`, discoveryURL, 'discoveryURL must be different from URL'));
    }
    errors.push(...validateUrl(discoveryURL, [], `${path}.discoveryURL`));
  }
  const audPath = `${path}.audiences`;
  if (!audiences.length) {
    errors.push(required(audPath, `at least one ${audPath} is required`));
  } else {
    const seen = new Set<string>();
    audiences.forEach((aud, i) => {
      if (!aud) errors.push(required(`${audPath}[${i}]`));
      if (seen.has(aud)) errors.push(duplicate(`${audPath}[${i}]`, aud));
      seen.add(aud);
    });
    const policy = audienceMatchPolicy ?? '';
    if (audiences.length > 1 && policy !== 'MatchAny') {
      errors.push(invalid(`${path}.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    }
    if (audiences.length === 1 && policy !== '' && policy !== 'MatchAny') {
      errors.push(invalid(`${path}.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }
  if (certificateAuthority) {
    try {
      CertificatePool.fromPem(certificateAuthority, 'certificateAuthority');
    } catch {
      errors.push({ type: 'FieldValueInvalid', field: `${path}.certificateAuthority`, message: 'Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates' });
    }
  }
}

function validateUrl(raw: string, disallowed: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (disallowed.includes(raw)) {
    errs.push(invalid(path, raw, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
  }
  let u: URL | undefined;
  try { u = new URL(raw); } catch { u = undefined; }
  if (!u || u.protocol !== 'https:') errs.push(invalid(path, raw, 'URL scheme must be https'));
  if (!u) return errs;
  if (u.username || u.password) errs.push(invalid(path, raw, 'URL must not contain a username or password'));
  if (u.search.length > 1) errs.push(invalid(path, raw, 'URL must not contain a query'));
  if (u.hash.length > 1) errs.push(invalid(path, raw, 'URL must not contain a fragment'));
  return errs;
}

interface EmailState { usesEmail: boolean; usesEmailVerified: boolean }

function validateClaimValidationRules(a: JwtAuthenticator, path: string, out: CompiledJwt, state: EmailState, errors: FieldError[]): void {
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  a.claimValidationRules.forEach((rule, i) => {
    const p = `${path}[${i}]`;
    const claim = rule.claim ?? '';
    const expression = rule.expression ?? '';
    if (claim && expression) errors.push(invalid(p, claim, "claim and expression can't both be set"));
    else if (!claim && !expression) errors.push(required(p, 'claim or expression is required'));
    else if (claim) {
      if (rule.message) errors.push(invalid(`${p}.message`, rule.message, 'may not be specified when claim is set'));
      if (seenClaims.has(claim)) errors.push(duplicate(`${p}.claim`, claim));
      seenClaims.add(claim);
    } else {
      if (rule.requiredValue) errors.push(invalid(`${p}.requiredValue`, rule.requiredValue, 'may not be specified when expression is set'));
      if (seenExpressions.has(expression)) {
        errors.push(duplicate(`${p}.expression`, expression));
        return;
      }
      seenExpressions.add(expression);
      const r = compileClaimsExpression(expression, ['bool']);
      if (!r.ok) errors.push(invalid(`${p}.expression`, expression, r.error));
      else {
        out.claimRules.push({ expression, message: rule.message ?? '', program: r.program });
        state.usesEmailVerified ||= readsClaim(expression, 'email_verified');
      }
    }
  });
}

function validateClaimMappings(m: ClaimMappings, path: string, out: CompiledJwt, state: EmailState, errors: FieldError[]): void {
  out.username = prefixedClaimOrExpression(m.username, `${path}.username`, true, errors);
  if (out.username) {
    state.usesEmail ||= readsClaim(m.username.expression ?? '', 'email');
    state.usesEmailVerified ||= readsClaim(m.username.expression ?? '', 'email_verified');
  }
  out.groups = prefixedClaimOrExpression(m.groups, `${path}.groups`, false, errors);
  if (m.uid.claim && m.uid.expression) errors.push(invalid(`${path}.uid`, '', "claim and expression can't both be set"));
  else if (m.uid.expression) out.uid = compileMapping(m.uid.expression, `${path}.uid.expression`, errors);

  const seenKeys = new Set<string>();
  m.extra.forEach((e, i) => {
    const p = `${path}.extra[${i}]`;
    errors.push(...isDomainPrefixedPath(`${p}.key`, e.key));
    if (e.key !== e.key.toLowerCase()) errors.push(invalid(`${p}.key`, e.key, 'must be lowercase'));
    if (isKubernetesDomain(e.key)) errors.push(invalid(`${p}.key`, e.key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
    if (seenKeys.has(e.key)) {
      errors.push(duplicate(`${p}.key`, e.key));
      return;
    }
    seenKeys.add(e.key);
    if (!e.valueExpression) {
      errors.push(required(`${p}.valueExpression`));
      return;
    }
    const program = compileMapping(e.valueExpression, `${p}.valueExpression`, errors);
    if (program) {
      out.extra.push({ key: e.key, expression: e.valueExpression, program });
      state.usesEmailVerified ||= readsClaim(e.valueExpression, 'email_verified');
    }
  });
  if (state.usesEmail && !state.usesEmailVerified) {
    errors.push(invalid(`${path}.username.expression`, m.username.expression ?? '',
      'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression'));
  }
}

function prefixedClaimOrExpression(m: PrefixedClaimOrExpression, path: string, needed: boolean, errors: FieldError[]): CelProgram | undefined {
  const claim = m.claim ?? '';
  const expression = m.expression ?? '';
  if (expression && claim) errors.push(invalid(path, '', "claim and expression can't both be set"));
  else if (!expression && !claim && needed) errors.push(required(path, 'claim or expression is required'));
  else if (expression) {
    if (m.prefix !== undefined) errors.push(invalid(`${path}.prefix`, m.prefix, 'may not be specified when expression is set'));
    return compileMapping(expression, `${path}.expression`, errors);
  } else if (claim && m.prefix === undefined) {
    errors.push(required(`${path}.prefix`, 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
  }
  return undefined;
}

/** A claim mapping expression: any result type (checked when evaluated). */
function compileMapping(expression: string, path: string, errors: FieldError[]): CelProgram | undefined {
  const r = compileClaimsExpression(expression);
  if (r.ok) return r.program;
  errors.push(invalid(path, expression, r.error));
  return undefined;
}

function validateUserValidationRules(a: JwtAuthenticator, path: string, out: CompiledJwt, errors: FieldError[]): void {
  const seen = new Set<string>();
  a.userValidationRules.forEach((rule, i) => {
    const p = `${path}[${i}].expression`;
    if (!rule.expression) {
      errors.push(required(p));
      return;
    }
    if (seen.has(rule.expression)) {
      errors.push(duplicate(p, rule.expression));
      return;
    }
    seen.add(rule.expression);
    const r = compileUserExpression(rule.expression);
    if (!r.ok) errors.push(invalid(p, rule.expression, r.error));
    else out.userRules.push({ expression: rule.expression, message: rule.message ?? '', program: r.program });
  });
}

/** IsDomainPrefixedPath: `<dns subdomain>/<path>`. */
function isDomainPrefixedPath(path: string, key: string): FieldError[] {
  if (!key) return [required(path)];
  const slash = key.indexOf('/');
  if (slash < 0) return [invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = key.slice(0, slash);
  const rest = key.slice(slash + 1);
  const errs = isDns1123Subdomain(host).map((m) => invalid(path, host, m));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) errs.push(invalid(path, rest, 'Invalid path'));
  return errs;
}

function isKubernetesDomain(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io') || domain === 'k8s.io' || domain.endsWith('.k8s.io');
}

/** Kubernetes' aggregate of field errors: one as is, several in brackets. */
export function aggregate(errors: FieldError[]): string {
  const list = [...new Set(errors.map((e) => `${e.field}: ${e.message}`))];
  return list.length === 1 ? list[0] : `[${list.join(', ')}]`;
}

/** Reload: the anonymous section may not change from the one the server started with. */
export function anonymousChanged(before: AuthenticationConfiguration, after: AuthenticationConfiguration): FieldError | undefined {
  return JSON.stringify(before.anonymous ?? null) === JSON.stringify(after.anonymous ?? null)
    ? undefined : forbidden('anonymous', 'changed from initial configuration file');
}
