/**
 * Protobuf for the workload and storage kinds (Pod, PersistentVolumeClaim, PersistentVolume and
 * storage/v1's StorageClass, VolumeAttachment, CSIDriver, CSINode, CSIStorageCapacity), ServiceAccount, Endpoints
 * and EndpointSlice (discovery v1 and v1beta1):
 * - every field each served schema has survives JSON -> protobuf -> JSON: the objects are
 *   generated from the schemas themselves, so a field the schema serves and proto/ lacks (which
 *   protobuf would silently drop) fails here;
 * - the valid objects of the integration tests, a list, and zero values that must survive
 *   (Go value fields without omitempty such as iscsi.lun 0, and pointer fields set to false);
 * - byte equality with protoc --encode vectors for a PersistentVolumeClaim, a ReplicationController and a StorageClass.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../lib/scheme/protobuf/message-codec';
import { Schema } from '../../../lib/scheme/schema';
import { podSchema } from '../../../lib/registry/core/pods/schema';
import { podTemplateSchema } from '../../../lib/registry/core/pod-templates/schema';
import { limitRangeSchema } from '../../../lib/registry/core/limit-ranges/schema';
import { replicationControllerSchema } from '../../../lib/registry/core/replication-controllers/schema';
import { persistentVolumeClaimSchema } from '../../../lib/registry/core/persistent-volume-claims/schema';
import { persistentVolumeSchema } from '../../../lib/registry/core/persistent-volumes/schema';
import { serviceAccountSchema } from '../../../lib/registry/core/service-accounts/schema';
import { serviceSchema } from '../../../lib/registry/core/services/schema';
import { eventSchema } from '../../../lib/registry/core/events/schema';
import { eventV1Schema } from '../../../lib/registry/events/events/schema';
import { nodeSchema } from '../../../lib/registry/core/nodes/schema';
import { csiDriverSchema } from '../../../lib/registry/storage/csi-drivers/schema';
import { csiNodeSchema } from '../../../lib/registry/storage/csi-nodes/schema';
import { csiStorageCapacitySchema } from '../../../lib/registry/storage/csi-storage-capacities/schema';
import { storageClassSchema } from '../../../lib/registry/storage/storage-classes/schema';
import { volumeAttachmentSchema } from '../../../lib/registry/storage/volume-attachments/schema';
import { endpointsSchema } from '../../../lib/registry/core/endpoints/schema';
import { endpointSliceSchema, endpointSliceV1beta1Schema } from '../../../lib/registry/discovery/endpoint-slices/schema';
import { flowSchemaSchema } from '../../../lib/registry/flowcontrol/flow-schemas/schema';
import { priorityLevelConfigurationSchema } from '../../../lib/registry/flowcontrol/priority-level-configurations/schema';
import { validatingAdmissionPolicySchema } from '../../../lib/registry/admissionregistration/validating-admission-policies/schema';
import { validatingAdmissionPolicyBindingSchema } from '../../../lib/registry/admissionregistration/validating-admission-policy-bindings/schema';
import { ingressV1beta1Schemas } from '../../../lib/registry/networking/ingresses/schema-v1beta1';
import { ingressClassSchema } from '../../../lib/registry/networking/ingress-classes/schema';
import { cronJobSchema } from '../../../lib/registry/batch/cron-jobs/schema';
import { runtimeClassSchema } from '../../../lib/registry/node/runtime-classes/schema';
import { priorityClassSchema } from '../../../lib/registry/scheduling/priority-classes/schema';
import { leaseSchema } from '../../../lib/registry/coordination/leases/schema';
import { ApiObject } from '../../../lib/scheme/types';

const UID = '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11';
const T0 = '2024-01-01T00:00:00Z';
const SV = 'storage.k8s.io/v1';
type Obj = Record<string, any>;

const metadata = (name: string, namespace?: string): Obj => ({
  name, ...(namespace ? { namespace } : {}), uid: UID, resourceVersion: '7', creationTimestamp: T0, labels: { app: 'demo' },
});

/**
 * A value for `schema` with every property set (non-zero scalars, one list item, one map entry),
 * so that the round trip exercises every field the schema serves. ObjectMeta (already covered by
 * protobuf.test.ts) is replaced by a small fixed one.
 */
