/**
 * Event (core/v1, namespaced): what controllers report about objects, and what `kubectl
 * describe` lists for each object (by `involvedObject.*` field selectors) and `kubectl events`
 * prints. Kubernetes' core/v1 rules (legacyValidateEvent): the event's namespace must match its
 * object's; an event with `eventTime` set (the newer form) needs `reportingComponent`,
 * `reportingInstance`, `action` and `reason`, with length limits. PUT may create; updates need no
 * resourceVersion; names are path segments; with --event-ttl each write attaches the event to an
 * etcd lease, so etcd deletes it that long after its last write. The table is kubectl's LAST SEEN TYPE REASON OBJECT
 * MESSAGE, with SUBOBJECT, SOURCE, FIRST SEEN, COUNT and NAME for `-o wide`.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { eventSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { canonicalMicroTime, microTimesProblem } from '../../../meta/micro-time';
import { eventFieldSet, eventFieldsOf, eventTable, validateEvent } from '../event-rules';

/** MicroTime's JSON is always UTC with six fraction digits (Go's MarshalJSON). */
function canonicalize(obj: ApiObject): void {
  const e = eventFieldsOf(obj);
  if (typeof e.eventTime === 'string') e.eventTime = canonicalMicroTime(e.eventTime);
  if (e.series && typeof e.series.lastObservedTime === 'string') e.series.lastObservedTime = canonicalMicroTime(e.series.lastObservedTime);
}

/**
 * Kubernetes' Event has `reportingComponent` and `reportingInstance` as Go strings without
 * omitempty: its JSON always carries them, empty when unset (proto/core-v1.proto marks them
 * no_omitempty, so an event read from protobuf has them too).
 */
function setDefaults(obj: ApiObject): void {
  obj.reportingComponent ??= '';
  obj.reportingInstance ??= '';
}

/** The core/v1 Event kind; `ttlSeconds` (--event-ttl): events expire that long after their last write. */
export function eventResource(ttlSeconds?: number): ResourceDef {
  return {
    ...(ttlSeconds ? { ttlSeconds } : {}),
    group: '', version: 'v1', kind: 'Event', listKind: 'EventList', resource: 'events', singular: 'event',
    namespaced: true, shortNames: ['ev'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], deleteReturnsStatus: true, nameValidation: 'path-segment', schema: eventSchema,
    table: eventTable,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      default: setDefaults,
      prepareForCreate: setDefaults,
      prepareForUpdate: setDefaults,
      checkDecode: (obj) => {
        const e = eventFieldsOf(obj);
        return decodeProblem(obj, eventSchema, 'Event') ?? microTimesProblem([e.eventTime, e.series?.lastObservedTime]);
      },
      validate: (obj) => validateEvent(obj),
      canonicalize,
      fieldSet: eventFieldSet,
      selectableFields: Object.keys(eventFieldSet({} as ApiObject)),
    },
  };
}
