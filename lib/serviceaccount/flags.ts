/**
 * The service-account token flags (kube-apiserver's service-account authentication options): the
 * issuers, the keys that sign and verify, the discovery document's jwks_uri, token lifetimes, the
 * legacy tokens' lookup and the audiences accepted. Parsed by lib/server/flags.ts.
 */
import { bool, duration, flag, list, mustBeHttpsUrl, stringArray, text, type FlagDef } from '../flag-definitions';

function mustBeIssuer(v: string): string | undefined {
  if (!v.includes(':')) return undefined;
  try { new URL(v); return undefined; } catch { return 'contains a ":" but is not a valid URL'; }
}

const mustBeIssuers = (vs: string[]) => vs.map((v) => (v === '' ? 'must not be empty' : mustBeIssuer(v))).find((x) => x);

export const SERVICE_ACCOUNT_FLAGS: readonly FlagDef[] = [
  flag('service-account-issuer', 'serviceAccountIssuer', stringArray, [],
    'Issuer (iss) of service account tokens; repeatable: the first signs, all are accepted. Empty: the flavor\'s default.', { check: mustBeIssuers }),
  flag('service-account-key-file', 'serviceAccountKeyFile', stringArray, [],
    'PEM file of RSA or EC keys (public, private or certificates) that verify service account tokens; repeatable.'),
  flag('service-account-signing-key-file', 'serviceAccountSigningKeyFile', text, '',
    'PEM private key (RSA or EC) that signs service account tokens; empty: a key generated under <data-dir>/pki.'),
  flag('service-account-jwks-uri', 'serviceAccountJwksUri', text, '',
    'jwks_uri of the issuer discovery document; empty: this server\'s URL + /openid/v1/jwks.', { check: mustBeHttpsUrl }),
  flag('service-account-max-token-expiration', 'serviceAccountMaxTokenExpirationMs', duration, 0,
    'Longest lifetime a token request may get; 0 means no limit.'),
  flag('service-account-lookup', 'serviceAccountLookup', bool, true,
    'Check legacy (Secret) tokens against their Secret and service account; bound tokens are always checked.'),
  flag('api-audiences', 'apiAudiences', list(), [],
    'Audiences this server accepts tokens for; empty: the service-account issuers.'),
];
