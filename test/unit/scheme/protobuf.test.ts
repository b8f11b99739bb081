/**
 * The protobuf codec: JSON -> protobuf -> JSON round trips for every served kind, Status, a list
 * and a watch frame; Kubernetes' zero-value rules; the envelope's checks; and byte equality with
 * vectors that protoc (Debian's protobuf-compiler) encodes from proto/ and a field list written
 * out by hand as Go's marshalling writes it (every Go value field, zero values included).
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../helpers/protoc';
import { parse as parseProto } from 'protobufjs';
import { ApiError } from '../../../lib/meta/api-errors';
import {
  PROTOBUF_PREFIX, decodeProtobuf, decodeWatchEvent, encodeProtobuf, encodeWatchFrame, hasProtobuf, splitWatchFrames,
} from '../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../lib/scheme/protobuf/message-codec';
import { loadProtoRoot } from '../../../lib/scheme/protobuf/loader';
import { registeredMessageNames } from '../../../lib/scheme/protobuf/kinds';
import { decodeFromStorage, encodeForStorage } from '../../../lib/storage/storage-codec';
import { ApiObject } from '../../../lib/scheme/types';

const UID = '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11';
const T0 = '2024-01-01T00:00:00Z'; // 1704067200
const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64');

const configMap = (): ApiObject => ({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: {
    name: 'game-config', namespace: 'default', uid: UID, resourceVersion: '42', creationTimestamp: T0,
    labels: { tier: 'web', app: 'demo' }, annotations: { note: 'n' },
    managedFields: [{
      manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: T0,
      fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
    }],
  },
  immutable: true,
  data: { b: '', a: '1' },
  binaryData: { bin: b64([0, 1, 0xff]) },
});

const namespace = (): ApiObject => ({
  apiVersion: 'v1', kind: 'Namespace',
  metadata: { name: 'team-a', uid: UID, creationTimestamp: T0, labels: { 'kubernetes.io/metadata.name': 'team-a' } },
  spec: { finalizers: ['kubernetes'] },
  status: {
    phase: 'Terminating',
    conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'ContentDeleted', message: 'All content successfully deleted' }],
  },
});

const secret = (): ApiObject => ({
  apiVersion: 'v1', kind: 'Secret',
  metadata: { name: 's', namespace: 'default', uid: UID, creationTimestamp: T0, finalizers: ['example.com/keep'] },
  immutable: false,
  data: { k: b64([0x76]), empty: '' },
  type: 'Opaque',
});

const notFound = (): ApiObject => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "x" not found', reason: 'NotFound',
  details: { name: 'x', kind: 'configmaps' }, code: 404,
});

/** The JSON as the codec reads it back: Status's empty `metadata: {}` is a Go zero value. */
function withoutEmptyMetadata(obj: ApiObject): ApiObject {
  const { metadata, ...rest } = obj;
  return metadata && Object.keys(metadata).length ? obj : rest;
}

function expectBadRequest(fn: () => unknown, pattern: RegExp): void {
  let err: unknown;
  try { fn(); } catch (e) { err = e; }
  expect(err, 'expected a BadRequest').to.be.instanceOf(ApiError);
  expect((err as ApiError).code).to.equal(400);
  expect((err as ApiError).message).to.match(pattern);
}

