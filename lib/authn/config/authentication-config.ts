/**
 * --authentication-config: the JWT authenticators of an AuthenticationConfiguration file as one
 * token authenticator, and the file's automatic reload (Kubernetes 1.30+).
 *
 * A token goes to the authenticator of the issuer its unverified `iss` names (none: not ours).
 * A verified token's user is cached by the token's digest until its exp (at most CACHE_TTL_MS),
 * as the --oidc-* authenticator does; the cache belongs to one configuration, so a reload starts
 * afresh. The file is polled; a changed file is decoded, validated and compiled before it
 * replaces the configuration in effect: a bad file keeps the old configuration, is logged once
 * and counted as a failed reload. Issuers whose URL, discovery URL and CA are unchanged keep their
 * discovered keys across reloads.
 */
import { PolledFile } from '../../polled-file';
import { readFileSync } from 'node:fs';
import { AuthResult, MaybePromise, NOT_MINE, TokenAuthenticator, authenticated, invalid } from '../authenticator';
import { TokenCache } from '../token-cache';
import { UserInfo } from '../../meta/user';
import { untrustedIssuer } from '../oidc';
import { OidcIssuer } from '../oidc-issuer';
import { AuthenticationConfigMetrics, NO_METRICS } from './metrics';
import { AuthenticationConfiguration, decodeAuthenticationConfiguration } from './types';
import { aggregate, anonymousChanged, validateAuthenticationConfiguration } from './validation';
import { JwtIssuerAuthenticator } from './jwt-authenticator';
import type { Issuer } from './types';

/** Longest time a verified token is remembered, whatever its exp. */
const CACHE_TTL_MS = 10 * 60_000;
/** How often the file is read to see whether it changed. */
const DEFAULT_POLL_MS = 1_000;

export interface AuthenticationConfigOptions {
  file: string;
  /** The service-account issuers: no JWT authenticator may claim them. */
  serviceAccountIssuers: readonly string[];
  log: { info(message: string): void; error(message: string): void };
  metrics?: AuthenticationConfigMetrics;
  pollMs?: number;
}

/** A loaded configuration: what the file said and the authenticators made of it. */
interface Loaded {
  config: AuthenticationConfiguration;
  byIssuer: Map<string, JwtIssuerAuthenticator>;
  cache: TokenCache<UserInfo>;
}

/** Reads, decodes and validates one file's text; throws one line naming what is wrong. */
export function loadAuthenticationConfiguration(data: string, serviceAccountIssuers: readonly string[]) {
  const config = decodeAuthenticationConfiguration(data);
  const validated = validateAuthenticationConfiguration(config, serviceAccountIssuers);
  if (validated.errors.length) throw new Error(`invalid authentication configuration: ${aggregate(validated.errors)}`);
  return { config, jwt: validated.jwt };
}

const issuerKey = (i: Issuer) => JSON.stringify([i.url, i.discoveryURL ?? '', i.certificateAuthority ?? '']);

export class AuthenticationConfigAuthenticator implements TokenAuthenticator {
  readonly name = 'jwt';
  private loaded: Loaded;
  private readonly issuers = new Map<string, OidcIssuer>();
  private readonly polled: PolledFile;
  private readonly metrics: AuthenticationConfigMetrics;

  /** Throws (one line, the file named) when the file cannot be read or is not a valid configuration. */
  constructor(private readonly opts: AuthenticationConfigOptions) {
    this.metrics = opts.metrics ?? NO_METRICS;
    let data: string;
    try {
      data = readFileSync(opts.file, 'utf8');
    } catch (err) {
      throw new Error(`failed to load authentication configuration from file ${JSON.stringify(opts.file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    try {
      this.loaded = this.build(data);
    } catch (err) {
      throw new Error(`failed to load authentication configuration from file ${JSON.stringify(opts.file)}: ${(err as Error).message}`);
    }
    const file = JSON.stringify(opts.file);
    this.polled = new PolledFile({
      file: opts.file,
      intervalMs: opts.pollMs ?? DEFAULT_POLL_MS,
      apply: (text) => {
        this.loaded = this.build(text, this.loaded.config);
        this.metrics.reload('success');
        opts.log.info(`reloaded authentication config ${file}`);
      },
      unreadable: (cause) => {
        this.metrics.reload('failure');
        opts.log.error(`failed to read authentication config file ${file}: ${cause}`);
      },
      invalid: (err) => {
        this.metrics.reload('failure');
        opts.log.error(`failed to reload authentication config ${file}; keeping the previous one: ${err.message}`);
      },
    }, data);
  }

  /** The configuration in effect. */
  get configuration(): AuthenticationConfiguration {
    return this.loaded.config;
  }

  /** Starts polling the file for changes. */
  watch(): void {
    this.polled.start();
  }

  close(): void {
    this.polled.stop();
  }

  /** Re-reads the file: true when a changed, valid configuration replaced the one in effect. */
  reload(): boolean {
    return this.polled.check();
  }

  private build(data: string, previous?: AuthenticationConfiguration): Loaded {
    const { config, jwt } = loadAuthenticationConfiguration(data, this.opts.serviceAccountIssuers);
    if (previous) {
      const changed = anonymousChanged(previous, config);
      if (changed) throw new Error(`invalid authentication configuration: ${changed.field}: ${changed.message}`);
    }
    const byIssuer = new Map<string, JwtIssuerAuthenticator>();
    const keep = new Set<string>();
    for (const compiled of jwt) {
      const key = issuerKey(compiled.config.issuer);
      keep.add(key);
      let issuer = this.issuers.get(key);
      if (!issuer) {
        const i = compiled.config.issuer;
        issuer = new OidcIssuer({
          issuer: i.url, discoveryUrl: i.discoveryURL || undefined, ca: i.certificateAuthority || undefined,
          log: (m) => this.opts.log.error(m),
        });
        this.issuers.set(key, issuer);
      }
      const holder = issuer;
      byIssuer.set(compiled.config.issuer.url, new JwtIssuerAuthenticator(compiled, () => holder.keys()));
    }
    for (const key of [...this.issuers.keys()]) if (!keep.has(key)) this.issuers.delete(key);
    return { config, byIssuer, cache: new TokenCache<UserInfo>() };
  }

  authenticateToken(token: string): MaybePromise<AuthResult> {
    const loaded = this.loaded;
    const key = TokenCache.keyOf(token);
    const cached = loaded.cache.get(key);
    if (cached) return authenticated(copyUser(cached));
    const iss = untrustedIssuer(token);
    const authenticator = iss === undefined ? undefined : loaded.byIssuer.get(iss);
    if (!authenticator) return NOT_MINE;
    const started = process.hrtime.bigint();
    return authenticator.verify(token).then((v) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.jwtLatency(v.result.kind === 'user' ? 'success' : 'failure', authenticator.issuer, seconds);
      if (v.result.kind === 'user' && v.expiresAtMs !== undefined) {
        const now = Date.now();
        loaded.cache.set(key, v.result.user, Math.min(v.expiresAtMs - now, CACHE_TTL_MS), now);
        return authenticated(copyUser(v.result.user));
      }
      return v.result;
    }, (err: unknown) => invalid(`oidc: ${(err as Error).message}`));
  }
}

/** A copy: later stages may add groups to the user they are handed. */
function copyUser(u: UserInfo): UserInfo {
  const c: UserInfo = { name: u.name, groups: [...u.groups] };
  if (u.uid !== undefined) c.uid = u.uid;
  if (u.extra) c.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return c;
}