function everyField(schema: Schema, path: string): unknown {
  const s = schema as Obj;
  if (s.format === 'quantity') return '1536Mi';
  if (s.format === 'date-time') return T0;
  switch (s.type) {
    case 'string': return `${path.split('.').pop()}-x`;
    case 'integer': return 3;
    case 'boolean': return true;
    case 'array': return [everyField(s.items, `${path}[]`)];
    default: {
      if (s.properties) {
        const out: Obj = {};
        for (const [k, v] of Object.entries(s.properties as Record<string, Schema>)) {
          out[k] = k === 'metadata' ? metadata('meta') : everyField(v, `${path}.${k}`);
        }
        return out;
      }
      if (s.additionalProperties) return { key: everyField(s.additionalProperties, `${path}{}`) };
      throw new Error(`${path}: no value for schema ${JSON.stringify(s)}`);
    }
  }
}

function fullObject(apiVersion: string, kind: string, schema: Schema): ApiObject {
  return { ...(everyField(schema, kind) as Obj), apiVersion, kind, metadata: metadata(`full-${kind.toLowerCase()}`) } as ApiObject;
}

/** An Event's or a Lease's MicroTimes (the schema says date-time for both kinds of time) in MicroTime's JSON form. */
function withMicroTimes(obj: ApiObject): ApiObject {
  const micro = '2026-11-29T10:00:00.123456Z';
  if (obj.kind === 'Lease') return { ...obj, spec: { ...(obj.spec as Obj), acquireTime: micro, renewTime: micro } };
  if (obj.kind !== 'Event') return obj;
  return { ...obj, eventTime: micro, series: { ...(obj.series as Obj), lastObservedTime: micro } };
}

/** Paths whose values differ between `a` and `b`, to name the fields protobuf dropped. */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(root)'];
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => differences((a as Obj)[k], (b as Obj)[k], `${path}.${k}`));
}

function roundTrip(obj: ApiObject, expected: ApiObject = obj): void {
  const back = decodeProtobuf(encodeProtobuf(obj));
  expect(differences(expected, back), 'fields changed or dropped by protobuf').to.deep.equal([]);
  expect(back).to.deep.equal(expected);
}

/**
 * What Go's marshalling makes of a valid object: an absent value struct is written as its zero
 * value, read back as absent when empty (CSIDriver spec {}) and with the fields that have no
 * omitempty when not (VolumeAttachment status.attached: false, as Kubernetes' JSON shows it).
 */
function asGoReadsIt(obj: ApiObject): ApiObject {
  if (obj.kind === 'CSIDriver' && Object.keys(obj.spec as Obj).length === 0) {
    const { spec: _empty, ...rest } = obj;
    return rest as ApiObject;
  }
  if (obj.kind === 'VolumeAttachment' && obj.status === undefined) return { ...obj, status: { attached: false } };
  return obj;
}

const SERVED: Array<[string, string, Schema]> = [
  ['v1', 'Pod', podSchema],
  ['v1', 'PodTemplate', podTemplateSchema],
  ['v1', 'ReplicationController', replicationControllerSchema],
  ['v1', 'PersistentVolumeClaim', persistentVolumeClaimSchema],
  ['v1', 'PersistentVolume', persistentVolumeSchema],
  [SV, 'StorageClass', storageClassSchema],
  [SV, 'VolumeAttachment', volumeAttachmentSchema],
  [SV, 'CSIDriver', csiDriverSchema],
  [SV, 'CSINode', csiNodeSchema],
  ['flowcontrol.apiserver.k8s.io/v1', 'FlowSchema', flowSchemaSchema],
  ['flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', priorityLevelConfigurationSchema],
  [SV, 'CSIStorageCapacity', csiStorageCapacitySchema],
  ['admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', validatingAdmissionPolicySchema],
  ['admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', validatingAdmissionPolicyBindingSchema],
  ['v1', 'ServiceAccount', serviceAccountSchema],
  ['v1', 'Service', serviceSchema],
  ['v1', 'Event', eventSchema],
  ['v1', 'Node', nodeSchema],
  ['v1', 'Endpoints', endpointsSchema],
  ['v1', 'LimitRange', limitRangeSchema],
  ['discovery.k8s.io/v1', 'EndpointSlice', endpointSliceSchema],
  // v1beta1's own shape (topology where v1 has zone and deprecatedTopology).
  ['discovery.k8s.io/v1beta1', 'EndpointSlice', endpointSliceV1beta1Schema],
  // events.k8s.io/v1: the same objects as core/v1 Event, in the newer shape.
  ['events.k8s.io/v1', 'Event', eventV1Schema],
  // The removed versions served over their current version's objects (--runtime-config switches them on).
  ['networking.k8s.io/v1beta1', 'Ingress', ingressV1beta1Schemas.networking],
  ['extensions/v1beta1', 'Ingress', ingressV1beta1Schemas.extensions],
  ['networking.k8s.io/v1beta1', 'IngressClass', ingressClassSchema],
  ['batch/v1beta1', 'CronJob', cronJobSchema],
  ['node.k8s.io/v1beta1', 'RuntimeClass', runtimeClassSchema],
  ['scheduling.k8s.io/v1beta1', 'PriorityClass', priorityClassSchema],
  ['coordination.k8s.io/v1beta1', 'Lease', leaseSchema],
];

