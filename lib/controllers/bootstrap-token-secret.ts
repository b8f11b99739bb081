/**
 * A bootstrap token Secret as the bootstrap controllers read it (Kubernetes' cluster-bootstrap
 * secret helpers): which Secrets are tokens, when a token expires, and whether it may sign
 * cluster-info. Values are read here and never logged.
 */
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { parseRfc3339 } from '../authn/bootstrap-token';

const NAME = /^bootstrap-token-([a-z0-9]{6})$/;

/** A data value of the Secret, decoded from base64 ('' when absent). */
export function tokenData(secret: ApiObject, key: string): string {
  const data = secret.data as Record<string, unknown> | undefined;
  const v = data?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/** Whether `secret` is a bootstrap token: the token type, in the system namespace. */
export function isBootstrapTokenSecret(secret: ApiObject, naming: Naming): boolean {
  return secret.type === naming.bootstrapTokenType && secret.metadata?.namespace === naming.systemNamespace;
}

/**
 * When the token expires (ms since the epoch): undefined without `expiration`; an expiration
 * that is not RFC 3339 counts as already expired (0), as Kubernetes' GetExpiration has it.
 */
export function expirationOf(secret: ApiObject): number | undefined {
  const text = tokenData(secret, 'expiration');
  if (!text) return undefined;
  return parseRfc3339(text) ?? 0;
}

/** A token that may sign cluster-info. */
export interface SigningToken { id: string; secret: string; expiresAt?: number }

/**
 * The token when it may sign at `now` (Kubernetes' validateSecretForSigning): its name is
 * `bootstrap-token-<token-id>` of the same id, it has a secret, is not expired, and carries
 * `usage-bootstrap-signing: "true"`.
 */
export function signingTokenOf(secret: ApiObject, now: number): SigningToken | undefined {
  const m = NAME.exec(String(secret.metadata?.name ?? ''));
  const id = tokenData(secret, 'token-id');
  if (!m || !id || m[1] !== id) return undefined;
  const tokenSecret = tokenData(secret, 'token-secret');
  if (!tokenSecret) return undefined;
  const expiresAt = expirationOf(secret);
  if (expiresAt !== undefined && expiresAt <= now) return undefined;
  if (tokenData(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { id, secret: tokenSecret, expiresAt };
}
