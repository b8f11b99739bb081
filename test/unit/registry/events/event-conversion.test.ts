/**
 * events.k8s.io/v1 <-> core/v1 Event conversion (lib/registry/events/events/conversion.ts): every
 * field of each shape lands on its counterpart, both ways, and a round trip gives back the
 * object; what Go always writes or omits (core's reporting fields, events/v1's omitempty ones).
 */
import { expect } from 'chai';
import { eventCoreToV1, eventV1ToCore } from '../../../../lib/registry/events/events/conversion';
import { ApiObject } from '../../../../lib/scheme/types';

const metadata = { name: 'e', namespace: 'ns', uid: 'uid-1', resourceVersion: '7', labels: { a: 'b' } };
const ref = (name: string) => ({ kind: 'Pod', namespace: 'ns', name, uid: `u-${name}`, apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec.containers{app}' });

/** An events/v1 Event with every field set. */
const FULL_V1: ApiObject = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata,
  eventTime: '2026-01-02T03:04:05.123456Z', series: { count: 3, lastObservedTime: '2026-01-02T03:05:05.000001Z' },
  reportingController: 'example.com/c', reportingInstance: 'c-1', action: 'Act', reason: 'Why',
  regarding: ref('r'), related: ref('rel'), note: 'a note', type: 'Warning',
  deprecatedSource: { component: 'kubelet', host: 'node-1' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
  deprecatedLastTimestamp: '2026-01-01T00:01:00Z', deprecatedCount: 5,
};

/** The same event at core/v1. */
const FULL_CORE: ApiObject = {
  apiVersion: 'v1', kind: 'Event', metadata,
  eventTime: '2026-01-02T03:04:05.123456Z', series: { count: 3, lastObservedTime: '2026-01-02T03:05:05.000001Z' },
  reportingComponent: 'example.com/c', reportingInstance: 'c-1', action: 'Act', reason: 'Why',
  involvedObject: ref('r'), related: ref('rel'), message: 'a note', type: 'Warning',
  source: { component: 'kubelet', host: 'node-1' }, firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:01:00Z', count: 5,
};

describe('events.k8s.io/v1 <-> core/v1 Event conversion', () => {
  it('maps every events/v1 field onto its core/v1 counterpart', () => {
    expect(eventV1ToCore(FULL_V1)).to.deep.equal(FULL_CORE);
  });

  it('maps every core/v1 field onto its events/v1 counterpart', () => {
    expect(eventCoreToV1(FULL_CORE, 'events.k8s.io/v1')).to.deep.equal(FULL_V1);
  });

  it('round-trips both ways', () => {
    expect(eventCoreToV1(eventV1ToCore(FULL_V1), 'events.k8s.io/v1')).to.deep.equal(FULL_V1);
    expect(eventV1ToCore(eventCoreToV1(FULL_CORE, 'events.k8s.io/v1'))).to.deep.equal(FULL_CORE);
  });

  it('writes core\'s reporting fields always and omits events/v1\'s empty ones (Go\'s JSON tags)', () => {
    const core = eventV1ToCore({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'x' } });
    expect(core).to.deep.equal({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' }, reportingComponent: '', reportingInstance: '' });
    const v1 = eventCoreToV1({ ...core, count: 0 }, 'events.orch.io/v1');
    expect(v1).to.deep.equal({ apiVersion: 'events.orch.io/v1', kind: 'Event', metadata: { name: 'x' }, regarding: {} });
  });

  it('does not share nested objects with its input', () => {
    const core = eventV1ToCore(FULL_V1);
    (core.involvedObject as Record<string, unknown>).name = 'changed';
    expect((FULL_V1.regarding as Record<string, unknown>).name).to.equal('r');
  });
});
