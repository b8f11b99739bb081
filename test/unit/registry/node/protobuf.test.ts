/**
 * Protobuf of node/v1 RuntimeClass: every schema field survives JSON -> protobuf -> JSON (the
 * overhead's quantities, the node selector, core's Toleration), and the bytes equal a protoc
 * --encode vector of what Go writes (handler always, Toleration's value strings always).
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { runtimeClassSchema } from '../../../../lib/registry/node/runtime-classes/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const MESSAGE = 'k8s.io.api.node.v1.RuntimeClass';
const metadata = { name: 'kata', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' };

describe('RuntimeClass protobuf', () => {
  it('is a protobuf kind with its list, in both flavors', () => {
    for (const group of ['node.k8s.io', 'node.orch.io']) {
      expect(hasProtobuf(`${group}/v1`, 'RuntimeClass')).to.equal(true);
      expect(hasProtobuf(`${group}/v1`, 'RuntimeClassList')).to.equal(true);
    }
  });

  it('round trips every field the schema serves', () => {
    const full: ApiObject = {
      apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata, handler: 'kata',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }] },
    };
    expect(Object.keys(full)).to.have.members(Object.keys(runtimeClassSchema.properties!));
    expect(Object.keys(full.scheduling as object)).to.have.members(Object.keys(runtimeClassSchema.properties!.scheduling.properties!));
    expect(decodeProtobuf(encodeProtobuf(full))).to.deep.equal(full);
  });

  it('writes the bytes Go writes (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const rc = {
      metadata: { name: 'kata' }, handler: 'kata', overhead: { podFixed: { cpu: '250m' } },
      scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'runtime', operator: 'Exists', effect: 'NoSchedule' }] },
    };
    const vector = protocEncode(MESSAGE, `
      metadata { name: "kata" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
      handler: "kata"
      overhead { podFixed { key: "cpu" value { string: "250m" } } }
      scheduling { nodeSelector { key: "runtime" value: "kata" } tolerations { key: "runtime" operator: "Exists" value: "" effect: "NoSchedule" } }`);
    expect(encodeMessage(MESSAGE, rc).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(MESSAGE, vector)).to.deep.equal(rc);
  });
});
