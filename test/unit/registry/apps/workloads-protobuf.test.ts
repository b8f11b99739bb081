/**
 * Protobuf of apps/v1 StatefulSet and DaemonSet: every field their schemas serve survives JSON ->
 * protobuf -> JSON (objects generated from the schemas, so a field proto/ lacks fails), the
 * values Go writes without omitempty (a StatefulSet's status.replicas / availableReplicas and
 * empty serviceName, a DaemonSet's four status counts, ordinals.start 0) and zero pointers
 * (partition 0, revisionHistoryLimit 0) come back (stored objects carry the containers' resources,
 * a Go value struct), and the bytes of the update strategies and
 * statuses equal protoc --encode vectors of what Go writes.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { Schema } from '../../../../lib/scheme/schema';
import { statefulSetSchema } from '../../../../lib/registry/apps/stateful-sets/schema';
import { daemonSetSchema } from '../../../../lib/registry/apps/daemon-sets/schema';
import { ApiObject } from '../../../../lib/scheme/types';

type Obj = Record<string, any>;
const T0 = '2024-01-01T00:00:00Z';
const metadata = { name: 'web', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0, generation: 2 };

/** A value with every property of `schema` set (non-zero scalars, one list item, one map entry). */
function everyField(schema: Schema, path: string): unknown {
  const s = schema as Obj;
  if (s.format === 'quantity') return '1536Mi';
  if (s.format === 'date-time') return T0;
  if (s['x-kubernetes-int-or-string']) return '25%';
  switch (s.type) {
    case 'string': return `${path.split('.').pop()}-x`;
    case 'integer': return 3;
    case 'boolean': return true;
    case 'array': return [everyField(s.items, `${path}[]`)];
    default: {
      if (s.properties) {
        const out: Obj = {};
        for (const [k, v] of Object.entries(s.properties as Record<string, Schema>)) {
          // ObjectMeta is protobuf.test.ts's; an embedded claim carries no apiVersion/kind on the wire.
          if (k === 'metadata') out[k] = { name: 'meta', labels: { a: 'b' } };
          else if ((k === 'apiVersion' || k === 'kind') && path !== 'root') continue;
          else out[k] = everyField(v, `${path}.${k}`);
        }
        return out;
      }
      if (s.additionalProperties) return { key: everyField(s.additionalProperties, `${path}{}`) };
      throw new Error(`${path}: no value for schema ${JSON.stringify(s)}`);
    }
  }
}

function full(kind: string, schema: Schema): ApiObject {
  return { ...(everyField(schema, 'root') as Obj), apiVersion: 'apps/v1', kind, metadata } as ApiObject;
}

describe('StatefulSet and DaemonSet protobuf', () => {
  it('are protobuf kinds with their lists', () => {
    for (const kind of ['StatefulSet', 'StatefulSetList', 'DaemonSet', 'DaemonSetList']) expect(hasProtobuf('apps/v1', kind), kind).to.equal(true);
  });

  for (const [kind, schema] of [['StatefulSet', statefulSetSchema], ['DaemonSet', daemonSetSchema]] as const) {
    it(`${kind}: every field the schema serves round trips`, () => {
      const obj = full(kind, schema);
      expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
    });
  }

  it('keeps the zeros Go writes: StatefulSet status counts, serviceName, ordinals.start, partition and revisionHistoryLimit 0', () => {
    const sts: ApiObject = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata,
      spec: {
        replicas: 0, serviceName: '', revisionHistoryLimit: 0, ordinals: { start: 0 },
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: {} }] } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      },
      status: { replicas: 0, availableReplicas: 0, collisionCount: 0 },
    };
    expect(decodeProtobuf(encodeProtobuf(sts))).to.deep.equal(sts);
  });

  it('keeps a DaemonSet\'s four status counts and a rolling update of maxSurge 0', () => {
    const ds: ApiObject = {
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata,
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'agent', resources: {} }] } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10,
      },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    };
    expect(decodeProtobuf(encodeProtobuf(ds))).to.deep.equal(ds);
  });

  describe('byte equality with protoc --encode', function () {
    this.timeout(300_000);
    before(function () { try { requireProtoc(); } catch { this.skip(); } });

    it('StatefulSetStatus of a new StatefulSet (value fields written, nil collisionCount not)', () => {
      const status = { replicas: 0, availableReplicas: 0 };
      const vector = protocEncode('k8s.io.api.apps.v1.StatefulSetStatus', `
        observedGeneration: 0 replicas: 0 readyReplicas: 0 currentReplicas: 0 updatedReplicas: 0
        currentRevision: "" updateRevision: "" availableReplicas: 0`);
      expect(encodeMessage('k8s.io.api.apps.v1.StatefulSetStatus', status).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.apps.v1.StatefulSetStatus', vector)).to.deep.equal(status);
    });

    it('StatefulSetUpdateStrategy with partition 0 (a set pointer)', () => {
      const strategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
      const vector = protocEncode('k8s.io.api.apps.v1.StatefulSetUpdateStrategy', 'type: "RollingUpdate" rollingUpdate { partition: 0 }');
      expect(encodeMessage('k8s.io.api.apps.v1.StatefulSetUpdateStrategy', strategy).toString('hex')).to.equal(vector.toString('hex'));
    });

    it('DaemonSetUpdateStrategy defaults (maxUnavailable 1, maxSurge 0) and a new DaemonSet\'s status', () => {
      const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
      const vector = protocEncode('k8s.io.api.apps.v1.DaemonSetUpdateStrategy', `
        type: "RollingUpdate"
        rollingUpdate { maxUnavailable { type: 0 intVal: 1 strVal: "" } maxSurge { type: 0 intVal: 0 strVal: "" } }`);
      expect(encodeMessage('k8s.io.api.apps.v1.DaemonSetUpdateStrategy', strategy).toString('hex')).to.equal(vector.toString('hex'));
      const status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
      const statusVector = protocEncode('k8s.io.api.apps.v1.DaemonSetStatus', `
        currentNumberScheduled: 0 numberMisscheduled: 0 desiredNumberScheduled: 0 numberReady: 0 observedGeneration: 0
        updatedNumberScheduled: 0 numberAvailable: 0 numberUnavailable: 0`);
      expect(encodeMessage('k8s.io.api.apps.v1.DaemonSetStatus', status).toString('hex')).to.equal(statusVector.toString('hex'));
      expect(decodeMessage('k8s.io.api.apps.v1.DaemonSetStatus', statusVector)).to.deep.equal(status);
    });
  });
});
