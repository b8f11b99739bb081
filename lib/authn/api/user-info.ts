/** The wire form (authentication/v1 UserInfo) of the server's user. */
import { UserInfo } from '../../meta/user';

export interface UserInfoJson {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Empty fields omitted, as Go's omitempty writes them. */
export function userInfoJson(user: UserInfo): UserInfoJson {
  const out: UserInfoJson = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}
