/**
 * events.k8s.io/v1 update validation (lib/registry/events/events/validation.ts): each immutable
 * field of Kubernetes' ValidateEventUpdate refused at its internal path with Go's printing of the
 * new value (structs as %#v, times as time.Time's String), a changed series checked, an unchanged
 * object and a valid series change accepted.
 */
import { expect } from 'chai';
import { validateEventV1Update } from '../../../../lib/registry/events/events/validation';
import { ApiObject } from '../../../../lib/scheme/types';

const OLD: ApiObject = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' },
  eventTime: '2026-01-02T03:04:05.123456Z', reportingController: 'example.com/c', reportingInstance: 'c-1',
  action: 'Act', reason: 'Why', type: 'Normal', note: 'n', regarding: { kind: 'Pod', namespace: 'ns', name: 'p' },
};

const errorsOf = (change: Record<string, unknown>) => validateEventV1Update({ ...OLD, ...change }, OLD).map((e) => `${e.field}: ${e.message}`);

describe('events.k8s.io/v1 ValidateEventUpdate', () => {
  it('accepts an unchanged event and a valid new series', () => {
    expect(errorsOf({})).to.deep.equal([]);
    expect(errorsOf({ series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' } })).to.deep.equal([]);
  });

  const rows: Array<[string, Record<string, unknown>, string[]]> = [
    ['regarding', { regarding: { kind: 'Pod', namespace: 'ns', name: 'q' } },
      ['involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"q", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable']],
    ['reason (checked twice, as Kubernetes does)', { reason: 'Other' }, ['reason: Invalid value: "Other": field is immutable', 'reason: Invalid value: "Other": field is immutable']],
    ['note', { note: 'm' }, ['message: Invalid value: "m": field is immutable']],
    ['deprecatedSource', { deprecatedSource: { component: 'x' } }, ['source: Invalid value: core.EventSource{Component:"x", Host:""}: field is immutable']],
    ['deprecatedFirstTimestamp', { deprecatedFirstTimestamp: '2026-01-02T03:04:05Z' }, ['firstTimestamp: Invalid value: 2026-01-02 03:04:05 +0000 UTC: field is immutable']],
    ['deprecatedCount', { deprecatedCount: 3 }, ['count: Invalid value: 3: field is immutable']],
    ['type', { type: 'Warning' }, ['type: Invalid value: "Warning": field is immutable']],
    ['eventTime', { eventTime: '2026-01-02T03:04:06.5Z' }, ['eventTime: Invalid value: 2026-01-02 03:04:06.5 +0000 UTC: field is immutable']],
    ['related', { related: { kind: 'Node', name: 'n' } },
      ['related: Invalid value: core.ObjectReference{Kind:"Node", Namespace:"", Name:"n", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable']],
    ['reportingController', { reportingController: 'example.com/d' }, ['reportingController: Invalid value: "example.com/d": field is immutable']],
    ['reportingInstance', { reportingInstance: 'c-2' }, ['reportingInstance: Invalid value: "c-2": field is immutable']],
    ['a series of one', { series: { count: 1, lastObservedTime: '2026-01-02T03:05:00.000000Z' } }, ['series.count: Invalid value: "": should be at least 2']],
  ];
  rows.forEach(([what, change, errors]) => {
    it(`refuses a change of ${what}`, () => expect(errorsOf(change)).to.deep.equal(errors));
  });
});
