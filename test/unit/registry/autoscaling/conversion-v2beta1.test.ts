/**
 * HorizontalPodAutoscaler conversion between autoscaling/v2 (stored) and v2beta1
 * (conversion-v2beta1.ts), as Kubernetes' pkg/apis/autoscaling/v2beta1/conversion.go does it:
 * every metric source and status in the older shape and back, the behavior through the
 * round-trip annotation (a malformed one ignored), conditions and current metrics in the status
 * (null when none), and stale round-trip annotations dropped.
 */
import { expect } from 'chai';
import { BEHAVIOR_ANNOTATION, METRICS_ANNOTATION } from '../../../../lib/registry/autoscaling/horizontal-pod-autoscalers/conversion';
import { hpaV2ToV2beta1, hpaV2beta1ToV2 } from '../../../../lib/registry/autoscaling/horizontal-pod-autoscalers/conversion-v2beta1';
import { ApiObject } from '../../../../lib/scheme/types';

const T0 = '2024-01-01T00:00:00Z';
const REF = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const SELECTOR = { matchLabels: { a: 'b' } };

const V2_METRICS = [
  { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
  { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
  { type: 'Pods', pods: { metric: { name: 'qps', selector: SELECTOR }, target: { type: 'AverageValue', averageValue: '10' } } },
  { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'Value', value: '2k' }, metric: { name: 'hits' } } },
  { type: 'External', external: { metric: { name: 'queue', selector: SELECTOR }, target: { type: 'Value', value: '3' } } },
  { type: 'External', external: { metric: { name: 'backlog' }, target: { type: 'AverageValue', averageValue: '30' } } },
  { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 }, container: 'app' } },
];
const V2BETA1_METRICS = [
  { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 70 } },
  { type: 'Resource', resource: { name: 'memory', targetAverageValue: '1Gi' } },
  { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10', selector: SELECTOR } },
  { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'hits', targetValue: '2k' } },
  { type: 'External', external: { metricName: 'queue', metricSelector: SELECTOR, targetValue: '3' } },
  { type: 'External', external: { metricName: 'backlog', targetAverageValue: '30' } },
  { type: 'ContainerResource', containerResource: { name: 'cpu', targetAverageUtilization: 60, container: 'app' } },
];
const V2_STATUS = {
  observedGeneration: 4, lastScaleTime: T0, currentReplicas: 2, desiredReplicas: 3,
  currentMetrics: [
    { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 55 } } },
    { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '7' } } },
    { type: 'External', external: { metric: { name: 'queue' }, current: { value: '7', averageValue: '2' } } },
  ],
  conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: T0, reason: 'ReadyForNewScale', message: 'ok' }],
};
const V2BETA1_STATUS = {
  observedGeneration: 4, lastScaleTime: T0, currentReplicas: 2, desiredReplicas: 3,
  currentMetrics: [
    { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 55, currentAverageValue: '100m' } },
    { type: 'Pods', pods: { metricName: 'qps', currentAverageValue: '7' } },
    { type: 'External', external: { metricName: 'queue', currentValue: '7', currentAverageValue: '2' } },
  ],
  conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: T0, reason: 'ReadyForNewScale', message: 'ok' }],
};
const BEHAVIOR = { scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } };

const v2 = (extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'n', labels: { x: 'y' } },
  spec: { scaleTargetRef: REF, minReplicas: 2, maxReplicas: 9, metrics: V2_METRICS, ...extra }, status: V2_STATUS,
});

describe('HorizontalPodAutoscaler autoscaling/v2 <-> v2beta1', () => {
  it('writes every metric source and current metric in v2beta1 shape, the conditions in the status', () => {
    const out = hpaV2ToV2beta1(v2());
    expect(out.apiVersion).to.equal('autoscaling/v2beta1');
    expect(out.spec).to.deep.equal({ scaleTargetRef: REF, minReplicas: 2, maxReplicas: 9, metrics: V2BETA1_METRICS });
    expect(out.status).to.deep.equal(V2BETA1_STATUS);
    expect(out.metadata).to.deep.equal({ name: 'h', namespace: 'n', labels: { x: 'y' } });
  });

  it('reads every v2beta1 metric back as v2 with the target types Kubernetes infers', () => {
    const back = hpaV2beta1ToV2(hpaV2ToV2beta1(v2()));
    expect(back.apiVersion).to.equal('autoscaling/v2');
    expect(back.spec).to.deep.equal(v2().spec);
    expect((back.status as any).conditions).to.deep.equal(V2_STATUS.conditions);
    expect((back.status as any).currentMetrics[1]).to.deep.equal(V2_STATUS.currentMetrics[1]);
  });

  it('an Object metric with an averageValue is an AverageValue target (its value kept)', () => {
    const spec = hpaV2beta1ToV2({ apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', spec: {
      scaleTargetRef: REF, maxReplicas: 2,
      metrics: [{ type: 'Object', object: { target: REF, metricName: 'm', targetValue: '1', averageValue: '5' } }],
    } }).spec as any;
    expect(spec.metrics[0].object.target).to.deep.equal({ type: 'AverageValue', value: '1', averageValue: '5' });
  });

  it('carries the behavior in the annotation (Go field names) and reads it back', () => {
    const out = hpaV2ToV2beta1(v2({ behavior: BEHAVIOR }));
    const annotation = JSON.parse(out.metadata!.annotations![BEHAVIOR_ANNOTATION]);
    expect(annotation).to.deep.equal({ ScaleUp: null, ScaleDown: { StabilizationWindowSeconds: 60, SelectPolicy: 'Min', Policies: [{ Type: 'Pods', Value: 1, PeriodSeconds: 30 }] } });
    const back = hpaV2beta1ToV2(out);
    expect((back.spec as any).behavior).to.deep.equal(BEHAVIOR);
    expect(back.metadata).to.deep.equal({ name: 'h', namespace: 'n', labels: { x: 'y' } });
  });

  it('ignores a malformed behavior annotation and drops every round-trip annotation on the way in', () => {
    const back = hpaV2beta1ToV2({
      apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', annotations: { [BEHAVIOR_ANNOTATION]: '{not json', [METRICS_ANNOTATION]: '[]', keep: 'me' } },
      spec: { scaleTargetRef: REF, maxReplicas: 2 },
    });
    expect((back.spec as any).behavior).to.equal(undefined);
    expect(back.metadata!.annotations).to.deep.equal({ keep: 'me' });
  });

  it('drops stale round-trip annotations of a stored object on the way out; an empty status writes nulls', () => {
    const stored = v2();
    stored.metadata = { name: 'h', annotations: { [METRICS_ANNOTATION]: '[]' } };
    stored.status = { desiredReplicas: 0, currentMetrics: null };
    const out = hpaV2ToV2beta1(stored);
    expect(out.metadata).to.deep.equal({ name: 'h' });
    expect(out.status).to.deep.equal({ currentReplicas: 0, desiredReplicas: 0, currentMetrics: null, conditions: null });
  });
});
