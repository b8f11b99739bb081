/**
 * API priority and fairness's flag (kube-apiserver's): `--enable-priority-and-fairness`, on by
 * default; off, the plain in-flight limits (lib/server/max-inflight.ts) guard the server instead.
 * Parsed by lib/server/flags.ts; its place in the help is lib/server/flag-table.ts's.
 */
import { bool, flag, type FlagDef } from '../flag-definitions';

export const FLOWCONTROL_FLAGS: readonly FlagDef[] = [
  flag('enable-priority-and-fairness', 'enablePriorityAndFairness', bool, true,
    'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness'),
];
