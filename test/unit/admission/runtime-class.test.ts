/**
 * The RuntimeClass admission plugin on hand-made pod creates over an in-memory set of
 * RuntimeClasses: a table of pods and classes to the overhead, node selector and tolerations the
 * pod ends with, or Kubernetes' refusal (unknown class, overhead mismatches, selector conflicts).
 */
import { expect } from 'chai';
import { runtimeClassPlugin } from '../../../lib/admission/runtimeclass/runtime-class';
import { ApiObject } from '../../../lib/scheme/types';
import { pod, podAttrs, rejection, specOf } from './pod-plugin-attrs';

const klass = (name: string, fields: Record<string, unknown>): ApiObject => ({ metadata: { name }, handler: name, ...fields });
const CLASSES = [
  klass('plain', {}),
  klass('kata', { overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: {
    nodeSelector: { runtime: 'kata' },
    tolerations: [{ key: 'runtime', operator: 'Exists', effect: 'NoSchedule' }, { key: 'kata-only', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }],
  } }),
  klass('tolerant', { scheduling: { tolerations: [{ operator: 'Exists' }] } }),
];
const plugin = () => runtimeClassPlugin({ get: async (name) => CLASSES.find((c) => c.metadata?.name === name) });

/** Both phases, as the chain runs them. */
async function admitted(spec: Record<string, unknown>): Promise<Record<string, any>> {
  const p = plugin();
  const a = podAttrs(pod(spec));
  await p.admit!(a);
  await p.validate!(a);
  return specOf(a);
}

async function refusal(spec: Record<string, unknown>): Promise<string> {
  const err = await rejection(() => admitted(spec));
  expect(err.code).to.equal(403);
  return err.message;
}

describe('RuntimeClass admission plugin', () => {
  it('leaves a pod without runtimeClassName alone', async () => {
    const spec = await admitted({ nodeSelector: { disk: 'ssd' } });
    expect(spec.nodeSelector).to.deep.equal({ disk: 'ssd' });
    expect(spec).to.not.have.any.keys('overhead', 'tolerations');
  });

  it('refuses an unknown class', async () => {
    expect(await refusal({ runtimeClassName: 'gvisor' })).to.equal('pods "web" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  });

  it("sets the class's overhead and merges its node selector and tolerations", async () => {
    const spec = await admitted({
      runtimeClassName: 'kata', nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'runtime', operator: 'Exists', effect: 'NoSchedule' }, { key: 'mine', operator: 'Exists' }],
    });
    expect(spec.overhead).to.deep.equal({ cpu: '250m', memory: '120Mi' });
    expect(spec.nodeSelector).to.deep.equal({ disk: 'ssd', runtime: 'kata' });
    // The class's copy of an existing toleration is dropped; its other one is appended.
    expect(spec.tolerations).to.deep.equal([
      { key: 'runtime', operator: 'Exists', effect: 'NoSchedule' }, { key: 'mine', operator: 'Exists' },
      { key: 'kata-only', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }]);
  });

  it("takes the class's selector when the pod has none, and keeps a wider toleration only", async () => {
    const spec = await admitted({ runtimeClassName: 'kata' });
    expect(spec.nodeSelector).to.deep.equal({ runtime: 'kata' });
    const wide = await admitted({ runtimeClassName: 'tolerant', tolerations: [{ key: 'a', operator: 'Exists' }] });
    expect(wide.tolerations).to.deep.equal([{ operator: 'Exists' }]);
  });

  it('accepts an overhead the pod states that equals the class\'s as quantities', async () => {
    const spec = await admitted({ runtimeClassName: 'kata', overhead: { cpu: '0.25', memory: '120Mi' } });
    expect(spec.overhead).to.deep.equal({ cpu: '250m', memory: '120Mi' });
  });

  it('refuses a node selector conflict, naming both values', async () => {
    expect(await refusal({ runtimeClassName: 'kata', nodeSelector: { runtime: 'runc' } }))
      .to.equal('pods "web" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc');
  });

  const overheadRefusals: Array<[string, Record<string, unknown>, string]> = [
    ['an overhead other than the class\'s', { runtimeClassName: 'kata', overhead: { cpu: '1' } }, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"],
    ['an overhead without a class', { overhead: { cpu: '1' } }, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
    ['an overhead whose class defines none', { runtimeClassName: 'plain', overhead: { cpu: '1' } }, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
  ];
  for (const [what, spec, message] of overheadRefusals) {
    it(`refuses ${what}`, async () => {
      expect(await refusal(spec)).to.equal(`pods "web" is forbidden: ${message}`);
    });
  }

  it('checks the overhead again in the validating phase (a later mutation changed it)', async () => {
    const p = plugin();
    const a = podAttrs(pod({ runtimeClassName: 'kata' }));
    await p.admit!(a);
    specOf(a).overhead = { cpu: '1' };
    const err = await rejection(() => p.validate!(a));
    expect(err.message).to.equal('pods "web" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead');
  });

  it('acts on creates only', async () => {
    const p = plugin();
    const a = podAttrs(pod({ runtimeClassName: 'gvisor', overhead: { cpu: '1' } }), { operation: 'UPDATE', old: pod() });
    await p.admit!(a);
    await p.validate!(a);
    expect(specOf(a).overhead).to.deep.equal({ cpu: '1' });
  });
});
