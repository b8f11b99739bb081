/**
 * Cascading deletion at delete time (Kubernetes' deletionFinalizersForGarbageCollection): the
 * store records the propagation policy as a finalizer that the garbage collector acts on.
 * Foreground adds `foregroundDeletion` (dependents first), Orphan adds `orphan` (owner references
 * removed from dependents first), Background adds neither (the owner goes at once).
 */
import { DeleteOptions } from './options';

/** The finalizer names Kubernetes uses (no vendor domain: clients send them unchanged). */
export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/**
 * A kind's propagation when a delete request names none (Kubernetes' DefaultGarbageCollectionPolicy):
 * DeleteDependents is Background; Unsupported means the kind never carries these finalizers.
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** Orphan wins over Foreground in the same order Kubernetes checks them. */
function shouldOrphan(finalizers: string[], opts: DeleteOptions, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy) return opts.propagationPolicy === 'Orphan';
  // A finalizer already on the object is the policy chosen earlier.
  if (finalizers.includes(FINALIZER_ORPHAN)) return true;
  if (finalizers.includes(FINALIZER_FOREGROUND)) return false;
  return policy === 'OrphanDependents';
}

function shouldDeleteInForeground(finalizers: string[], opts: DeleteOptions, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy) return opts.propagationPolicy === 'Foreground';
  if (finalizers.includes(FINALIZER_FOREGROUND)) return true;
  return false;
}

/**
 * The object's finalizers after a delete request with `opts`: both propagation finalizers are
 * dropped and the chosen one (if any) appended. `changed` is false when the set is the same, in
 * which case `finalizers` is the input unchanged (order kept).
 */
export function deletionFinalizers(finalizers: string[], opts: DeleteOptions,
  policy: GarbageCollectionPolicy = 'DeleteDependents'): { changed: boolean; finalizers: string[] } {
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(finalizers, opts, policy)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteInForeground(finalizers, opts, policy)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(finalizers);
  const after = new Set(next);
  const same = before.size === after.size && [...after].every((f) => before.has(f));
  return same ? { changed: false, finalizers } : { changed: true, finalizers: next };
}
