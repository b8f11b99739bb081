/**
 * Schema of core/v1 Event: a report of something that happened to an object (`involvedObject`),
 * written by controllers and read by `kubectl describe` and `kubectl events`. The two MicroTimes
 * (`eventTime`, `series.lastObservedTime`) are checked when the body is decoded (definition.ts).
 */
import { Schema, int32, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { objectReference } from '../object-reference-schema';

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

export const eventSchema: Schema = kindSchema({
  involvedObject: { ...objectReference, description: 'The object that this event is about.' },
  reason: str('This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
  message: str('A human-readable description of the status of this operation.'),
  source: object({
    component: str('Component from which the event is generated.'),
    host: str('Node name on which the event is generated.'),
  }, { description: 'The component reporting this event. Should be a short machine understandable string.' }),
  firstTimestamp: time('The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)'),
  lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
  count: int32('The number of times this event has occurred.'),
  type: str('Type of this event (Normal, Warning), new types could be added in the future'),
  eventTime: microTime('Time when this Event was first observed.'),
  series: object({
    count: int32('Number of occurrences in this series up to the last heartbeat time'),
    lastObservedTime: microTime('Time of the last occurrence observed'),
  }, { description: 'Data about the Event series this event represents or nil if it\'s a singleton Event.' }),
  action: str('What action was taken/failed regarding to the Regarding object.'),
  related: { ...objectReference, description: 'Optional secondary object for more complex actions.' },
  reportingComponent: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.'),
  reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
}, 'Event is a report of an event somewhere in the cluster.  Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.');
