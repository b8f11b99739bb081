/**
 * Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>`): the caller, already
 * authenticated, asks to act as someone else. Each part is authorized for the caller with verb
 * `impersonate` (users, groups, serviceaccounts in the core group; uids and userextras/<key> in
 * the authentication group); any refusal is 403. The request then runs as the new user.
 */
import { AuthnRequest } from '../authn/authenticator';
import {
  ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, UserInfo,
  serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername, unescapeExtraKey,
} from '../meta/user';
import { AuthorizationAttributes, forbiddenSentence } from './attributes';
import { Authorizer } from './authorizer';
import { errors } from '../meta/api-errors';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

export type ImpersonationRequest =
  | { kind: 'User'; name: string }
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'Group'; name: string }
  | { kind: 'UserExtra'; key: string; value: string }
  | { kind: 'UID'; uid: string };

function describe(r: ImpersonationRequest): string {
  switch (r.kind) {
    case 'UserExtra': return `UserExtra ${JSON.stringify(r.key)}=${JSON.stringify(r.value)}`;
    case 'UID': return `UID ${JSON.stringify(r.uid)}`;
    case 'ServiceAccount': return `ServiceAccount ${JSON.stringify(`${r.namespace}/${r.name}`)}`;
    default: return `${r.kind} ${JSON.stringify(r.name)}`;
  }
}

/**
 * What the headers ask to impersonate, in Kubernetes' order (user, groups, extras, uid); empty
 * when nothing. Groups, extras or a uid without a user are a 400.
 */
export function impersonationRequests(req: AuthnRequest): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  // The first line of a repeated header, as Go's Header.Get (Node joins the lines with ", ").
  const user = req.headerValues(IMPERSONATE_USER)[0];
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: user });
  }
  for (const g of req.headerValues(IMPERSONATE_GROUP)) out.push({ kind: 'Group', name: g });
  for (const header of req.headerNames()) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    for (const value of req.headerValues(header)) out.push({ kind: 'UserExtra', key, value });
  }
  const uid = req.headerValues(IMPERSONATE_UID)[0];
  if (uid) out.push({ kind: 'UID', uid });
  if (out.length && !user) {
    throw errors.badRequest(`requested [${out.map(describe).join(', ')}] without impersonating a user`);
  }
  return out;
}

/** The attributes under which `requestor` must be allowed one impersonation request. */
export function impersonationAttributes(requestor: UserInfo, r: ImpersonationRequest, authenticationGroup: string): AuthorizationAttributes {
  const base = { user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', apiVersion: 'v1', subresource: '', namespace: '' };
  switch (r.kind) {
    case 'User': return { ...base, apiGroup: '', resource: 'users', name: r.name };
    case 'ServiceAccount': return { ...base, apiGroup: '', resource: 'serviceaccounts', namespace: r.namespace, name: r.name };
    case 'Group': return { ...base, apiGroup: '', resource: 'groups', name: r.name };
    case 'UserExtra': return { ...base, apiGroup: authenticationGroup, resource: 'userextras', subresource: r.key, name: r.value };
    case 'UID': return { ...base, apiGroup: authenticationGroup, resource: 'uids', name: r.uid };
  }
}

/**
 * The user `requestor` becomes, once every request is allowed (403 at the first refusal).
 * Groups: as asked; a service account without asked groups gets its own; a non-anonymous user
 * gets `system:authenticated` unless `system:authenticated` or `system:unauthenticated` was asked,
 * and `system:anonymous` gets `system:unauthenticated`.
 */
export async function impersonate(requestor: UserInfo, requests: ImpersonationRequest[], authorizer: Authorizer,
  authenticationGroup: string): Promise<UserInfo> {
  const groupsAsked = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attrs = impersonationAttributes(requestor, r, authenticationGroup);
    const { decision, reason } = await authorizer.authorize(attrs);
    if (decision !== 'allow') {
      const sentence = forbiddenSentence(attrs);
      throw errors.forbiddenRequest({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, reason ? `${sentence}: ${reason}` : sentence);
    }
    switch (r.kind) {
      case 'User': name = r.name; break;
      case 'ServiceAccount':
        name = serviceAccountUsername(r.namespace, r.name);
        if (!groupsAsked) groups = serviceAccountGroups(r.namespace);
        break;
      case 'Group': groups.push(r.name); break;
      case 'UserExtra': (extra[r.key] ??= []).push(r.value); break;
      case 'UID': uid = r.uid; break;
    }
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  const user: UserInfo = { name, groups };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

/** The headers to forget once the impersonation is done. */
export function impersonationHeaders(req: AuthnRequest): string[] {
  return [IMPERSONATE_USER, IMPERSONATE_GROUP, IMPERSONATE_UID, ...req.headerNames().filter((h) => h.startsWith(IMPERSONATE_EXTRA_PREFIX))];
}
