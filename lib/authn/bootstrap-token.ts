/**
 * Bootstrap tokens (--enable-bootstrap-token-auth): `<token-id>.<token-secret>` names the Secret
 * `bootstrap-token-<token-id>` in the system namespace, of the bootstrap token type, read from the
 * watch cache. It authenticates as `system:bootstrap:<token-id>` in `system:bootstrappers` plus its
 * `auth-extra-groups` when its secret matches (compared in constant time), it is not being
 * deleted, not expired, and marked `usage-bootstrap-authentication: "true"`.
 */
import { AuthResult, MaybePromise, NOT_MINE, TokenAuthenticator, authenticated, invalid, isPromise } from './authenticator';
import { ObjectLookup } from './object-lookup';
import { sameSecret } from './constant-time';
import { ApiObject } from '../scheme/types';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

/** A data value of the Secret, decoded from base64 ('' when absent). */
function dataOf(secret: ApiObject, key: string): string {
  const data = secret.data as Record<string, string> | undefined;
  return data && typeof data[key] === 'string' ? Buffer.from(data[key], 'base64').toString('utf8') : '';
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Milliseconds since the epoch of an RFC 3339 time as Go's time.Parse(time.RFC3339) reads it
 * (fractional seconds allowed, fields in range, the day existing in its month); undefined
 * otherwise. Date.parse is no stand-in: it also takes dates without time or zone.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const date = new Date(Date.UTC(2000, 0, 1, h, mi, s));
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it reads years 0-99 as 1900-1999
  if (date.getUTCDate() !== d) return undefined; // e.g. February 30
  const t = date.getTime();
  let offset = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const fraction = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  return t + fraction - offset;
}

/** Whether the Secret's `expiration` has passed; one that is not RFC 3339 counts as expired, as in Kubernetes. */
export function bootstrapTokenExpired(secret: ApiObject, now: number): boolean {
  const expiration = dataOf(secret, 'expiration');
  if (!expiration) return false;
  const t = parseRfc3339(expiration);
  return t === undefined || t <= now;
}

/** `system:bootstrappers` and the extra groups, sorted and without repeats; undefined when one is invalid. */
export function bootstrapGroups(secret: ApiObject): string[] | undefined {
  const groups = new Set([BOOTSTRAPPERS_GROUP]);
  const extra = dataOf(secret, 'auth-extra-groups');
  if (extra) {
    for (const g of extra.split(',')) {
      if (!EXTRA_GROUP.test(g)) return undefined;
      groups.add(g);
    }
  }
  return [...groups].sort();
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'bootstrap-token';

  constructor(private readonly secrets: ObjectLookup, private readonly systemNamespace: string, private readonly secretType: string) {}

  authenticateToken(token: string): MaybePromise<AuthResult> {
    const m = TOKEN.exec(token);
    if (!m) return NOT_MINE;
    const [, id, tokenSecret] = m;
    const found = this.secrets.get(this.systemNamespace, `bootstrap-token-${id}`);
    return isPromise(found) ? found.then((s) => this.check(s, id, tokenSecret)) : this.check(found, id, tokenSecret);
  }

  private check(secret: ApiObject | undefined, id: string, tokenSecret: string): AuthResult {
    const name = `bootstrap-token-${id}`;
    if (!secret) return NOT_MINE;
    const bad = (why: string) => invalid(`bootstrap token Secret ${this.systemNamespace}/${name} ${why}`);
    if (secret.metadata?.deletionTimestamp) return bad('is deleted and awaiting removal');
    if (secret.type !== this.secretType || !secret.data) return bad(`has invalid type, expected ${this.secretType}`);
    if (!sameSecret(dataOf(secret, 'token-secret'), tokenSecret)) return bad('has invalid value for key token-secret');
    if (dataOf(secret, 'token-id') !== id) return bad('has invalid value for key token-id');
    if (bootstrapTokenExpired(secret, Date.now())) return bad('has expired');
    if (dataOf(secret, 'usage-bootstrap-authentication') !== 'true') return bad('not marked usage-bootstrap-authentication=true');
    const groups = bootstrapGroups(secret);
    if (!groups) return bad('has invalid value for key auth-extra-groups');
    return authenticated({ name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups });
  }
}
