/**
 * Event at events.k8s.io/v1 (events.orch.io/v1 in the orch flavor), namespaced, short name `ev`:
 * the newer API of the same objects core/v1 Event serves. As kube-apiserver stores both groups'
 * events at `/registry/events/<ns>/<name>` in core/v1 form, this def shares core/v1 Event's keys,
 * watch cache and storage (`storageGroup` '' at `storageVersion` v1) and converts through its
 * `versioning` (conversion.ts): an event written in one group is read, listed and watched in the
 * other, one object with one resourceVersion; `--event-ttl` applies to both.
 *
 * Writes here are validated as Kubernetes validates a request at events.k8s.io/v1 (validation.ts:
 * eventTime, reportingController, reportingInstance, action, reason required; type Normal or
 * Warning; deprecated fields unset on create; immutable on update). Field selectors are
 * Kubernetes' events/v1 labels (regarding.*, reason, reportingController, type); the table is
 * the one kubectl prints for every event (LAST SEEN TYPE REASON OBJECT MESSAGE, and -o wide).
 */
import { ApiObject, ObjectVersioning, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { canonicalMicroTime, microTimesProblem } from '../../../meta/micro-time';
import { eventFieldSet, eventTable, str } from '../../core/event-rules';
import { eventCoreToV1, eventV1ToCore } from './conversion';
import { eventV1Schema } from './schema';
import { validateEventV1Create, validateEventV1Update } from './validation';

interface V1Times { eventTime?: unknown; series?: { lastObservedTime?: unknown } }

/** MicroTime's JSON is always UTC with six fraction digits (Go's MarshalJSON). */
function canonicalize(obj: ApiObject): void {
  const e = obj as V1Times;
  if (typeof e.eventTime === 'string') e.eventTime = canonicalMicroTime(e.eventTime);
  if (e.series && typeof e.series.lastObservedTime === 'string') e.series.lastObservedTime = canonicalMicroTime(e.series.lastObservedTime);
}

/** Kubernetes' events/v1 field labels, each the core field it is converted to (AddFieldLabelConversionsForEvent). */
const FIELD_LABELS: Record<string, string> = {
  'regarding.kind': 'involvedObject.kind', 'regarding.namespace': 'involvedObject.namespace', 'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid', 'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion', 'regarding.fieldPath': 'involvedObject.fieldPath',
  reason: 'reason', reportingController: 'reportingComponent', type: 'type',
};

function fieldSet(obj: ApiObject): Record<string, string> {
  const core = eventFieldSet(eventV1ToCore(obj));
  const out: Record<string, string> = {};
  for (const [label, field] of Object.entries(FIELD_LABELS)) out[label] = str(core[field]);
  return out;
}

/** events.k8s.io/v1 Event; `ttlSeconds`: --event-ttl, as core/v1 Event has it. */
export function eventV1Resource(naming: Naming, ttlSeconds?: number): ResourceDef {
  const apiVersion = `${naming.group('events')}/v1`;
  const versioning: ObjectVersioning = {
    fromStorage: async (objects) => objects.map((o) => eventCoreToV1(o, apiVersion)),
    toStorage: async (object) => eventV1ToCore(object),
    servesStored: () => false,
  };
  return {
    ...(ttlSeconds ? { ttlSeconds } : {}),
    group: naming.group('events'), version: 'v1', kind: 'Event', listKind: 'EventList', resource: 'events', singular: 'event',
    namespaced: true, shortNames: ['ev'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema: eventV1Schema,
    table: { columns: eventTable.columns, cells: (obj, now) => eventTable.cells(eventV1ToCore(obj as ApiObject), now) },
    storageGroup: '', storageVersion: 'v1', versioning,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => {
        const e = obj as V1Times;
        return decodeProblem(obj, eventV1Schema, 'Event') ?? microTimesProblem([e.eventTime, e.series?.lastObservedTime]);
      },
      validate: (obj) => validateEventV1Create(obj),
      validateUpdate: (obj, old) => validateEventV1Update(obj, old),
      canonicalize,
      fieldSet,
      selectableFields: Object.keys(FIELD_LABELS),
    },
  };
}
