/**
 * Service-account issuer discovery (OIDC discovery for the tokens this server signs), so that
 * other parties can verify them: `/.well-known/openid-configuration` (issuer, jwks_uri, what is
 * supported) and `/openid/v1/jwks` (every verification public key, with Kubernetes' key ids).
 * Served as kube-apiserver serves them: JSON, cacheable for an hour; only when the issuer is an
 * https URL (as Kubernetes requires for discovery); the default jwks_uri is this server's own.
 */
import type Router from '@koa/router';
import { VerificationKey } from '../serviceaccount/keys';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
const CACHE_CONTROL = 'public, max-age=3600';

export interface IssuerDiscoveryOptions {
  issuer: string;
  /** --service-account-jwks-uri; empty: `<server URL>/openid/v1/jwks`. */
  jwksUri: string;
  /** The server's own URL, known once it listens. */
  serverUrl: () => string;
  keys: VerificationKey[];
}

/** Whether discovery can be served for `issuer` (an https URL). */
export function discoverable(issuer: string): boolean {
  try {
    return new URL(issuer).protocol === 'https:';
  } catch {
    return false;
  }
}

export async function jwks(keys: VerificationKey[]): Promise<{ keys: Record<string, unknown>[] }> {
  return { keys: await Promise.all(keys.map(async (k) => ({ use: 'sig', ...k.key.export({ format: 'jwk' }), kid: k.kid, alg: k.alg }))) };
}

/** The routes' installer (the key set is exported once, up front); nothing when the issuer is not https. */
export async function issuerDiscoveryRoutes(opts: IssuerDiscoveryOptions): Promise<(router: Router) => void> {
  if (!discoverable(opts.issuer)) return () => undefined;
  const keySet = JSON.stringify(await jwks(opts.keys));
  const algorithms = [...new Set(opts.keys.map((k) => k.alg))].sort();
  return (router) => {
    router.get(OPENID_CONFIGURATION_PATH, (ctx) => {
      ctx.set('Cache-Control', CACHE_CONTROL);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({
        issuer: opts.issuer,
        jwks_uri: opts.jwksUri || `${opts.serverUrl()}${JWKS_PATH}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: algorithms,
      });
    });
    router.get(JWKS_PATH, (ctx) => {
      ctx.set('Cache-Control', CACHE_CONTROL);
      ctx.type = 'application/jwk-set+json';
      ctx.body = keySet;
    });
  };
}
