/**
 * Builds the authentication chain from the flags, in its fixed order (chain.ts):
 *   request-header proxy, client certificate, bearer tokens (static file, bootstrap,
 *   service-account JWT, OIDC, webhook), anonymous.
 * A flag that names a file that cannot be read or parsed stops the start with one line.
 */
import type { ServerConfig } from '../config';
import { Naming } from '../naming';
import { AuthenticationChain } from './chain';
import { RequestAuthenticator, TokenAuthenticator } from './authenticator';
import { CertificatePool, CertificatePoolHolder } from './cert-pool';
import { X509Authenticator } from './x509';
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

export interface AuthenticationDeps {
  config: ServerConfig;
  naming: Naming;
  /** --client-ca-file, or the generated CA. */
  /** A holder when the CA file is reloaded while the server runs. */
  clientCa: CertificatePool | CertificatePoolHolder;
  /** --requestheader-client-ca-file, when set. */
  requestheaderCa?: CertificatePool;
  /** --token-auth-file read before the server starts anything (else read here). */
  tokenFile?: TokenFileAuthenticator;
  /** Service-account issuers (the flag's, or the flavor's default). */
  issuers: string[];
  apiAudiences: string[];
  verificationKeys: VerificationKey[];
  claimNames: ClaimNames;
  lookups: { secrets: ObjectLookup; serviceAccounts: ObjectLookup; pods: ObjectLookup };
  warn(message: string): void;
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
  if (config.authenticationTokenWebhookConfigFile) {
    // Last: the only token authenticator that calls out; audience-aware, so not wrapped.
    const webhook = webhookTokenAuthenticator(config, naming, deps.apiAudiences);
    tokens.push(webhook);
    closers.push(() => webhook.close());
  }

  const requestAuthenticators: RequestAuthenticator[] = [];
  if (deps.requestheaderCa) {
    requestAuthenticators.push(new RequestHeaderAuthenticator(deps.requestheaderCa, {
      usernameHeaders: config.requestheaderUsernameHeaders, groupHeaders: config.requestheaderGroupHeaders,
      extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix, allowedNames: config.requestheaderAllowedNames,
    }));
  }
  requestAuthenticators.push(new X509Authenticator(deps.clientCa));
  requestAuthenticators.push(new BearerTokenAuthenticator(tokens, deps.apiAudiences));
  return {
    chain: new AuthenticationChain(requestAuthenticators, config.anonymousAuth),
    tokenAuthenticators: tokens,
    apiAudiences: deps.apiAudiences,
    close: () => closers.forEach((c) => c()),
  };
}