/** The valid objects of test/integration/storage-kinds.test.ts, pod-volumes.test.ts and service-accounts.test.ts. */
const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const VALID: ApiObject[] = [
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'pvc', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1.5Gi' } } } },
  { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv' }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data/vol' } } },
  { apiVersion: SV, kind: 'StorageClass', metadata: { name: 'sc' }, provisioner: 'example.com/fast' },
  { apiVersion: SV, kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } },
  { apiVersion: SV, kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: {} },
  { apiVersion: SV, kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.example.com/zone'] }] } },
  { apiVersion: SV, kind: 'CSIStorageCapacity', metadata: { name: 'csc', namespace: 'default' }, storageClassName: 'fast', capacity: '100Gi', nodeTopology: { matchLabels: { zone: 'a' } } },
  {
    apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'default' },
    secrets: [{ name: 'builder-token' }, { name: 'extra' }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false,
  },
  {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'pod-volumes', labels: { app: 'web' } },
    spec: {
      containers: [{
        name: 'app', image: 'registry.example/app:1.0',
        env: [
          { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          { name: 'CPU', valueFrom: { resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } } },
          { name: 'CM', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: false } } },
          { name: 'PLAIN', value: 'v' },
        ],
        // Stored pods always carry resources (a Go value struct), as Kubernetes writes it.
        resources: {},
        volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
      }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'pvc' } },
        { name: 'cfg', configMap: { name: 'cm', items: [{ key: 'k', path: 'p', mode: 0 }], defaultMode: 420 } },
        { name: 'tmp', emptyDir: {} },
        { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
        { name: 'eph', ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: 'b' } }, spec: claimSpec } } },
        { name: 'disk', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
      ],
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
    },
    status: {
      phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }], hostIPs: [{ ip: '192.168.0.2' }], startTime: T0,
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: T0 }],
      containerStatuses: [{
        name: 'app', ready: false, restartCount: 0, image: 'registry.example/app:1.0', imageID: 'sha256:abc', started: false,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: T0, finishedAt: T0 } },
      }],
    },
  },
];