describe('protobuf codec (lib/scheme/protobuf)', () => {
  it('loads every proto/ file and resolves the message of every registered kind', () => {
    const root = loadProtoRoot();
    for (const name of registeredMessageNames()) expect(() => root.lookupType(name), name).not.to.throw();
  });

  describe('hasProtobuf', () => {
    it('is true for the served kinds, their lists, Status in any version and PartialObjectMetadata', () => {
      for (const kind of ['Namespace', 'NamespaceList', 'ConfigMap', 'ConfigMapList', 'Secret', 'SecretList']) {
        expect(hasProtobuf('v1', kind), kind).to.equal(true);
      }
      expect(hasProtobuf('v1', 'Status')).to.equal(true);
      expect(hasProtobuf('storage.k8s.io/v1', 'Status')).to.equal(true);
      expect(hasProtobuf('meta.k8s.io/v1', 'PartialObjectMetadataList')).to.equal(true);
      expect(hasProtobuf('meta.orch.io/v1beta1', 'PartialObjectMetadata')).to.equal(true);
    });

    it('is false for custom resources, Table and a kind in the wrong version', () => {
      expect(hasProtobuf('example.com/v1', 'Widget')).to.equal(false);
      expect(hasProtobuf('meta.k8s.io/v1', 'Table')).to.equal(false);
      expect(hasProtobuf('apps/v1', 'ConfigMap')).to.equal(false);
      expect(hasProtobuf(undefined, undefined)).to.equal(false);
    });
  });

  describe('round trips JSON -> protobuf -> JSON', () => {
    for (const [name, make] of [['Namespace', namespace], ['ConfigMap (binaryData, immutable)', configMap], ['Secret', secret]] as const) {
      it(name, () => {
        const buf = encodeProtobuf(make());
        expect(buf.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
        expect(decodeProtobuf(buf)).to.deep.equal(make());
      });
    }

    it('keeps a pointer field set to its zero value (ConfigMap.immutable: false)', () => {
      const cm = { ...configMap(), immutable: false };
      expect(decodeProtobuf(encodeProtobuf(cm)).immutable).to.equal(false);
      const { immutable: _gone, ...unset } = configMap();
      expect(decodeProtobuf(encodeProtobuf(unset))).not.to.have.property('immutable');
    });

    it('Status with details and causes', () => {
      const status = {
        ...notFound(), code: 422, reason: 'Invalid',
        details: { name: 'x', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data[a b]' }], retryAfterSeconds: 3 },
      };
      expect(decodeProtobuf(encodeProtobuf(status))).to.deep.equal(withoutEmptyMetadata(status));
    });

    it('ConfigMapList with list metadata (items carry no apiVersion/kind on the wire)', () => {
      const items = [configMap(), { ...configMap(), metadata: { name: 'other', namespace: 'default' } }];
      const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '77', continue: 'tok', remainingItemCount: 0 }, items };
      const bare = items.map(({ apiVersion: _a, kind: _k, ...fields }) => fields);
      expect(decodeProtobuf(encodeProtobuf(list))).to.deep.equal({ ...list, items: bare });
    });

    it('object metadata: owner references with controller false, deletion fields, generation', () => {
      const cm: ApiObject = {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: {
          name: 'owned', generateName: 'own-', namespace: 'ns', uid: UID, generation: 3,
          creationTimestamp: T0, deletionTimestamp: '2024-01-01T00:01:00Z', deletionGracePeriodSeconds: 0,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: UID, controller: false, blockOwnerDeletion: true }],
        },
      };
      expect(decodeProtobuf(encodeProtobuf(cm))).to.deep.equal(cm);
    });

    it('a watch event as a length-prefixed frame whose object carries the envelope', () => {
      const frame = encodeWatchFrame('MODIFIED', configMap());
      expect(frame.readUInt32BE(0)).to.equal(frame.length - 4);
      const twice = Buffer.concat([frame, encodeWatchFrame('ERROR', notFound()), frame.subarray(0, 3)]);
      const { frames, rest } = splitWatchFrames(twice);
      expect(frames).to.have.length(2);
      expect(rest).to.have.length(3);
      expect(decodeWatchEvent(frames[0])).to.deep.equal({ type: 'MODIFIED', object: configMap() });
      expect(decodeWatchEvent(frames[1])).to.deep.equal({ type: 'ERROR', object: withoutEmptyMetadata(notFound()) });
    });

    it('times come back as whole seconds in UTC, as metav1.Time does', () => {
      const cm = { ...configMap(), metadata: { name: 'x', creationTimestamp: '2024-01-01T02:00:00.75+02:00' } };
      expect(decodeProtobuf(encodeProtobuf(cm)).metadata?.creationTimestamp).to.equal(T0);
    });
  });

  describe('zero values', () => {
    it('are written explicitly for Go value fields and read back as absent', () => {
      // What kubectl sends for `create ns n`: every string of ObjectMeta, generation 0, an empty time, empty spec.
      const raw = encodeMessage('k8s.io.api.core.v1.Namespace', { metadata: { name: 'n' } });
      expect(raw.length).to.be.greaterThan(20);
      expect(decodeMessage('k8s.io.api.core.v1.Namespace', raw)).to.deep.equal({ metadata: { name: 'n' } });
    });

    it('an inline (embedded) message takes its fields from the parent object', () => {
      // As core/v1's ConfigMapEnvSource embeds LocalObjectReference with `json:",inline"`.
      const { root } = parseProto(`syntax = "proto2"; package t;
        message Ref { optional string name = 1; }
        message EnvSource { optional Ref localObjectReference = 1 [(orch.inline) = true]; optional bool optional = 2 [(orch.nullable) = true]; }`,
      { keepCase: true });
      root.resolveAll();
      const type = root.lookupType('t.EnvSource');
      const raw = encodeMessage(type, { name: 'cm', optional: false });
      expect(raw.toString('hex')).to.equal('0a040a02636d1000');
      expect(decodeMessage(type, raw)).to.deep.equal({ name: 'cm', optional: false });
      expect(decodeMessage(type, encodeMessage(type, {}))).to.deep.equal({});
    });

    it('Status code 0 and empty causes are absent; retryAfterSeconds 0 too', () => {
      const raw = encodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Status', { status: 'Success', details: { name: 'x' } });
      expect(decodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Status', raw)).to.deep.equal({ status: 'Success', details: { name: 'x' } });
    });
  });

  describe('the envelope', () => {
    it('a body without the k8s\\0 prefix is 400', () => {
      const good = encodeProtobuf(configMap());
      expectBadRequest(() => decodeProtobuf(Buffer.concat([Buffer.from('k8s\x01'), good.subarray(4)])), /prefix/);
      expectBadRequest(() => decodeProtobuf(Buffer.from('{"kind":"ConfigMap"}')), /prefix/);
      expectBadRequest(() => decodeProtobuf(Buffer.alloc(0)), /prefix/);
    });

    it('an undecodable body is 400', () => {
      const good = encodeProtobuf(configMap());
      expectBadRequest(() => decodeProtobuf(good.subarray(0, good.length - 7)), /could not be decoded/);
      expectBadRequest(() => decodeProtobuf(Buffer.concat([PROTOBUF_PREFIX, Buffer.from([0x0a, 0x7f, 0x01])])), /could not be decoded/);
      // ConfigMap.data sent as a varint: a wrong wire type inside raw.
      const bad = encodeMessage('k8s.io.apimachinery.pkg.runtime.Unknown', { typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw: Buffer.from([0x10, 0x01]) });
      expectBadRequest(() => decodeProtobuf(Buffer.concat([PROTOBUF_PREFIX, bad])), /could not be decoded as ConfigMap/);
    });

    it('an unknown kind, a content encoding or a foreign content type is 400', () => {
      const wrap = (u: object) => Buffer.concat([PROTOBUF_PREFIX, encodeMessage('k8s.io.apimachinery.pkg.runtime.Unknown', u)]);
      const raw = encodeMessage('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'x' } });
      expectBadRequest(() => decodeProtobuf(wrap({ typeMeta: { apiVersion: 'example.com/v1', kind: 'Widget' }, raw })), /no protobuf serialization/);
      expectBadRequest(() => decodeProtobuf(wrap({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw, contentEncoding: 'gzip' })), /content encoding/);
      expectBadRequest(() => decodeProtobuf(wrap({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw, contentType: 'application/json' })), /content type/);
      expect(decodeProtobuf(wrap({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw, contentType: 'application/vnd.kubernetes.protobuf' })))
        .to.deep.equal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    });

    it('a kind without protobuf cannot be encoded', () => {
      expect(() => encodeProtobuf({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).to.throw(/no protobuf/);
    });
  });

  describe('storage codec', () => {
    it('writes protobuf under a protobuf --storage-media-type and reads either encoding', () => {
      const asProtobuf = encodeForStorage(configMap(), 'application/vnd.kubernetes.protobuf');
      const asJson = encodeForStorage(configMap());
      expect(asProtobuf.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
      expect(asJson.toString('utf8')[0]).to.equal('{');
      const want = { ...configMap(), metadata: { ...configMap().metadata, resourceVersion: '9' } };
      expect(decodeFromStorage(asProtobuf, 9)).to.deep.equal(want);
      expect(decodeFromStorage(asJson, 9)).to.deep.equal(want);
      expect(encodeForStorage(configMap(), 'application/vnd.orch.protobuf')).to.deep.equal(asProtobuf);
    });

    it('keeps kinds without protobuf in JSON', () => {
      const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
      expect(encodeForStorage(widget, 'application/vnd.kubernetes.protobuf').toString('utf8')).to.equal(JSON.stringify(widget));
    });
  });

  describe('byte equality with protoc --encode (Kubernetes field numbers, Go zero values)', function () {
    this.timeout(300_000);
    before(requireProtoc);

    it('ConfigMap', () => {
      const vector = protocEncode('k8s.io.api.core.v1.ConfigMap', `
        metadata {
          name: "game-config" generateName: "" namespace: "default" selfLink: "" uid: "${UID}" resourceVersion: "42"
          generation: 0 creationTimestamp { seconds: 1704067200 nanos: 0 }
          labels { key: "app" value: "demo" } labels { key: "tier" value: "web" }
          annotations { key: "note" value: "n" }
          managedFields {
            manager: "kubectl-create" operation: "Update" apiVersion: "v1" time { seconds: 1704067200 nanos: 0 }
            fieldsType: "FieldsV1" fieldsV1 { Raw: "{\\"f:data\\":{\\".\\":{},\\"f:a\\":{}}}" } subresource: ""
          }
        }
        immutable: true
        data { key: "a" value: "1" } data { key: "b" value: "" }
        binaryData { key: "bin" value: "\\000\\001\\377" }`);
      const raw = encodeMessage('k8s.io.api.core.v1.ConfigMap', configMap());
      expect(raw.toString('hex')).to.equal(vector.toString('hex'));
      // The whole body: prefix + Unknown{typeMeta, raw, contentEncoding "", contentType ""}.
      const unknown = protocEncode('k8s.io.apimachinery.pkg.runtime.Unknown',
        `typeMeta { apiVersion: "v1" kind: "ConfigMap" } raw: "${octal(vector)}" contentEncoding: "" contentType: ""`);
      expect(encodeProtobuf(configMap()).toString('hex')).to.equal(Buffer.concat([PROTOBUF_PREFIX, unknown]).toString('hex'));
    });

    it('Namespace as kubectl create ns sends it (empty time, spec and status written)', () => {
      const vector = protocEncode('k8s.io.api.core.v1.Namespace', `
        metadata { name: "n" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec {} status { phase: "" }`);
      expect(encodeMessage('k8s.io.api.core.v1.Namespace', { metadata: { name: 'n' } }).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.core.v1.Namespace', vector)).to.deep.equal({ metadata: { name: 'n' } });
    });

    it('Namespace with finalizers and a condition', () => {
      const vector = protocEncode('k8s.io.api.core.v1.Namespace', `
        metadata {
          name: "team-a" generateName: "" namespace: "" selfLink: "" uid: "${UID}" resourceVersion: "" generation: 0
          creationTimestamp { seconds: 1704067200 nanos: 0 } labels { key: "kubernetes.io/metadata.name" value: "team-a" }
        }
        spec { finalizers: "kubernetes" }
        status {
          phase: "Terminating"
          conditions {
            type: "NamespaceDeletionContentFailure" status: "False" lastTransitionTime { seconds: 1704164645 nanos: 0 }
            reason: "ContentDeleted" message: "All content successfully deleted"
          }
        }`);
      expect(encodeMessage('k8s.io.api.core.v1.Namespace', namespace()).toString('hex')).to.equal(vector.toString('hex'));
    });

    it('Secret with immutable false sent explicitly, which reads back as false', () => {
      const vector = protocEncode('k8s.io.api.core.v1.Secret', `
        metadata {
          name: "s" generateName: "" namespace: "default" selfLink: "" uid: "${UID}" resourceVersion: "" generation: 0
          creationTimestamp { seconds: 1704067200 nanos: 0 } finalizers: "example.com/keep"
        }
        immutable: false data { key: "empty" value: "" } data { key: "k" value: "v" } type: "Opaque"`);
      expect(encodeMessage('k8s.io.api.core.v1.Secret', secret()).toString('hex')).to.equal(vector.toString('hex'));
      const { apiVersion: _a, kind: _k, ...fields } = secret();
      expect(decodeMessage('k8s.io.api.core.v1.Secret', vector)).to.deep.equal(fields);
    });

    it('Status', () => {
      const vector = protocEncode('k8s.io.apimachinery.pkg.apis.meta.v1.Status', `
        metadata { selfLink: "" resourceVersion: "" continue: "" }
        status: "Failure" message: "configmaps \\"x\\" not found" reason: "NotFound"
        details { name: "x" group: "" kind: "configmaps" uid: "" retryAfterSeconds: 0 }
        code: 404`);
      expect(encodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Status', notFound()).toString('hex')).to.equal(vector.toString('hex'));
    });

    it('IntOrString, Quantity and MicroTime', () => {
      const ios = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
      expect(encodeMessage(ios, 'http')).to.deep.equal(protocEncode(ios, 'type: 1 intVal: 0 strVal: "http"'));
      expect(encodeMessage(ios, 8080)).to.deep.equal(protocEncode(ios, 'type: 0 intVal: 8080 strVal: ""'));
      expect(decodeMessage(ios, protocEncode(ios, 'type: 1 strVal: "http"'))).to.equal('http');
      expect(decodeMessage(ios, protocEncode(ios, 'intVal: 80'))).to.equal(80);
      const q = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
      expect(encodeMessage(q, '1536Mi')).to.deep.equal(protocEncode(q, 'string: "1536Mi"'));
      expect(decodeMessage(q, protocEncode(q, 'string: "500m"'))).to.equal('500m');
      const mt = 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime';
      expect(encodeMessage(mt, '2024-01-01T00:00:00.123456Z')).to.deep.equal(protocEncode(mt, 'seconds: 1704067200 nanos: 123456000'));
      expect(decodeMessage(mt, protocEncode(mt, 'seconds: 1704067200 nanos: 5000'))).to.equal('2024-01-01T00:00:00.000005Z');
    });
  });
});

/** Octal escapes of `bytes` for a textproto string. */
function octal(bytes: Buffer): string {
  return [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
}


