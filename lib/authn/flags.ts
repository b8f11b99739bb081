/**
 * The authentication flags (kube-apiserver's authentication options, but the service accounts',
 * which are lib/serviceaccount/flags.ts's): client certificates, static and bootstrap tokens, the
 * authenticating proxy, OIDC, the token webhook, anonymous requests. Parsed by lib/server/flags.ts.
 */
import type { ServerConfig } from '../config';
import {
  bool, duration, flag, givenTogether, list, mustBeHttpsUrl, notEmpty, oneOf, optionalText, stringMap, text,
  type FlagDef, type FlagProblem,
} from '../flag-definitions';

const noBlanks = (vs: string[]) => (vs.some((v) => v.trim() === '') ? 'must not hold empty names' : undefined);

export const AUTHENTICATION_FLAGS: readonly FlagDef[] = [
  flag('client-ca-file', 'clientCaFile', text, '', 'CA bundle that verifies client certificates.'),
  flag('token-auth-file', 'tokenAuthFile', text, '', 'CSV of static bearer tokens: token,user,uid,"group1,group2".'),
  flag('anonymous-auth', 'anonymousAuth', bool, true, 'Treat requests without credentials as system:anonymous.'),
  flag('enable-bootstrap-token-auth', 'enableBootstrapTokenAuth', bool, false,
    'Accept bootstrap tokens from Secrets in the system namespace.'),
  flag('requestheader-username-headers', 'requestheaderUsernameHeaders', list(), [],
    'Headers naming the user behind an authenticating proxy (e.g. X-Remote-User); the first with a value wins.', { check: noBlanks }),
  flag('requestheader-group-headers', 'requestheaderGroupHeaders', list(), [],
    'Headers whose every value is a group of the proxied user (e.g. X-Remote-Group).', { check: noBlanks }),
  flag('requestheader-extra-headers-prefix', 'requestheaderExtraHeadersPrefix', list(), [],
    'Header prefixes (e.g. X-Remote-Extra-) whose headers are extra attributes of the proxied user.', { check: noBlanks }),
  flag('requestheader-client-ca-file', 'requestheaderClientCaFile', text, '',
    'CA bundle a proxy\'s client certificate must chain to before its user headers are trusted.'),
  flag('requestheader-allowed-names', 'requestheaderAllowedNames', list(), [],
    'Common names allowed for proxy certificates; empty allows any certificate of the proxy CA.', { check: noBlanks }),
  flag('authentication-config', 'authenticationConfig', text, '',
    'File with an AuthenticationConfiguration (apiserver.config.k8s.io v1beta1 or v1alpha1) of JWT authenticators and the anonymous authenticator; '
    + 'reloaded when it changes. Mutually exclusive with the --oidc-* flags, and with --anonymous-auth if the file configures anonymous.'),
  flag('oidc-issuer-url', 'oidcIssuerUrl', text, '', 'OpenID Connect issuer (https); enables ID-token authentication.', { check: mustBeHttpsUrl }),
  flag('oidc-client-id', 'oidcClientId', text, '', 'Client ID every ID token must be issued to (its aud).'),
  flag('oidc-username-claim', 'oidcUsernameClaim', text, 'sub', 'Claim used as the user name.', { check: notEmpty }),
  flag('oidc-username-prefix', 'oidcUsernamePrefix', optionalText, undefined,
    'Prefix of OIDC user names; "-" for none. Unset: the issuer URL and "#", unless the claim is email.'),
  flag('oidc-groups-claim', 'oidcGroupsClaim', text, '', 'Claim (a string or a list of strings) used as groups.'),
  flag('oidc-groups-prefix', 'oidcGroupsPrefix', text, '', 'Prefix of OIDC group names.'),
  flag('oidc-required-claim', 'oidcRequiredClaim', stringMap, {}, 'key=value claims every ID token must carry; repeatable.'),
  flag('oidc-ca-file', 'oidcCaFile', text, '', 'CA bundle of the OIDC issuer\'s serving certificate; empty: the system roots.'),
  flag('oidc-signing-algs', 'oidcSigningAlgs', list(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512']), ['RS256'],
    'JOSE algorithms accepted for ID-token signatures.'),
  flag('authentication-token-webhook-config-file', 'authenticationTokenWebhookConfigFile', text, '',
    'Kubeconfig-format file of a remote service that authenticates bearer tokens by TokenReview.'),
  flag('authentication-token-webhook-version', 'authenticationTokenWebhookVersion', oneOf<'v1' | 'v1beta1'>(['v1', 'v1beta1']), 'v1beta1',
    'TokenReview version sent to the token webhook.'),
  flag('authentication-token-webhook-cache-ttl', 'authenticationTokenWebhookCacheTtlMs', duration, 120_000,
    'How long the token webhook\'s answers (yes and no) are cached.'),
];

/** The first broken rule between the authentication flags, or undefined. */
export function authenticationFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  if (c.authenticationConfig !== '') {
    if (oidcFlagsSet(c)) return { code: 'IncompatibleFlags', message: 'authentication-config file and oidc-* flags are mutually exclusive', flag: 'authentication-config' };
  } else {
    const oidc = givenTogether('oidc-issuer-url', c.oidcIssuerUrl, 'oidc-client-id', c.oidcClientId);
    if (oidc) return oidc;
  }
  if (c.requestheaderClientCaFile !== '' && !c.requestheaderUsernameHeaders.length) {
    return { code: 'IncompatibleFlags', message: '--requestheader-client-ca-file needs --requestheader-username-headers', flag: 'requestheader-username-headers' };
  }
  if (c.requestheaderClientCaFile === '' && (c.requestheaderUsernameHeaders.length || c.requestheaderGroupHeaders.length
    || c.requestheaderExtraHeadersPrefix.length || c.requestheaderAllowedNames.length)) {
    return { code: 'IncompatibleFlags', message: '--requestheader-* headers are trusted only with --requestheader-client-ca-file', flag: 'requestheader-client-ca-file' };
  }
  return undefined;
}

/**
 * Whether any --oidc-* flag is set (Kubernetes tracks the flags given; here, any value but the
 * default counts, so an --oidc-* flag given with its default value goes unnoticed).
 */
function oidcFlagsSet(c: ServerConfig): boolean {
  return c.oidcIssuerUrl !== '' || c.oidcClientId !== '' || c.oidcUsernameClaim !== 'sub' || c.oidcUsernamePrefix !== undefined
    || c.oidcGroupsClaim !== '' || c.oidcGroupsPrefix !== '' || Object.keys(c.oidcRequiredClaim).length > 0 || c.oidcCaFile !== ''
    || c.oidcSigningAlgs.length !== 1 || c.oidcSigningAlgs[0] !== 'RS256';
}
