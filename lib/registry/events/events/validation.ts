/**
 * Kubernetes' ValidateEventCreate / ValidateEventUpdate for a request at events.k8s.io/v1
 * (pkg/apis/core/validation/events.go): the legacy rules every stored event passes, then the
 * strict ones of the new API: eventTime required, type Normal or Warning, the deprecated fields
 * unset on create, the series (count at least 2, lastObservedTime set) and, on update, every
 * field but the series and metadata immutable. Kubernetes validates its internal Event, so field
 * paths are the internal names (involvedObject, message, source, firstTimestamp, count,
 * reportingController): the object is converted to core/v1 first.
 */
import { ApiObject } from '../../../scheme/types';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { invalidGo, goQuote } from '../../../meta/go-print';
import { EventFields, EventReference, eventFieldsOf, validateEvent } from '../../core/event-rules';
import { eventV1ToCore } from './conversion';

const EVENT_TYPES = ['Normal', 'Warning'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** validateV1EventSeries (over the core form). */
function validateSeries(e: EventFields): FieldError[] {
  const errs: FieldError[] = [];
  if (!e.series) return errs;
  if (!(typeof e.series.count === 'number' && e.series.count >= 2)) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!isSet(e.series.lastObservedTime)) errs.push(fieldErrors.required('series.lastObservedTime', ''));
  return errs;
}

/** The strict create rules of events.k8s.io/v1 (after the legacy ones). */
export function validateEventV1Create(obj: ApiObject): FieldError[] {
  const core = eventV1ToCore(obj);
  const e = eventFieldsOf(core);
  const errs = [...validateEvent(core, 'reportingController'), ...validateSeries(e)];
  if (!isSet(e.eventTime)) errs.push(fieldErrors.required('eventTime', ''));
  const type = typeof e.type === 'string' ? e.type : '';
  if (!EVENT_TYPES.includes(type)) errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (isSet(e.firstTimestamp)) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (isSet(e.lastTimestamp)) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof e.count === 'number' && e.count !== 0) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  if (isSet(e.source?.component) || isSet(e.source?.host)) errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** Go's time.Time String() of a JSON time, as field.Invalid prints a metav1.Time or MicroTime. */
function goTime(v: unknown): string {
  if (!isSet(v)) return '0001-01-01 00:00:00 +0000 UTC';
  const d = new Date(String(v));
  if (Number.isNaN(d.getTime())) return String(v);
  const iso = d.toISOString();
  // Microseconds survive in the string only (Date keeps milliseconds): take the fraction from it.
  const frac = /\.(\d+)/.exec(String(v))?.[1]?.replace(/0+$/, '') ?? '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

/** Go's %#v of a core.ObjectReference. */
function goReference(r: EventReference | undefined): string {
  const f = r ?? {};
  return `core.ObjectReference{Kind:${goQuote(f.kind ?? '')}, Namespace:${goQuote(f.namespace ?? '')}, Name:${goQuote(f.name ?? '')}, `
    + `UID:${goQuote(f.uid ?? '')}, APIVersion:${goQuote(f.apiVersion ?? '')}, ResourceVersion:${goQuote(f.resourceVersion ?? '')}, FieldPath:${goQuote(f.fieldPath ?? '')}}`;
}

/** Each immutable field of the internal Event: its path, and how Go prints its value. */
const IMMUTABLE: ReadonlyArray<[string, (e: EventFields) => string]> = [
  ['involvedObject', (e) => goReference(e.involvedObject)],
  ['reason', (e) => goQuote(e.reason ?? '')],
  ['message', (e) => goQuote(e.message ?? '')],
  ['source', (e) => `core.EventSource{Component:${goQuote(e.source?.component ?? '')}, Host:${goQuote(e.source?.host ?? '')}}`],
  ['firstTimestamp', (e) => goTime(e.firstTimestamp)],
  ['lastTimestamp', (e) => goTime(e.lastTimestamp)],
  ['count', (e) => String(e.count ?? 0)],
  // Kubernetes checks reason twice.
  ['reason', (e) => goQuote(e.reason ?? '')],
  ['type', (e) => goQuote(e.type ?? '')],
  ['eventTime', (e) => goTime(e.eventTime)],
  ['action', (e) => goQuote(e.action ?? '')],
  ['related', (e) => (e.related ? goReference(e.related) : 'null')],
  ['reportingController', (e) => goQuote(e.reportingComponent ?? '')],
  ['reportingInstance', (e) => goQuote(e.reportingInstance ?? '')],
];

/** The strict update rules of events.k8s.io/v1 (after the legacy ones). */
export function validateEventV1Update(obj: ApiObject, old: ApiObject): FieldError[] {
  const core = eventV1ToCore(obj);
  const e = eventFieldsOf(core);
  const was = eventFieldsOf(eventV1ToCore(old));
  const errs = validateEvent(core, 'reportingController');
  if (JSON.stringify(normalSeries(e)) !== JSON.stringify(normalSeries(was))) errs.push(...validateSeries(e));
  for (const [field, print] of IMMUTABLE) {
    const now = print(e);
    if (now !== print(was)) errs.push(invalidGo(field, now, 'field is immutable'));
  }
  return errs;
}

/** The series as Go compares it (reflect.DeepEqual of the pointer's target). */
const normalSeries = (e: EventFields) => (e.series ? { count: e.series.count ?? 0, lastObservedTime: goTime(e.series.lastObservedTime) } : null);