describe('protobuf for Pod, PersistentVolumeClaim, PersistentVolume and storage/v1', () => {
  it('has protobuf for every kind and its list, in both spellings of the storage group', () => {
    for (const [apiVersion, kind] of SERVED) {
      expect(hasProtobuf(apiVersion, kind), kind).to.equal(true);
      expect(hasProtobuf(apiVersion, `${kind}List`), `${kind}List`).to.equal(true);
      if (apiVersion === SV) expect(hasProtobuf('storage.orch.io/v1', kind), kind).to.equal(true);
    }
    expect(hasProtobuf('v1', 'StorageClass')).to.equal(false);
  });

  describe('every field of the served schema round trips', () => {
    for (const [apiVersion, kind, schema] of SERVED) {
      it(`${kind} (${apiVersion})`, () => roundTrip(withMicroTimes(fullObject(apiVersion, kind, schema))));
    }
  });

  describe('the integration tests\' valid objects round trip', () => {
    for (const obj of VALID) it(`${obj.kind} ${(obj.metadata as Obj).name}`, () => roundTrip(obj, asGoReadsIt(obj)));
  });

  it('a PodList (items without apiVersion/kind on the wire)', () => {
    const items = [VALID.find((o) => o.kind === 'Pod')!, fullObject('v1', 'Pod', podSchema)];
    const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '9' }, items };
    const bare = items.map(({ apiVersion: _a, kind: _k, ...fields }) => fields);
    expect(decodeProtobuf(encodeProtobuf(list))).to.deep.equal({ ...list, items: bare });
  });

  it('keeps zero values of Go fields without omitempty and of pointers (lun 0, ready false, exitCode 0, attached false)', () => {
    const pod = decodeProtobuf(encodeProtobuf(VALID.find((o) => o.kind === 'Pod')!)) as Obj;
    expect(pod.spec.volumes[5].iscsi.lun).to.equal(0);
    expect(pod.spec.terminationGracePeriodSeconds).to.equal(0);
    expect(pod.status.containerStatuses[0]).to.include({ ready: false, restartCount: 0, started: false });
    expect(pod.status.containerStatuses[0].state.terminated.exitCode).to.equal(0);
    const va: ApiObject = { ...VALID.find((o) => o.kind === 'VolumeAttachment')!, status: { attached: false } };
    expect((decodeProtobuf(encodeProtobuf(va)) as Obj).status).to.deep.equal({ attached: false });
    const sc: ApiObject = { ...VALID.find((o) => o.kind === 'StorageClass')!, allowVolumeExpansion: false };
    expect(decodeProtobuf(encodeProtobuf(sc))).to.deep.equal(sc);
  });

  it('a persistent volume source sits in the spec (inline), a pod volume source in the volume', () => {
    const pv = VALID.find((o) => o.kind === 'PersistentVolume')!;
    const bytes = encodeMessage('k8s.io.api.core.v1.PersistentVolumeSpec', pv.spec);
    // PersistentVolumeSpec.persistentVolumeSource (2) { hostPath (3) { path (1) } }
    expect(bytes.toString('hex')).to.contain(`12${'0d'}1a${'0b'}0a09${Buffer.from('/data/vol').toString('hex')}`);
  });

  describe('byte equality with protoc --encode', function () {
    this.timeout(300_000);
    before(requireProtoc);

    it('PersistentVolumeClaim (Go value fields written, nil pointers not)', () => {
      const pvc = {
        metadata: { name: 'data', namespace: 'default' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
      };
      const vector = protocEncode('k8s.io.api.core.v1.PersistentVolumeClaim', `
        metadata { name: "data" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec {
          accessModes: "ReadWriteOnce"
          resources { requests { key: "storage" value { string: "1Gi" } } }
          volumeName: ""
          storageClassName: "fast"
        }
        status { phase: "" }`);
      expect(encodeMessage('k8s.io.api.core.v1.PersistentVolumeClaim', pvc).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.core.v1.PersistentVolumeClaim', vector)).to.deep.equal(pvc);
    });

    it('events.k8s.io/v1 Event (regarding, deprecatedSource and the times Go values; series and related pointers)', () => {
      const event = {
        metadata: { name: 'e', namespace: 'ns' }, eventTime: '2026-01-02T03:04:05.123456Z',
        reportingController: 'example.com/c', reportingInstance: 'c-1', action: 'Act', reason: 'Why',
        regarding: { kind: 'Pod', name: 'p' }, note: 'a note', type: 'Normal',
      };
      const seconds = Date.parse('2026-01-02T03:04:05Z') / 1000;
      const vector = protocEncode('k8s.io.api.events.v1.Event', `
        metadata { name: "e" generateName: "" namespace: "ns" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        eventTime { seconds: ${seconds} nanos: 123456000 }
        reportingController: "example.com/c" reportingInstance: "c-1" action: "Act" reason: "Why"
        regarding { kind: "Pod" namespace: "" name: "p" uid: "" apiVersion: "" resourceVersion: "" fieldPath: "" }
        note: "a note" type: "Normal"
        deprecatedSource { component: "" host: "" }
        deprecatedFirstTimestamp {} deprecatedLastTimestamp {} deprecatedCount: 0`);
      expect(encodeMessage('k8s.io.api.events.v1.Event', event).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.events.v1.Event', vector)).to.deep.include({ eventTime: event.eventTime, note: 'a note', reportingController: 'example.com/c' });
    });

    it('ReplicationController (replicas a pointer, minReadySeconds and the status counts Go values)', () => {
      const rc = { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, selector: { app: 'web' } }, status: { replicas: 0 } };
      const vector = protocEncode('k8s.io.api.core.v1.ReplicationController', `
        metadata { name: "web" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec { replicas: 2 selector { key: "app" value: "web" } minReadySeconds: 0 }
        status { replicas: 0 fullyLabeledReplicas: 0 observedGeneration: 0 readyReplicas: 0 availableReplicas: 0 }`);
      expect(encodeMessage('k8s.io.api.core.v1.ReplicationController', rc).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.core.v1.ReplicationController', vector)).to.deep.equal(rc);
    });

    it('Node (spec strings and bools written, nodeInfo and the kubelet port without omitempty, nil pointers not)', () => {
      const nodeInfo = {
        machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '',
        kubeletVersion: 'v1.32.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: '',
      };
      const node = {
        metadata: { name: 'n1' },
        spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'], taints: [{ key: 'k', effect: 'NoSchedule' }] },
        status: { capacity: { cpu: '2' }, daemonEndpoints: { kubeletEndpoint: { Port: 10250 } }, nodeInfo },
      };
      const vector = protocEncode('k8s.io.api.core.v1.Node', `
        metadata { name: "n1" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec { podCIDR: "10.0.0.0/24" externalID: "" providerID: "" unschedulable: false taints { key: "k" value: "" effect: "NoSchedule" } podCIDRs: "10.0.0.0/24" }
        status {
          capacity { key: "cpu" value { string: "2" } }
          phase: ""
          daemonEndpoints { kubeletEndpoint { Port: 10250 } }
          nodeInfo { machineID: "" systemUUID: "" bootID: "" kernelVersion: "" osImage: "" containerRuntimeVersion: "" kubeletVersion: "v1.32.0" kubeProxyVersion: "" operatingSystem: "linux" architecture: "" }
        }`);
      expect(encodeMessage('k8s.io.api.core.v1.Node', node).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.core.v1.Node', vector)).to.deep.equal(node);
    });

    it('LimitRange (the item type written even when empty, ResourceList keys sorted)', () => {
      const lr = {
        metadata: { name: 'limits', namespace: 'default' },
        spec: { limits: [{ type: 'Container', max: { memory: '1Gi', cpu: '2' }, default: { cpu: '2' }, maxLimitRequestRatio: { cpu: '4' } }, { type: '' }] },
      };
      const vector = protocEncode('k8s.io.api.core.v1.LimitRange', `
        metadata { name: "limits" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec {
          limits {
            type: "Container"
            max { key: "cpu" value { string: "2" } }
            max { key: "memory" value { string: "1Gi" } }
            default { key: "cpu" value { string: "2" } }
            maxLimitRequestRatio { key: "cpu" value { string: "4" } }
          }
          limits { type: "" }
        }`);
      expect(encodeMessage('k8s.io.api.core.v1.LimitRange', lr).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.core.v1.LimitRange', vector)).to.deep.equal(lr);
    });

    it('Binding', () => {
      const binding = { metadata: { name: 'p', namespace: 'default' }, target: { kind: 'Node', name: 'n1' } };
      const vector = protocEncode('k8s.io.api.core.v1.Binding', `
        metadata { name: "p" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        target { kind: "Node" namespace: "" name: "n1" uid: "" apiVersion: "" resourceVersion: "" fieldPath: "" }`);
      expect(encodeMessage('k8s.io.api.core.v1.Binding', binding).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.core.v1.Binding', vector)).to.deep.equal(binding);
    });

    it('Service (pointer policies written only when set, the Go value fields always, the status struct empty)', () => {
      const svc = {
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          ports: [{ protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'web' }, clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'],
          type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster',
        },
        status: { loadBalancer: {} },
      };
      const vector = protocEncode('k8s.io.api.core.v1.Service', `
        metadata { name: "web" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec {
          ports { name: "" protocol: "TCP" port: 80 targetPort { type: 0 intVal: 8080 strVal: "" } nodePort: 0 }
          selector { key: "app" value: "web" }
          clusterIP: "10.0.0.1" type: "ClusterIP" sessionAffinity: "None" loadBalancerIP: "" externalName: "" externalTrafficPolicy: ""
          healthCheckNodePort: 0 publishNotReadyAddresses: false ipFamilyPolicy: "SingleStack" clusterIPs: "10.0.0.1" ipFamilies: "IPv4"
          internalTrafficPolicy: "Cluster"
        }
        status { loadBalancer {} }`);
      expect(encodeMessage('k8s.io.api.core.v1.Service', svc).toString('hex')).to.equal(vector.toString('hex'));
      expect((decodeMessage('k8s.io.api.core.v1.Service', vector) as Obj).spec).to.deep.equal(svc.spec);
    });

    it('StorageClass', () => {
      const sc = {
        metadata: { name: 'fast' },
        provisioner: 'example.com/fast',
        parameters: { type: 'ssd', iops: '100' },
        reclaimPolicy: 'Retain',
        mountOptions: ['ro'],
        allowVolumeExpansion: true,
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] }],
      };
      const vector = protocEncode('k8s.io.api.storage.v1.StorageClass', `
        metadata { name: "fast" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        provisioner: "example.com/fast"
        parameters { key: "iops" value: "100" } parameters { key: "type" value: "ssd" }
        reclaimPolicy: "Retain"
        mountOptions: "ro"
        allowVolumeExpansion: true
        volumeBindingMode: "WaitForFirstConsumer"
        allowedTopologies { matchLabelExpressions { key: "zone" values: "a" values: "b" } }`);
      expect(encodeMessage('k8s.io.api.storage.v1.StorageClass', sc).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.storage.v1.StorageClass', vector)).to.deep.equal({
        ...sc, parameters: { iops: '100', type: 'ssd' },
      });
    });
  });
});


