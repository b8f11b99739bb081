/**
 * Builds the authentication chain from the flags, in its fixed order (chain.ts):
 *   the insecure superuser (--insecure-http-port's connections only), request-header proxy, client certificate, bearer tokens (static file, bootstrap,
 *   service-account JWT, OIDC or --authentication-config's JWT authenticators, webhook), anonymous
 *   (--anonymous-auth, or the configuration file's `anonymous`).
 * A flag that names a file that cannot be read or parsed stops the start with one line.
 */
import type { ServerConfig } from '../config';
import { Naming } from '../naming';
import { AnonymousPolicy, AuthenticationChain } from './chain';
import { RequestAuthenticator, TokenAuthenticator } from './authenticator';
import { CertificatePool, CertificatePoolHolder } from './cert-pool';
import { X509Authenticator } from './x509';
import { InsecureSuperuserAuthenticator } from './insecure-superuser';
import { RequestHeaderAuthenticator } from './request-header';
import { BearerTokenAuthenticator } from './bearer-token';
import { audienceAgnostic } from './audiences';
import { TokenFileAuthenticator } from './token-file';
import { BootstrapTokenAuthenticator } from './bootstrap-token';
import { ServiceAccountTokenAuthenticator } from './service-account-token';
import { webhookTokenAuthenticator } from './webhook-token';
import { OidcAuthenticator } from './oidc';
import { ObjectLookup } from './object-lookup';
import { ClaimNames } from '../serviceaccount/claims';
import { VerificationKey } from '../serviceaccount/keys';
import type { MetricsRegistry } from '../metrics/registry';
import { AuthenticationConfigAuthenticator } from './config/authentication-config';
import { authenticationConfigMetrics } from './config/metrics';
import type { AnonymousConfig } from './config/types';
import { hostname } from 'node:os';

export interface AuthenticationDeps {
  config: ServerConfig;
  naming: Naming;
  /** --client-ca-file, or the generated CA. */
  /** A holder when the CA file is reloaded while the server runs. */
  clientCa: CertificatePool | CertificatePoolHolder;
  /** --requestheader-client-ca-file, when set. */
  requestheaderCa?: CertificatePool;
  /** --authentication-config read before the server starts anything (else read here). */
  authenticationConfig?: AuthenticationConfigAuthenticator;
  /** --token-auth-file read before the server starts anything (else read here). */
  tokenFile?: TokenFileAuthenticator;
  /** Service-account issuers (the flag's, or the flavor's default). */
  issuers: string[];
  apiAudiences: string[];
  verificationKeys: VerificationKey[];
  claimNames: ClaimNames;
  lookups: { secrets: ObjectLookup; serviceAccounts: ObjectLookup; pods: ObjectLookup };
  warn(message: string): void;
  /** Where --authentication-config's reloads are reported (default: warn). */
  info?(message: string): void;
  /** Where --authentication-config's reload and JWT metrics are recorded. */
  metrics?: MetricsRegistry;
}

export interface Authentication {
  chain: AuthenticationChain;
  /** The bearer-token authenticators in order: what TokenReview asks. */
  tokenAuthenticators: TokenAuthenticator[];
  apiAudiences: string[];
  /** Stops background work (key set refreshes, caches). */
  close(): void;
}

export async function buildAuthentication(deps: AuthenticationDeps): Promise<Authentication> {
  const { config, naming } = deps;
  const closers: (() => void)[] = [];
  const tokens: TokenAuthenticator[] = [];
  if (config.tokenAuthFile) {
    tokens.push(audienceAgnostic(deps.tokenFile ?? TokenFileAuthenticator.fromFile(config.tokenAuthFile, deps.warn), deps.apiAudiences));
  }
  if (config.enableBootstrapTokenAuth) {
    tokens.push(audienceAgnostic(new BootstrapTokenAuthenticator(deps.lookups.secrets, naming.systemNamespace, naming.bootstrapTokenType), deps.apiAudiences));
  }
  tokens.push(new ServiceAccountTokenAuthenticator({
    issuers: deps.issuers, keys: deps.verificationKeys, names: deps.claimNames, lookup: config.serviceAccountLookup,
    implicitAudiences: deps.apiAudiences, ...deps.lookups,
  }));
  if (config.oidcIssuerUrl) tokens.push(audienceAgnostic(OidcAuthenticator.fromFlags(config, deps.warn), deps.apiAudiences));
  let anonymous: AnonymousPolicy = config.anonymousAuth;
  const structured = deps.authenticationConfig
    ?? (config.authenticationConfig ? authenticationConfigFromFlags(config, { issuers: deps.issuers, warn: deps.warn, info: deps.info, metrics: deps.metrics }) : undefined);
  if (structured) {
    tokens.push(audienceAgnostic(structured, deps.apiAudiences));
    structured.watch();
    closers.push(() => structured.close());
    const fileAnonymous = structured.configuration.anonymous;
    if (fileAnonymous) anonymous = anonymousPolicy(fileAnonymous);
  }
  if (config.authenticationTokenWebhookConfigFile) {
    // Last: the only token authenticator that calls out; audience-aware, so not wrapped.
    const webhook = webhookTokenAuthenticator(config, naming, deps.apiAudiences);
    tokens.push(webhook);
    closers.push(() => webhook.close());
  }

  // First: a connection of --insecure-http-port carries no credential and needs none.
  const requestAuthenticators: RequestAuthenticator[] = config.insecureHttpPort ? [new InsecureSuperuserAuthenticator()] : [];
  if (deps.requestheaderCa) {
    requestAuthenticators.push(new RequestHeaderAuthenticator(deps.requestheaderCa, {
      usernameHeaders: config.requestheaderUsernameHeaders, groupHeaders: config.requestheaderGroupHeaders,
      extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix, allowedNames: config.requestheaderAllowedNames,
    }));
  }
  requestAuthenticators.push(new X509Authenticator(deps.clientCa));
  requestAuthenticators.push(new BearerTokenAuthenticator(tokens, deps.apiAudiences));
  return {
    chain: new AuthenticationChain(requestAuthenticators, anonymous),
    tokenAuthenticators: tokens,
    apiAudiences: deps.apiAudiences,
    close: () => closers.forEach((c) => c()),
  };
}

/**
 * The authenticator of --authentication-config, not yet watching its file. Throws one line when
 * the file cannot be read, is invalid, or configures `anonymous` while --anonymous-auth is set.
 */
export function authenticationConfigFromFlags(
  config: ServerConfig, opts: { issuers: string[]; warn(m: string): void; info?(m: string): void; metrics?: MetricsRegistry },
): AuthenticationConfigAuthenticator {
  const structured = new AuthenticationConfigAuthenticator({
    file: config.authenticationConfig, serviceAccountIssuers: opts.issuers,
    log: { info: opts.info ?? opts.warn, error: opts.warn },
    metrics: opts.metrics ? authenticationConfigMetrics(opts.metrics, `apiserver-${hostname()}`) : undefined,
  });
  // Kubernetes knows whether --anonymous-auth was given; here only its non-default value shows.
  if (structured.configuration.anonymous && !config.anonymousAuth) {
    throw new Error('invalid authentication configuration: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  }
  return structured;
}

/** The file's anonymous authenticator: off, on, or on for the listed paths only. */
function anonymousPolicy(a: AnonymousConfig): AnonymousPolicy {
  if (!a.enabled) return false;
  if (!a.conditions.length) return true;
  const paths = new Set(a.conditions.map((c) => c.path));
  return (req) => req.path !== undefined && paths.has(req.path);
}
