/** Secret comparison whose time does not depend on where two values differ. */
import { timingSafeEqual } from 'node:crypto';

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Lengths are not secret (tokens have fixed formats); timingSafeEqual needs them equal.
  return x.length === y.length && timingSafeEqual(x, y);
}
