/**
 * Protobuf of autoscaling HorizontalPodAutoscaler (v2 and v1) and autoscaling/v1 Scale: every
 * field the schemas serve survives JSON -> protobuf -> JSON (each metric source and status, the
 * behavior, conditions), v2's empty currentMetrics comes back as the null Go writes, v1's zero
 * replica counts (no omitempty) come back as zeros, and the bytes equal protoc --encode vectors
 * of what Go writes for a created HPA.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { hpaSchemaV2 } from '../../../../lib/registry/autoscaling/horizontal-pod-autoscalers/schema-v2';
import { hpaSchemaV1 } from '../../../../lib/registry/autoscaling/horizontal-pod-autoscalers/schema-v1';
import { Schema } from '../../../../lib/scheme/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const T0 = '2024-01-01T00:00:00Z';
const metadata = { name: 'web', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0 };
const REF = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
// Every MetricTarget and MetricValueStatus field, in every source (a round trip, not a valid object).
const TARGET = { type: 'AverageValue', value: '2k', averageValue: '10', averageUtilization: 5 };
const CURRENT = { value: '1500', averageValue: '250m', averageUtilization: 93 };
const SELECTOR = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] };
type Obj = Record<string, any>;

const fullV2: ApiObject = {
  apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata,
  spec: {
    scaleTargetRef: REF, minReplicas: 2, maxReplicas: 10,
    metrics: [
      { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: TARGET, metric: { name: 'hits', selector: SELECTOR } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: TARGET } },
      { type: 'Resource', resource: { name: 'cpu', target: TARGET } },
      { type: 'ContainerResource', containerResource: { name: 'memory', target: TARGET, container: 'app' } },
      { type: 'External', external: { metric: { name: 'queue' }, target: TARGET } },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Disabled', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    },
  },
  status: {
    observedGeneration: 3, lastScaleTime: T0, currentReplicas: 3, desiredReplicas: 4,
    currentMetrics: [
      { type: 'Object', object: { metric: { name: 'hits' }, current: CURRENT, describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, current: CURRENT } },
      { type: 'Resource', resource: { name: 'cpu', current: CURRENT } },
      { type: 'ContainerResource', containerResource: { name: 'memory', current: CURRENT, container: 'app' } },
      { type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: 'jobs' } } }, current: CURRENT } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: T0, reason: 'ReadyForNewScale', message: 'ok' }],
  },
};

const fullV1: ApiObject = {
  apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata,
  spec: { scaleTargetRef: REF, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
  status: { observedGeneration: 2, lastScaleTime: T0, currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 40 },
};

/** Every property path of `schema` (objects' fields, list items as `[]`). */
function schemaPaths(schema: Schema, path = ''): string[] {
  if (schema.type === 'array' && schema.items) return schemaPaths(schema.items, `${path}[]`);
  if (!schema.properties) return [path];
  return Object.entries(schema.properties).flatMap(([k, v]) => (k === 'metadata' && !path ? [] : schemaPaths(v, path ? `${path}.${k}` : k)));
}

/** Every leaf path of a JSON value, lists folded into `[]`. */
function valuePaths(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((i) => valuePaths(i, `${path}[]`));
  if (v && typeof v === 'object') return Object.entries(v as Obj).flatMap(([k, x]) => (k === 'metadata' && !path ? [] : valuePaths(x, path ? `${path}.${k}` : k)));
  return [path];
}

/** Schema paths not set in `obj` (label selector internals count as covered when the selector is set). */
function unset(schema: Schema, obj: ApiObject): string[] {
  const have = new Set(valuePaths(obj));
  const covered = (p: string) => have.has(p) || [...have].some((h) => h.startsWith(`${p}.`));
  const selectorPart = (p: string) => /selector\./.test(p);
  return schemaPaths(schema).filter((p) => !['apiVersion', 'kind'].includes(p) && !covered(p) && !selectorPart(p));
}

describe('HorizontalPodAutoscaler protobuf', () => {
  it('is a protobuf kind with its list at v2 and v1, and Scale is one at v1', () => {
    for (const v of ['autoscaling/v2', 'autoscaling/v1']) {
      expect(hasProtobuf(v, 'HorizontalPodAutoscaler')).to.equal(true);
      expect(hasProtobuf(v, 'HorizontalPodAutoscalerList')).to.equal(true);
    }
    expect(hasProtobuf('autoscaling/v1', 'Scale')).to.equal(true);
  });

  it('round trips every field the v2 schema serves', () => {
    expect(unset(hpaSchemaV2, fullV2), 'the test object misses schema fields').to.deep.equal([]);
    expect(decodeProtobuf(encodeProtobuf(fullV2))).to.deep.equal(fullV2);
  });

  it('round trips every field the v1 schema serves', () => {
    expect(unset(hpaSchemaV1, fullV1), 'the test object misses schema fields').to.deep.equal([]);
    expect(decodeProtobuf(encodeProtobuf(fullV1))).to.deep.equal(fullV1);
  });

  it('reads v2\'s empty currentMetrics as null and v1\'s zero counts as zeros (no omitempty in Go)', () => {
    const v2: ApiObject = { ...fullV2, spec: { scaleTargetRef: REF, maxReplicas: 0 }, status: { currentMetrics: null, desiredReplicas: 0 } };
    expect(decodeProtobuf(encodeProtobuf(v2))).to.deep.equal(v2);
    const v1: ApiObject = { ...fullV1, spec: { scaleTargetRef: REF, maxReplicas: 1 }, status: { currentReplicas: 0, desiredReplicas: 0 } };
    expect(decodeProtobuf(encodeProtobuf(v1))).to.deep.equal(v1);
  });

  it('round trips a Scale', () => {
    const scale: ApiObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata, spec: { replicas: 3 }, status: { replicas: 0, selector: 'app=web' } };
    expect(decodeProtobuf(encodeProtobuf(scale))).to.deep.equal(scale);
  });

  it('writes the bytes Go writes for a created v2 HPA (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const MESSAGE = 'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler';
    const hpa = {
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      },
      status: { currentMetrics: null, desiredReplicas: 0 },
    };
    const vector = protocEncode(MESSAGE, `
      metadata { name: "web" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
      spec {
        scaleTargetRef { kind: "Deployment" name: "web" apiVersion: "apps/v1" }
        minReplicas: 1
        maxReplicas: 5
        metrics { type: "Resource" resource { name: "cpu" target { type: "Utilization" averageUtilization: 80 } } }
      }
      status { currentReplicas: 0 desiredReplicas: 0 }`);
    expect(encodeMessage(MESSAGE, hpa).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(MESSAGE, vector)).to.deep.equal(hpa);
  });

  it('writes the bytes Go writes for a v1 HPA (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const MESSAGE = 'k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler';
    const hpa = {
      metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    };
    const vector = protocEncode(MESSAGE, `
      metadata { name: "web" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
      spec { scaleTargetRef { kind: "Deployment" name: "web" apiVersion: "" } minReplicas: 1 maxReplicas: 5 targetCPUUtilizationPercentage: 80 }
      status { currentReplicas: 0 desiredReplicas: 0 }`);
    expect(encodeMessage(MESSAGE, hpa).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(MESSAGE, vector)).to.deep.equal(hpa);
  });
});
