/**
 * Kubernetes' two system priority classes (pkg/apis/scheduling/v1 helpers, 1.32): every server
 * replica creates them at start (lib/server/priority-class-bootstrap.ts), validation lets no
 * other class take a `system-` name, and a DELETE of either is refused. Their values sit above
 * HighestUserDefinablePriority, which user classes may not exceed.
 */
import { ApiObject } from '../../../scheme/types';

/** HighestUserDefinablePriority: the largest value a user-defined class may have. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** SystemCriticalPriority: the base of the system classes' values. */
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
/** SystemPriorityClassPrefix: names reserved for the system classes. */
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

export interface SystemPriorityClass { name: string; value: number; description: string }

export const SYSTEM_PRIORITY_CLASSES: readonly SystemPriorityClass[] = [
  { name: 'system-node-critical', value: SYSTEM_CRITICAL_PRIORITY + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: SYSTEM_CRITICAL_PRIORITY, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/** The system class of that name, if it is one. */
export const systemPriorityClass = (name: string): SystemPriorityClass | undefined => SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);

/** IsKnownSystemPriorityClass: undefined when name, value and globalDefault match a system class, else the reason. */
export function unknownSystemClassReason(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = systemPriorityClass(name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${spc.name} PriorityClass must be ${spc.value}`;
  // The system classes are never the global default.
  if (globalDefault) return `globalDefault of ${spc.name} PriorityClass must be false`;
  return undefined;
}

/** The system class as the server creates it (its defaults are filled by the store). */
export function systemPriorityClassObject(spc: SystemPriorityClass, apiVersion: string): ApiObject {
  return { apiVersion, kind: 'PriorityClass', metadata: { name: spc.name }, value: spc.value, description: spc.description };
}
