import { isDns1123Label, isDns1123Subdomain } from './validation';

/**
 * The one user type (DESIGN: made by authentication, replaced only by impersonation): what
 * authorization, admission (`userInfo`), the request log and audit all read.
 */

export interface UserInfo {
  name: string;
  /** More stable and unique than the name; absent when the authenticator has none. */
  uid?: string;
  groups: string[];
  /** Opaque to authentication; read by authorizers and webhooks. Never holds credentials. */
  extra?: Record<string, string[]>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const SYSTEM_MASTERS = 'system:masters';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

export const anonymousUser = (): UserInfo => ({ name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] });

/**
 * Adds `system:authenticated` unless the user is `system:anonymous` or already carries
 * `system:authenticated` or `system:unauthenticated` (Kubernetes' AuthenticatedGroupAdder).
 * Returns the same object when nothing changes.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER) return user;
  if (user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/** `system:serviceaccount:<namespace>:<name>` */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** The groups of every service account of a namespace. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/**
 * The namespace and name of a service-account username, or undefined when `username` is not one
 * (Kubernetes' SplitUsername: two parts after the prefix, a valid namespace and account name).
 */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2 || isDns1123Label(parts[0]).length || isDns1123Subdomain(parts[1]).length) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/**
 * An extra key sent in a header name (impersonation, the request-header proxy), as Kubernetes
 * reads it: Go's url.PathUnescape: `%XX` escapes decoded; a malformed escape keeps
 * the key as sent.
 */
export function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%')) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] !== '%') {
      bytes.push(...Buffer.from(encoded[i], 'utf8'));
      continue;
    }
    const hex = encoded.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return encoded;
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}
