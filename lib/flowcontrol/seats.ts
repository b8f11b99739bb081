/**
 * Work estimation (kube-apiserver 1.32's k8s.io/apiserver pkg/util/flowcontrol/request): how many
 * seats a request takes.
 *  - list (and watch with sendInitialEvents=true): by the objects it reads, from the resource's
 *    stored-object count: from the cache (or with resourceVersion=0-like reads) all of them; with
 *    a selector, count + limit; otherwise 2 x limit (limit = min(limit, count)); / 100 objects per
 *    seat; at least 1, at most the level's maximum (at most 10). A list by name or of an unknown
 *    count: 1; a count not known yet (cache not ready): the maximum.
 *  - writes: 1 seat, then ceil(watchers / 10) final seats for 5 ms per seat-watch share, when
 *    at least 10 watchers watch the resource (mutating_work_estimator.go).
 *  - everything else (get, deletecollection, non-resource requests, writes of events): 1 seat.
 */
import type { WorkEstimate } from './queueset';

const OBJECTS_PER_SEAT = 100;
const WATCHES_PER_SEAT = 10;
const MAXIMUM_SEATS_LIMIT = 10;
const EVENT_ADDITIONAL_MS = 5;

/** One seat for the request's time: the work of every request that reads no counts (workReadsCounts). */
export const ONE_SEAT: WorkEstimate = Object.freeze({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
const MUTATING_VERBS = new Set(['create', 'update', 'patch', 'delete']);

export interface EstimateInput {
  verb: string;
  isResourceRequest: boolean;
  resource: string;
  name?: string;
  /** The list's query parameters. */
  query: URLSearchParams;
}

export interface Counts {
  /** The resource's stored objects; undefined: unknown (not counted), null: not known yet. */
  objects(): number | undefined | null;
  /** Watchers of the resource (0 when not tracked). */
  watchers(): number;
}

/** Whether estimateWork reads the resource's counts for a request of `verb` (lists, watches, writes); any other request's work is ONE_SEAT. */
export function workReadsCounts(verb: string): boolean {
  return verb === 'list' || verb === 'watch' || MUTATING_VERBS.has(verb);
}

/** `levelMaxSeats` is the level's maximum (0: none configured, so 10). */
export function estimateWork(r: EstimateInput, counts: Counts, levelMaxSeats: number): WorkEstimate {
  if (!r.isResourceRequest) return ONE_SEAT;
  const maxSeats = levelMaxSeats === 0 || levelMaxSeats > MAXIMUM_SEATS_LIMIT ? MAXIMUM_SEATS_LIMIT : levelMaxSeats;
  if (r.verb === 'list' || r.verb === 'watch') return listWork(r, counts, maxSeats);
  // Events are exempt from the watchers' share (kube's isRequestExemptFromWatchEvents).
  if (!MUTATING_VERBS.has(r.verb) || r.resource === 'events') return ONE_SEAT;
  const watchers = counts.watchers();
  if (watchers < WATCHES_PER_SEAT) return ONE_SEAT;
  const finalSeats = Math.ceil(watchers / WATCHES_PER_SEAT);
  const finalWorkMs = finalSeats * EVENT_ADDITIONAL_MS;
  const capped = Math.min(finalSeats, maxSeats);
  return { initialSeats: 1, finalSeats: capped, additionalLatencyMs: finalWorkMs / capped };
}

function listWork(r: EstimateInput, counts: Counts, maxSeats: number): WorkEstimate {
  if (r.name) return ONE_SEAT;
  const q = r.query;
  if (r.verb === 'watch' && q.get('sendInitialEvents') !== 'true') return ONE_SEAT;
  const stored = counts.objects();
  if (stored === null) return seats(maxSeats);
  if (stored === undefined) return ONE_SEAT;
  const limitParam = Number(q.get('limit') ?? '0');
  const limit = limitParam > 0 && limitParam < stored ? limitParam : stored;
  let objects: number;
  if (r.verb === 'watch' || !fromStorage(q)) objects = stored;
  else if (q.get('fieldSelector') || q.get('labelSelector')) objects = stored + limit;
  else objects = 2 * limit;
  return seats(Math.min(maxSeats, Math.max(1, Math.ceil(objects / OBJECTS_PER_SEAT))));
}

/**
 * kube's shouldListFromStorage with consistent lists served from the cache (1.32's default,
 * ConsistentListFromCache, as this server does): continuations and exact matches go to storage.
 */
function fromStorage(q: URLSearchParams): boolean {
  const rv = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const limit = Number(q.get('limit') ?? '0');
  if ((q.get('continue') ?? '') !== '') return true;
  const legacyExact = limit > 0 && match === '' && rv !== '' && rv !== '0';
  return (match !== '' && match !== 'NotOlderThan') || legacyExact;
}

function seats(n: number): WorkEstimate {
  return n === 1 ? ONE_SEAT : { initialSeats: n, finalSeats: 0, additionalLatencyMs: 0 };
}
