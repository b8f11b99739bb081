/**
 * The spec's resourceVersion tables as data: from a request's resourceVersion,
 * resourceVersionMatch, limit and continue, what a read must return. Invalid combinations are
 * 400. The read path (list.ts, the watch handler) executes the plan against the watch cache or etcd.
 */
import { errors } from '../meta/api-errors';

export type ReadPlan =
  /** The newest state, confirmed current (a consistent read). */
  | { kind: 'consistent' }
  /** Any state; the cache as it is. */
  | { kind: 'any' }
  /** A state at least as new as `revision`. */
  | { kind: 'notOlderThan'; revision: number }
  /** Exactly the state at `revision` (410 when compacted). */
  | { kind: 'exact'; revision: number };

function parseRevision(rv: string): number {
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    throw errors.badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: must be a non-negative integer`);
  }
  return Number(rv);
}

/** GET of one object. */
export function planGet(resourceVersion: string | undefined): ReadPlan {
  if (!resourceVersion) return { kind: 'consistent' };
  const rv = parseRevision(resourceVersion);
  return rv === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision: rv };
}

export interface ListPlanInput {
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  /** The revision of a continue token, when one was sent. */
  continueRevision?: number;
}

/** A list (the table of the spec, row by row). */
export function planList(input: ListPlanInput): ReadPlan {
  const { resourceVersion, resourceVersionMatch: match, limit, continueRevision } = input;
  if (continueRevision !== undefined) {
    if (match) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (resourceVersion && resourceVersion !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    return { kind: 'exact', revision: continueRevision };
  }
  if (match && !resourceVersion) {
    throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (!resourceVersion) return { kind: 'consistent' };
  const rv = parseRevision(resourceVersion);
  if (match === 'Exact') {
    if (rv === 0) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
    return { kind: 'exact', revision: rv };
  }
  if (match === 'NotOlderThan') return rv === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision: rv };
  if (rv === 0) return { kind: 'any' };
  return limit ? { kind: 'exact', revision: rv } : { kind: 'notOlderThan', revision: rv };
}

/** A watch's start: unset and 0 begin with the current state; a version streams what follows it. */
export type WatchStart =
  | { kind: 'initialState'; plan: ReadPlan }
  | { kind: 'after'; revision: number };

export interface WatchPlanInput {
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
}

export function planWatch(input: WatchPlanInput): WatchStart {
  const { resourceVersion, resourceVersionMatch: match, sendInitialEvents, allowWatchBookmarks } = input;
  if (sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') {
      throw errors.badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
    if (sendInitialEvents && !allowWatchBookmarks) {
      throw errors.badRequest('allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
    }
    const rv = resourceVersion ? parseRevision(resourceVersion) : undefined;
    if (!sendInitialEvents) {
      if (rv === undefined || rv === 0) throw errors.badRequest('sendInitialEvents=false requires a non-zero resourceVersion');
      return { kind: 'after', revision: rv };
    }
    if (rv === undefined) return { kind: 'initialState', plan: { kind: 'consistent' } };
    return { kind: 'initialState', plan: rv === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision: rv } };
  }
  if (match) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  if (!resourceVersion) return { kind: 'initialState', plan: { kind: 'consistent' } };
  const rv = parseRevision(resourceVersion);
  return rv === 0 ? { kind: 'initialState', plan: { kind: 'any' } } : { kind: 'after', revision: rv };
}
