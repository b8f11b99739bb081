/** Fresh bootstrap tokens (`<6 chars>.<16 chars>`, lower-case alphanumerics) for tests. */
import { randomBytes } from 'node:crypto';

/** `n` random lower-case alphanumerics (the bootstrap token alphabet). */
export const alnum = (n: number): string => {
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(n)].map((b) => chars[b % chars.length]).join('');
};

export interface BootstrapToken { id: string; secret: string; token: string; name: string }

/** A new token and the name of its Secret (`bootstrap-token-<id>`). */
export function newBootstrapToken(): BootstrapToken {
  const id = alnum(6);
  const secret = alnum(16);
  return { id, secret, token: `${id}.${secret}`, name: `bootstrap-token-${id}` };
}
