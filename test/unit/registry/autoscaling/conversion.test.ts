/**
 * HorizontalPodAutoscaler conversion between autoscaling/v2 and v1 (conversion.ts) as
 * Kubernetes' pkg/apis/autoscaling/v1/conversion.go does it: what v1 cannot hold goes into the
 * round-trip annotations and comes back from them, so v2 -> v1 -> v2 keeps every field (the
 * CPU utilization metric moving last), annotations of those names on a v2 object are not
 * served at v1, and the behavior annotation is read as Go's encoding/json reads it.
 */
import { expect } from 'chai';
import {
  BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, CURRENT_METRICS_ANNOTATION, METRICS_ANNOTATION, annotationProblem, hpaV1ToV2, hpaV2ToV1,
} from '../../../../lib/registry/autoscaling/horizontal-pod-autoscalers/conversion';
import { ApiObject } from '../../../../lib/scheme/types';

const T0 = '2024-01-01T00:00:00Z';
const REF = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const OTHERS = [
  { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '10' } } },
  { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'AverageValue', value: '1', averageValue: '2' }, metric: { name: 'hits' } } },
  { type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: 'x' } } }, target: { type: 'Value', value: '3' } } },
  { type: 'ContainerResource', containerResource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' }, container: 'app' } },
];
const CPU = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } };
const STATUS = {
  observedGeneration: 4, lastScaleTime: T0, currentReplicas: 2, desiredReplicas: 3,
  currentMetrics: [
    { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 55 } } },
    { type: 'External', external: { metric: { name: 'queue' }, current: { value: '7', averageValue: '2' } } },
  ],
  conditions: [{ type: 'ScalingActive', status: 'False', lastTransitionTime: T0, reason: 'FailedGetResourceMetric', message: 'no metrics' }],
};
const v2 = (extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default', annotations: { keep: 'me' } },
  spec: {
    scaleTargetRef: REF, minReplicas: 1, maxReplicas: 9, metrics: [CPU, ...OTHERS],
    behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] }, scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] } },
  },
  status: STATUS, ...extra,
});

describe('HorizontalPodAutoscaler conversion (autoscaling/v2 <-> v1)', () => {
  it('writes v1\'s fields and the four annotations from a v2 object', () => {
    const v1 = hpaV2ToV1(v2());
    expect(v1.apiVersion).to.equal('autoscaling/v1');
    expect(v1.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 1, maxReplicas: 9, targetCPUUtilizationPercentage: 70 });
    expect(v1.status).to.deep.equal({ observedGeneration: 4, lastScaleTime: T0, currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 55 });
    const a = v1.metadata!.annotations!;
    expect(a.keep).to.equal('me');
    expect(JSON.parse(a[METRICS_ANNOTATION])).to.deep.equal([
      { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10', selector: { matchLabels: { a: 'b' } } } },
      { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'hits', targetValue: '1', averageValue: '2' } },
      { type: 'External', external: { metricName: 'queue', metricSelector: { matchLabels: { q: 'x' } }, targetValue: '3' } },
      { type: 'ContainerResource', containerResource: { name: 'memory', targetAverageValue: '1Gi', container: 'app' } },
    ]);
    expect(a[CURRENT_METRICS_ANNOTATION]).to.equal('[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":55,"currentAverageValue":"100m"}},'
      + '{"type":"External","external":{"metricName":"queue","currentValue":"7","currentAverageValue":"2"}}]');
    expect(a[BEHAVIOR_ANNOTATION]).to.equal('{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},'
      + '"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}');
    expect(a[CONDITIONS_ANNOTATION]).to.equal(JSON.stringify(STATUS.conditions));
  });

  it('reads them back: v2 -> v1 -> v2 keeps everything, the CPU utilization metric last', () => {
    const back = hpaV1ToV2(hpaV2ToV1(v2()));
    const expected = v2();
    (expected.spec as Record<string, unknown>).metrics = [...OTHERS, CPU];
    expect(back).to.deep.equal(expected);
  });

  it('v1 -> v2 -> v1 keeps a plain v1 object as it was', () => {
    const v1: ApiObject = {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' },
      spec: { scaleTargetRef: REF, minReplicas: 2, maxReplicas: 4, targetCPUUtilizationPercentage: 30 },
      status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 12 },
    };
    const back = hpaV2ToV1(hpaV1ToV2(v1));
    expect(back.spec).to.deep.equal(v1.spec);
    expect(back.status).to.deep.equal(v1.status);
    // The current CPU utilization alone is kept in the current-metrics annotation (Kubernetes
    // saves the status even when it maps to v1's field, for its raw value).
    expect(JSON.parse(back.metadata!.annotations![CURRENT_METRICS_ANNOTATION])).to.deep.equal(
      [{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 12, currentAverageValue: '0' } }]);
  });

  it('gives a v1 object without any metric the 80% CPU metric', () => {
    const out = hpaV1ToV2({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', spec: { scaleTargetRef: REF, maxReplicas: 2 } });
    expect((out.spec as Record<string, unknown>).metrics).to.deep.equal([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    expect(out.status).to.deep.equal({ desiredReplicas: 0, currentMetrics: null });
  });

  it('does not serve round-trip annotations a v2 client set, and drops them from a v1 write', () => {
    const withAnnotation = v2({ metadata: { name: 'web', annotations: { [METRICS_ANNOTATION]: '[]', other: 'x' } }, spec: { scaleTargetRef: REF, maxReplicas: 1, metrics: [CPU] }, status: {} });
    const v1 = hpaV2ToV1(withAnnotation);
    expect(v1.metadata!.annotations).to.deep.equal({ other: 'x' });
    const stored = hpaV1ToV2({ ...v1, metadata: { name: 'web', annotations: { [CONDITIONS_ANNOTATION]: '[]' } } });
    expect(stored.metadata).to.deep.equal({ name: 'web' });
  });

  it('reads the behavior annotation\'s Go field names ignoring case, as encoding/json does', () => {
    const v1: ApiObject = {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x', annotations: { [BEHAVIOR_ANNOTATION]: '{"scaleDown":{"selectpolicy":"Disabled","policies":[{"type":"Pods","value":1,"periodSeconds":30}]}}' } },
      spec: { scaleTargetRef: REF, maxReplicas: 2 },
    };
    expect((hpaV1ToV2(v1).spec as Record<string, unknown>).behavior).to.deep.equal({
      scaleDown: { selectPolicy: 'Disabled', policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] },
    });
  });

  it('names an annotation that does not decode', () => {
    const bad = (value: string): ApiObject => ({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x', annotations: { [METRICS_ANNOTATION]: value } }, spec: {} });
    expect(annotationProblem(bad('{'))).to.equal(`annotation ${METRICS_ANNOTATION} is not valid JSON`);
    expect(annotationProblem(bad('{"type":"Pods"}'))).to.equal(`annotation ${METRICS_ANNOTATION} must be a JSON array of objects`);
    expect(annotationProblem(bad('[]'))).to.equal(undefined);
  });
});
