/**
 * Flags the server accepts (so that kube-apiserver command lines start) but does not act on
 * yet. Setting one to a non-default value logs a warning naming it, so nobody is misled.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ServerConfig } from '../config';
import { FLAGS } from './flags';

const PENDING = new Set<keyof ServerConfig>([
  'enablePriorityAndFairness',
  'corsAllowedOrigins', 'profiling', 'v',
]);

/** The flag names set away from their defaults that have no effect yet. */
export function pendingFlagsSet(config: ServerConfig): string[] {
  return FLAGS.filter((f) => PENDING.has(f.key) && !isDeepStrictEqual(config[f.key], f.default)).map((f) => `--${f.name}`);
}
