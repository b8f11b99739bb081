/**
 * The controllers' flags (kube-controller-manager's): which controllers run, and the leader
 * election that lets one replica run them. Parsed by lib/server/flags.ts.
 */
import type { ServerConfig } from '../config';
import { bool, duration, flag, list, type FlagDef, type FlagProblem } from '../flag-definitions';
import { checkControllerEntries } from './enabled';
import { leaderElectionTimesProblem } from './leader-election';

export const CONTROLLER_FLAGS: readonly FlagDef[] = [
  flag('controllers', 'controllers', list(), ['*'],
    'Controllers to run: "*" all on by default, "name" one more, "-name" one less (namespace, garbagecollector, '
    + 'ephemeral-volume, serviceaccount, serviceaccount-token, root-ca-cert-publisher, clusterrole-aggregation, '
    + 'pvc-protection, pv-protection, csrsigning, csrapproving, csrcleaner, resourcequota; off by default: tokencleaner, bootstrapsigner).',
    { check: checkControllerEntries }),
  flag('resource-quota-sync-period', 'resourceQuotaSyncPeriodMs', duration, 300_000,
    'How often the resourcequota controller recalculates the usage of every ResourceQuota (kube-controller-manager\'s flag).'),
  flag('leader-elect', 'leaderElect', bool, true,
    'Run the controllers only in the replica that holds the controller-manager Lease (leader election).'),
  flag('leader-elect-lease-duration', 'leaderElectLeaseDurationMs', duration, 15_000,
    'How long other replicas wait, after the last renewal they saw, before taking the lease.'),
  flag('leader-elect-renew-deadline', 'leaderElectRenewDeadlineMs', duration, 10_000,
    'How long the leader keeps trying to renew before it stops its controllers; less than the lease duration.'),
  flag('leader-elect-retry-period', 'leaderElectRetryPeriodMs', duration, 2_000,
    'Interval between tries to acquire or renew the lease.'),
];

/** With leader election on, its three times must fit together (kube's rules). */
export function controllerFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  const election = leaderElectionTimesProblem(c.leaderElectLeaseDurationMs, c.leaderElectRenewDeadlineMs, c.leaderElectRetryPeriodMs);
  if (c.leaderElect && election) return { code: 'IncompatibleFlags', message: `--leader-elect-*: ${election}`, flag: 'leader-elect-lease-duration' };
  return undefined;
}
