/**
 * Protobuf of policy/v1 PodDisruptionBudget: every schema field survives JSON -> protobuf ->
 * JSON (both IntOrString forms, the map of Times, conditions), the status counts Go writes
 * without omitempty come back as zeros, and the bytes equal a protoc --encode vector of what Go
 * writes for a created budget.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { podDisruptionBudgetSchema } from '../../../../lib/registry/policy/pod-disruption-budgets/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const T0 = '2024-01-01T00:00:00Z';
const MESSAGE = 'k8s.io.api.policy.v1.PodDisruptionBudget';
const metadata = { name: 'budget', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0, generation: 2 };

const full = (minAvailable: number | string, maxUnavailable: number | string): ApiObject => ({
  apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata,
  spec: {
    minAvailable, maxUnavailable, unhealthyPodEvictionPolicy: 'AlwaysAllow',
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
  },
  status: {
    observedGeneration: 2, disruptedPods: { 'web-1': T0, 'web-0': T0 }, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3,
    conditions: [{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 2, lastTransitionTime: T0, reason: 'SufficientPods', message: 'ok' }],
  },
});

describe('PodDisruptionBudget protobuf', () => {
  it('is a protobuf kind with its list', () => {
    expect(hasProtobuf('policy/v1', 'PodDisruptionBudget')).to.equal(true);
    expect(hasProtobuf('policy/v1', 'PodDisruptionBudgetList')).to.equal(true);
  });

  it('round trips every field the schema serves', () => {
    const spec = (podDisruptionBudgetSchema.properties!.spec.properties)!;
    const status = (podDisruptionBudgetSchema.properties!.status.properties)!;
    const obj = full(2, '50%');
    expect(Object.keys(obj.spec as object)).to.have.members(Object.keys(spec));
    expect(Object.keys(obj.status as object)).to.have.members(Object.keys(status));
    for (const o of [obj, full('10%', 0)]) expect(decodeProtobuf(encodeProtobuf(o))).to.deep.equal(o);
  });

  it('keeps the zero status counts (no omitempty) and reads a zero IntOrString as 0', () => {
    const obj: ApiObject = {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec: { maxUnavailable: 0 },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    };
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('keeps a condition\'s empty message and reason (metav1.Condition has no omitempty there)', () => {
    const obj = full(1, '1%');
    (obj.status as Record<string, any>).conditions = [{ type: 'DisruptionAllowed', status: 'False', lastTransitionTime: T0, reason: '', message: '' }];
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('writes the bytes Go writes (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const pdb = {
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    };
    const vector = protocEncode(MESSAGE, `
      metadata { name: "web" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
      spec {
        minAvailable { type: 0 intVal: 1 strVal: "" }
        selector { matchLabels { key: "app" value: "web" } }
      }
      status { observedGeneration: 0 disruptionsAllowed: 0 currentHealthy: 0 desiredHealthy: 0 expectedPods: 0 }`);
    expect(encodeMessage(MESSAGE, pdb).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(MESSAGE, vector)).to.deep.equal(pdb);
  });
});
