/**
 * Protobuf of scheduling/v1 PriorityClass: every schema field survives JSON -> protobuf -> JSON,
 * a value of 0 (no omitempty in Go) comes back as 0, and the bytes equal a protoc --encode vector
 * of what Go writes for a created class (value and globalDefault written even when zero).
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { priorityClassSchema } from '../../../../lib/registry/scheduling/priority-classes/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const MESSAGE = 'k8s.io.api.scheduling.v1.PriorityClass';
const metadata = { name: 'high', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', generation: 1 };

describe('PriorityClass protobuf', () => {
  it('is a protobuf kind with its list, in both flavors', () => {
    for (const group of ['scheduling.k8s.io', 'scheduling.orch.io']) {
      expect(hasProtobuf(`${group}/v1`, 'PriorityClass')).to.equal(true);
      expect(hasProtobuf(`${group}/v1`, 'PriorityClassList')).to.equal(true);
    }
  });

  it('round trips every field the schema serves, and a zero value', () => {
    const full: ApiObject = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata, value: 1000, globalDefault: true, description: 'd', preemptionPolicy: 'Never' };
    expect(Object.keys(full)).to.have.members(Object.keys(priorityClassSchema.properties!));
    expect(decodeProtobuf(encodeProtobuf(full))).to.deep.equal(full);
    const zero: ApiObject = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata, value: 0, preemptionPolicy: 'PreemptLowerPriority' };
    expect(decodeProtobuf(encodeProtobuf(zero))).to.deep.equal(zero);
  });

  it('writes the bytes Go writes (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const pc = { metadata: { name: 'high' }, value: 1000, description: 'important', preemptionPolicy: 'PreemptLowerPriority' };
    const vector = protocEncode(MESSAGE, `
      metadata { name: "high" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
      value: 1000 globalDefault: false description: "important" preemptionPolicy: "PreemptLowerPriority"`);
    expect(encodeMessage(MESSAGE, pc).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(MESSAGE, vector)).to.deep.equal(pc);
  });
});
