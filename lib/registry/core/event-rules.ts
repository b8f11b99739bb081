/**
 * What the two Event kinds (core/v1 in core/events/, events.k8s.io/v1 in events/events/) share,
 * since both serve the same stored objects (core/v1 Events): the core/v1 shape's fields,
 * Kubernetes' legacyValidateEvent (every stored event passes it, whichever group wrote it), the
 * core field-selector fields and kubectl's event table (Kubernetes prints both groups' events
 * with one printer over the internal type).
 */
import { ApiObject } from '../../scheme/types';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isDns1123Subdomain, isQualifiedName } from '../../meta/validation';
import { TableColumns, column } from '../../meta/table';
import { translateTimestampSince } from '../../meta/human-duration';

/** Kubernetes' limits on the newer form's fields (pkg/apis/core/validation/events.go). */
const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

export interface EventReference { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string }
export interface EventFields {
  involvedObject?: EventReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  related?: EventReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

export const eventFieldsOf = (obj: ApiObject) => obj as unknown as EventFields;
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * legacyValidateEvent: what core/v1 asks of every event it stores, created or updated.
 * `controllerField`: the path errors of the reporting controller are reported at (core/v1 here
 * says `reportingComponent`, its JSON name; events.k8s.io/v1 says `reportingController`, as
 * Kubernetes does for the internal field).
 */
export function validateEvent(obj: ApiObject, controllerField = 'reportingComponent'): FieldError[] {
  const e = eventFieldsOf(obj);
  const errs: FieldError[] = [];
  const namespace = str(obj.metadata?.namespace);
  const involvedNamespace = str(e.involvedObject?.namespace);
  const mismatch = () => fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (!e.eventTime) {
    // An old-style event: its namespace and its object's agree ("default" stands for none).
    if (!involvedNamespace ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace) errs.push(mismatch());
  } else {
    if (!involvedNamespace && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controller = str(e.reportingComponent);
    if (!controller) errs.push(fieldErrors.required(controllerField, ''));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(controllerField, controller, msg));
    const instance = str(e.reportingInstance);
    if (!instance) errs.push(fieldErrors.required('reportingInstance', ''));
    if (instance.length > REPORTING_INSTANCE_LIMIT) errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    const action = str(e.action);
    if (!action) errs.push(fieldErrors.required('action', ''));
    if (action.length > ACTION_LIMIT) errs.push(fieldErrors.invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
    const reason = str(e.reason);
    if (!reason) errs.push(fieldErrors.required('reason', ''));
    if (reason.length > REASON_LIMIT) errs.push(fieldErrors.invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
    if (str(e.message).length > NOTE_LIMIT) errs.push(fieldErrors.invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const msg of isDns1123Subdomain(namespace)) errs.push(fieldErrors.invalid('namespace', namespace, msg));
  return errs;
}

/** Kubernetes' event fields for field selectors (the core/v1 names). */
export function eventFieldSet(obj: ApiObject): Record<string, string> {
  const e = eventFieldsOf(obj);
  const o = e.involvedObject ?? {};
  return {
    'involvedObject.kind': str(o.kind), 'involvedObject.namespace': str(o.namespace), 'involvedObject.name': str(o.name),
    'involvedObject.uid': str(o.uid), 'involvedObject.apiVersion': str(o.apiVersion),
    'involvedObject.resourceVersion': str(o.resourceVersion), 'involvedObject.fieldPath': str(o.fieldPath),
    reason: str(e.reason), reportingComponent: str(e.reportingComponent),
    source: str(e.source?.component) || str(e.reportingComponent), type: str(e.type),
  };
}

/** "component, host", either from the old source or the newer reporting fields (formatEventSource). */
function eventSource(e: EventFields): string {
  const component = str(e.source?.component) || str(e.reportingComponent);
  const instance = str(e.source?.host) || str(e.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

/** kubectl's event printer: the newer form's eventTime and series stand in for the old times and count. */
export const eventTable: TableColumns = {
  columns: [
    column('Last Seen', 'string', 'lastTimestamp is the time when this Event was last observed.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', 'string', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.', { priority: 1 }),
    column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', { priority: 1 }),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', { priority: 1 }),
    column('Count', 'string', 'The number of times this event has occurred.', { priority: 1 }),
    column('Name', 'string', 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', { priority: 1 }),
  ],
  cells: (obj, now) => {
    const e = eventFieldsOf(obj as ApiObject);
    const first = e.firstTimestamp ? translateTimestampSince(e.firstTimestamp, now) : translateTimestampSince(e.eventTime, now);
    let last = e.lastTimestamp ? translateTimestampSince(e.lastTimestamp, now) : first;
    let count = typeof e.count === 'number' ? e.count : 0;
    if (e.series) {
      last = translateTimestampSince(e.series.lastObservedTime, now);
      count = typeof e.series.count === 'number' ? e.series.count : 0;
    } else if (count === 0) {
      count = 1;
    }
    const o = e.involvedObject ?? {};
    const kind = str(o.kind).toLowerCase();
    const target = o.name ? `${kind}/${o.name}` : kind;
    return [last, str(e.type), str(e.reason), target, str(o.fieldPath), eventSource(e), str(e.message).trim(), first, count, obj.metadata?.name ?? ''];
  },
};
