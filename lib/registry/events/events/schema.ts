/**
 * Schema of events.k8s.io/v1 Event: the newer shape of the same stored objects as core/v1 Event
 * (`regarding` for `involvedObject`, `note` for `message`, `reportingController` for
 * `reportingComponent`, the old-only fields under `deprecated*`), with the descriptions of
 * Kubernetes' k8s.io/api/events/v1 types. The MicroTimes are checked at decode (definition.ts).
 */
import { Schema, int32, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { objectReference } from '../../core/object-reference-schema';

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

export const eventV1Schema: Schema = { ...kindSchema({
  eventTime: microTime('eventTime is the time when this Event was first observed. It is required.'),
  series: object({
    count: int32('count is the number of occurrences in this series up to the last heartbeat time.'),
    lastObservedTime: microTime('lastObservedTime is the time when last Event from the series was seen before last heartbeat.'),
  }, { required: ['count', 'lastObservedTime'], description: 'series is data about the Event series this event represents or nil if it\'s a singleton Event.' }),
  reportingController: str('reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.'),
  reportingInstance: str('reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.'),
  action: str('action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.'),
  reason: str('reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.'),
  regarding: { ...objectReference, description: 'regarding contains the object this Event is about. In most cases it\'s an Object reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and this event is emitted because it acts on some changes in a ReplicaSet object.' },
  related: { ...objectReference, description: 'related is the optional secondary object for more complex actions. E.g. when regarding object triggers a creation or deletion of related object.' },
  note: str('note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.'),
  type: str('type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.'),
  deprecatedSource: object({
    component: str('Component from which the event is generated.'),
    host: str('Node name on which the event is generated.'),
  }, { description: 'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.' }),
  deprecatedFirstTimestamp: time('deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.'),
  deprecatedLastTimestamp: time('deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.'),
  deprecatedCount: int32('deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.'),
}, 'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.'), required: ['eventTime'] };
