/**
 * events.k8s.io/v1 Event <-> core/v1 Event, field for field as Kubernetes converts them through
 * its internal Event (pkg/apis/events/v1/conversion.go): regarding <-> involvedObject, note <->
 * message, reportingController <-> reportingComponent, deprecatedSource <-> source,
 * deprecatedFirstTimestamp / deprecatedLastTimestamp / deprecatedCount <-> firstTimestamp /
 * lastTimestamp / count; metadata, eventTime, series, related, action, reason, type and
 * reportingInstance carry over. Absent fields stay absent, except those Go always writes (core's
 * reportingComponent and reportingInstance; events/v1's regarding).
 */
import { ApiObject } from '../../../scheme/types';

type Json = Record<string, unknown>;

/** [events/v1 name, core/v1 name] of the fields that are renamed. */
const RENAMED: ReadonlyArray<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

/** The fields both shapes name alike. */
const SAME = ['metadata', 'eventTime', 'series', 'related', 'action', 'reason', 'type', 'reportingInstance'];

const copy = (v: unknown): unknown => (v !== null && typeof v === 'object' ? structuredClone(v) : v);

function moveFields(from: Json, to: Json, pairs: ReadonlyArray<[string, string]>): void {
  for (const [src, dst] of pairs) if (from[src] !== undefined) to[dst] = copy(from[src]);
}

/** An events.k8s.io/v1 Event as the core/v1 Event it is stored as. */
export function eventV1ToCore(obj: ApiObject, coreApiVersion = 'v1'): ApiObject {
  const from = obj as Json;
  const out: Json = { apiVersion: coreApiVersion, kind: 'Event' };
  moveFields(from, out, SAME.map((f) => [f, f]));
  moveFields(from, out, RENAMED);
  // Go's core/v1 Event writes these two always (no omitempty).
  out.reportingComponent ??= '';
  out.reportingInstance ??= '';
  return out as ApiObject;
}

/** A core/v1 Event as events.k8s.io/v1 serves it (`apiVersion`: the group version to label it with). */
export function eventCoreToV1(obj: ApiObject, apiVersion: string): ApiObject {
  const from = obj as Json;
  const out: Json = { apiVersion, kind: 'Event' };
  moveFields(from, out, SAME.map((f) => [f, f]));
  moveFields(from, out, RENAMED.map(([v1, core]) => [core, v1] as [string, string]));
  // events/v1 has omitempty on both (core writes them empty), and `regarding` is a value struct Go always writes.
  if (out.reportingController === '') delete out.reportingController;
  if (out.reportingInstance === '') delete out.reportingInstance;
  if (out.deprecatedCount === 0) delete out.deprecatedCount;
  out.regarding ??= {};
  return out as ApiObject;
}
