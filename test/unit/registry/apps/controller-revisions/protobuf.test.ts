/**
 * ControllerRevision in protobuf (k8s.io.api.apps.v1): every served field survives JSON ->
 * protobuf -> JSON, `revision: 0` is written and read back (Go's int64 without omitempty), and
 * the bytes equal protoc's for the same message (data as RawExtension.raw: the JSON bytes).
 */
import { expect } from 'chai';
import { protocEncode, requireProtoc } from '../../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../../lib/scheme/protobuf/message-codec';
import { controllerRevisionSchema } from '../../../../../lib/registry/apps/controller-revisions/schema';
import { ApiObject } from '../../../../../lib/scheme/types';

const MESSAGE = 'k8s.io.api.apps.v1.ControllerRevision';

const revision = (fields: Record<string, unknown>): ApiObject => ({
  apiVersion: 'apps/v1', kind: 'ControllerRevision',
  metadata: {
    name: 'web-7d4b9c', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7',
    creationTimestamp: '2024-01-01T00:00:00Z', labels: { 'controller-revision-hash': '7d4b9c' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: '1f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', controller: true, blockOwnerDeletion: true }],
  },
  ...fields,
});

describe('ControllerRevision protobuf', () => {
  it('is registered with its list, at apps/v1 only', () => {
    expect(hasProtobuf('apps/v1', 'ControllerRevision')).to.equal(true);
    expect(hasProtobuf('apps/v1', 'ControllerRevisionList')).to.equal(true);
    expect(hasProtobuf('apps.orch.io/v1', 'ControllerRevision')).to.equal(false);
  });

  it('round-trips every field the schema serves', () => {
    const served = Object.keys(controllerRevisionSchema.properties ?? {}).sort();
    expect(served).to.deep.equal(['apiVersion', 'data', 'kind', 'metadata', 'revision']);
    const obj = revision({ data: { spec: { template: { metadata: { labels: { app: 'web' } } }, containers: [{ name: 'a', ports: [80] }] }, $patch: 'replace' }, revision: 3 });
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('keeps revision 0 and an empty data object', () => {
    const obj = revision({ data: {}, revision: 0 });
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('round-trips a list', () => {
    const list = {
      apiVersion: 'apps/v1', kind: 'ControllerRevisionList', metadata: { resourceVersion: '9' },
      items: [revision({ data: { a: 1 }, revision: 1 }), revision({ data: { a: 2 }, revision: 2 })],
    } as ApiObject;
    // Items carry no apiVersion and kind in protobuf, as in Kubernetes' lists.
    const bare = (list.items as ApiObject[]).map(({ apiVersion: _v, kind: _k, ...rest }) => rest);
    expect(decodeProtobuf(encodeProtobuf(list))).to.deep.equal({ ...list, items: bare });
  });

  describe('bytes equal protoc --encode', () => {
    before(requireProtoc);

    it('data as RawExtension raw JSON bytes, revision as a varint', () => {
      const cr = { metadata: { name: 'web-1', namespace: 'default' }, data: { spec: { x: 1 } }, revision: 2 };
      const vector = protocEncode(MESSAGE, `
        metadata { name: "web-1" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        data { raw: "{\\"spec\\":{\\"x\\":1}}" }
        revision: 2`);
      expect(encodeMessage(MESSAGE, cr).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage(MESSAGE, vector)).to.deep.equal(cr);
    });

    it('revision 0 is written (a Go value field) and read back as 0', () => {
      const cr = { metadata: { name: 'web-0', namespace: 'default' }, data: {}, revision: 0 };
      const vector = protocEncode(MESSAGE, `
        metadata { name: "web-0" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        data { raw: "{}" }
        revision: 0`);
      expect(encodeMessage(MESSAGE, cr).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage(MESSAGE, vector)).to.deep.equal(cr);
    });
  });
});
