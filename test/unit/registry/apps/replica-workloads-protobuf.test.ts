/**
 * Protobuf of apps/v1 Deployment and ReplicaSet (k8s.io.api.apps.v1): every field each schema
 * serves survives JSON -> protobuf -> JSON (both IntOrString forms, conditions, the pod
 * template), the zeros Go writes without omitempty (ReplicaSetStatus.replicas, a condition's
 * type and status) come back, and the bytes of the strategy and status messages equal protoc's.
 */
import { expect } from 'chai';
import { protocEncode, requireProtoc } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { deploymentSchema } from '../../../../lib/registry/apps/deployments/schema';
import { replicaSetSchema } from '../../../../lib/registry/apps/replica-sets/schema';
import { ApiObject } from '../../../../lib/scheme/types';
import { Schema } from '../../../../lib/scheme/schema';

const T0 = '2024-01-01T00:00:00Z';
const metadata = { name: 'web', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0, generation: 2 };
const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] };
const template = {
  metadata: { labels: { app: 'web', tier: 'a' }, annotations: { 'kubectl.kubernetes.io/restartedAt': T0 } },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {} }], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' },
};

const deployment = (maxUnavailable: number | string, maxSurge: number | string): ApiObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata,
  spec: {
    replicas: 3, selector, template, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable, maxSurge } },
    minReadySeconds: 5, revisionHistoryLimit: 10, paused: true, progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 2, replicas: 3, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 1, unavailableReplicas: 2, collisionCount: 1,
    conditions: [{ type: 'Progressing', status: 'True', lastUpdateTime: T0, lastTransitionTime: T0, reason: 'NewReplicaSetAvailable', message: 'ok' }],
  },
});

const replicaSet = (): ApiObject => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata,
  spec: { replicas: 3, minReadySeconds: 5, selector, template },
  status: {
    replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1, observedGeneration: 2,
    conditions: [{ type: 'ReplicaFailure', status: 'False', lastTransitionTime: T0, reason: 'FailedCreate', message: 'quota' }],
  },
});

const fields = (s: Schema, name: string) => Object.keys(s.properties?.[name]?.properties ?? {});

describe('Deployment and ReplicaSet protobuf', () => {
  it('are protobuf kinds with their lists at apps/v1', () => {
    for (const kind of ['Deployment', 'DeploymentList', 'ReplicaSet', 'ReplicaSetList']) expect(hasProtobuf('apps/v1', kind), kind).to.equal(true);
  });

  it('round trip every field the Deployment schema serves', () => {
    const obj = deployment(1, '50%');
    expect(Object.keys(obj.spec as object)).to.have.members(fields(deploymentSchema, 'spec'));
    expect(Object.keys(obj.status as object)).to.have.members(fields(deploymentSchema, 'status'));
    for (const o of [obj, deployment('25%', 0)]) expect(decodeProtobuf(encodeProtobuf(o))).to.deep.equal(o);
  });

  it('round trip every field the ReplicaSet schema serves', () => {
    const obj = replicaSet();
    expect(Object.keys(obj.spec as object)).to.have.members(fields(replicaSetSchema, 'spec'));
    expect(Object.keys(obj.status as object)).to.have.members(fields(replicaSetSchema, 'status'));
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('keep replicas 0 where it matters: an explicit spec.replicas 0 and ReplicaSetStatus.replicas (no omitempty)', () => {
    const obj: ApiObject = { ...replicaSet(), spec: { replicas: 0, selector, template }, status: { replicas: 0 } };
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('writes the bytes Go writes for a defaulted strategy and a status (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const strategyMessage = 'k8s.io.api.apps.v1.DeploymentStrategy';
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } };
    const strategyVector = protocEncode(strategyMessage, 'type: "RollingUpdate" rollingUpdate { maxUnavailable { type: 1 intVal: 0 strVal: "25%" } maxSurge { type: 0 intVal: 1 strVal: "" } }');
    expect(encodeMessage(strategyMessage, strategy).toString('hex')).to.equal(strategyVector.toString('hex'));
    expect(decodeMessage(strategyMessage, strategyVector)).to.deep.equal(strategy);

    const statusMessage = 'k8s.io.api.apps.v1.ReplicaSetStatus';
    const status = { replicas: 2, readyReplicas: 1, observedGeneration: 4 };
    const statusVector = protocEncode(statusMessage, 'replicas: 2 fullyLabeledReplicas: 0 observedGeneration: 4 readyReplicas: 1 availableReplicas: 0');
    expect(encodeMessage(statusMessage, status).toString('hex')).to.equal(statusVector.toString('hex'));
    expect(decodeMessage(statusMessage, statusVector)).to.deep.equal(status);
  });
});
