/**
 * The toleration plugins on hand-made requests: DefaultTolerationSeconds (its two flags, an
 * existing toleration of the taint or of every taint), ExtendedResourceToleration (extended
 * resources only, sorted, not duplicated), PodTolerationRestriction (namespace and cluster
 * defaults merged, memory-pressure for pods with resources, whitelists and their refusal) and
 * the toleration arithmetic they share.
 */
import { expect } from 'chai';
import { defaultTolerationSecondsPlugin } from '../../../lib/admission/pod/default-toleration-seconds';
import { extendedResourceTolerationPlugin, isExtendedResourceName } from '../../../lib/admission/pod/extended-resource-toleration';
import { podTolerationRestrictionPlugin } from '../../../lib/admission/pod/pod-toleration-restriction';
import { readTolerationRestrictionConfig } from '../../../lib/admission/pod/pod-toleration-restriction-config';
import { isSuperset, mergeTolerations, verifyAgainstWhitelist } from '../../../lib/admission/pod/tolerations';
import { flavors } from '../../../lib/naming';
import { ApiObject } from '../../../lib/scheme/types';
import { pod, podAttrs, rejection, specOf } from './pod-plugin-attrs';

describe('DefaultTolerationSeconds admission plugin', () => {
  const p = defaultTolerationSecondsPlugin(flavors.orch, { notReadySeconds: 300, unreachableSeconds: 120 });

  it('adds the not-ready and unreachable NoExecute tolerations with the configured seconds', async () => {
    const a = podAttrs(pod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] }));
    await p.admit!(a);
    expect(specOf(a).tolerations).to.deep.equal([
      { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' },
      { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
    ]);
  });

  it('uses node.kubernetes.io in the kubernetes flavor', async () => {
    const a = podAttrs(pod());
    await defaultTolerationSecondsPlugin(flavors.kubernetes, { notReadySeconds: 300, unreachableSeconds: 300 }).admit!(a);
    expect(specOf(a).tolerations.map((t: { key: string }) => t.key)).to.deep.equal(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
  });

  it('keeps a toleration the pod has for the taint (any effect or NoExecute), and adds nothing when it tolerates every key', async () => {
    const own = { key: 'node.orch.io/unreachable', operator: 'Exists', tolerationSeconds: 5 };
    const a = podAttrs(pod({ tolerations: [own] }));
    await p.admit!(a);
    expect(specOf(a).tolerations).to.deep.equal([own, { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]);
    const all = podAttrs(pod({ tolerations: [{ operator: 'Exists' }] }));
    await p.admit!(all);
    expect(specOf(all).tolerations).to.deep.equal([{ operator: 'Exists' }]);
  });

  it('does not count a NoSchedule toleration of the taint', async () => {
    const a = podAttrs(pod({ tolerations: [{ key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }] }));
    await p.admit!(a);
    expect(specOf(a).tolerations).to.have.length(3);
  });

  it('leaves status updates alone', async () => {
    const a = podAttrs(pod(), { operation: 'UPDATE', subresource: 'status', old: pod() });
    await p.admit!(a);
    expect(specOf(a).tolerations).to.equal(undefined);
  });
});

describe('ExtendedResourceToleration admission plugin', () => {
  const p = extendedResourceTolerationPlugin(flavors.orch);

  it('tells extended resources from native ones', () => {
    expect(isExtendedResourceName('example.com/gpu', flavors.orch)).to.equal(true);
    for (const native of ['cpu', 'memory', 'orch.io/anything', 'requests.example.com/gpu']) {
      expect(isExtendedResourceName(native, flavors.orch), native).to.equal(false);
    }
    expect(isExtendedResourceName('kubernetes.io/x', flavors.kubernetes)).to.equal(false);
  });

  it('adds one Exists NoSchedule toleration per extended resource requested, in name order, once', async () => {
    const a = podAttrs(pod({
      containers: [{ name: 'a', image: 'x', resources: { requests: { cpu: '1', 'vendor.io/fpga': '1', 'example.com/gpu': '2' } } }],
      initContainers: [{ name: 'i', image: 'x', resources: { requests: { 'example.com/gpu': '1' } } }],
      tolerations: [{ key: 'vendor.io/fpga', operator: 'Exists', effect: 'NoSchedule' }],
    }));
    await p.admit!(a);
    expect(specOf(a).tolerations).to.deep.equal([
      { key: 'vendor.io/fpga', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });

  it('ignores limits-only and native resources', async () => {
    const a = podAttrs(pod({ containers: [{ name: 'a', image: 'x', resources: { limits: { 'example.com/gpu': '1' }, requests: { memory: '1Gi' } } }] }));
    await p.admit!(a);
    expect(specOf(a).tolerations).to.equal(undefined);
  });
});

describe('PodTolerationRestriction admission plugin', () => {
  const ns = (annotations: Record<string, string> = {}): ApiObject => ({ metadata: { name: 'team', annotations } });
  const lookup = (namespace?: ApiObject) => ({ get: async () => namespace });
  const plugin = (namespace: ApiObject | undefined, config: unknown = undefined, naming = flavors.orch) =>
    podTolerationRestrictionPlugin(naming, lookup(namespace), readTolerationRestrictionConfig(config));
  const config = (extra: Record<string, unknown>) => ({ apiVersion: 'podtolerationrestriction.admission.orch.io/v1alpha1', kind: 'Configuration', ...extra });
  const dedicated = { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' };

  it("merges the namespace's default tolerations into a new pod", async () => {
    const p = plugin(ns({ 'scheduler.alpha.orch.io/defaultTolerations': JSON.stringify([dedicated]) }));
    const a = podAttrs(pod());
    await p.admit!(a);
    await p.validate!(a);
    expect(specOf(a).tolerations).to.deep.equal([dedicated]);
  });

  it("uses the configuration's default when the namespace has no annotation, and none when it is empty", async () => {
    const fromConfig = podAttrs(pod());
    await plugin(ns(), config({ default: [dedicated] })).admit!(fromConfig);
    expect(specOf(fromConfig).tolerations).to.deep.equal([dedicated]);
    const empty = podAttrs(pod());
    await plugin(ns({ 'scheduler.alpha.orch.io/defaultTolerations': '' }), config({ default: [dedicated] })).admit!(empty);
    expect(specOf(empty).tolerations).to.equal(undefined);
  });

  it('gives a pod with cpu or memory resources the memory-pressure toleration, also on update', async () => {
    const withResources = pod({ containers: [{ name: 'a', image: 'x', resources: { requests: { memory: '64Mi' } } }] });
    const a = podAttrs(withResources, { operation: 'UPDATE', old: withResources });
    await plugin(ns({ 'scheduler.alpha.orch.io/defaultTolerations': JSON.stringify([dedicated]) })).admit!(a);
    expect(specOf(a).tolerations).to.deep.equal([{ key: 'node.orch.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }]);
  });

  it('keeps one toleration where the merged ones overlap', async () => {
    const a = podAttrs(pod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] }));
    await plugin(ns({ 'scheduler.alpha.orch.io/defaultTolerations': JSON.stringify([dedicated]) })).admit!(a);
    expect(specOf(a).tolerations).to.deep.equal([{ key: 'dedicated', operator: 'Exists' }]);
  });

  it("refuses tolerations outside the namespace's whitelist, else the cluster's, as Kubernetes words it", async () => {
    const whitelist = JSON.stringify([{ key: 'dedicated', operator: 'Exists' }]);
    const nsPlugin = plugin(ns({ 'scheduler.alpha.orch.io/tolerationsWhitelist': whitelist }));
    await nsPlugin.validate!(podAttrs(pod({ tolerations: [dedicated] })));
    const err = await rejection(() => nsPlugin.validate!(podAttrs(pod({ tolerations: [{ key: 'gpu', operator: 'Exists' }] }))));
    expect(err.code).to.equal(403);
    expect(err.message).to.equal('pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
    const cluster = plugin(ns(), config({ whitelist: [dedicated] }));
    expect((await rejection(() => cluster.validate!(podAttrs(pod({ tolerations: [{ key: 'gpu', operator: 'Exists' }] }))))).message)
      .to.equal('pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist');
  });

  it('refuses a pod in a namespace that does not exist, and answers 500 for an annotation that is not JSON', async () => {
    expect((await rejection(() => plugin(undefined).admit!(podAttrs(pod())))).code).to.equal(404);
    const err = await rejection(() => plugin(ns({ 'scheduler.alpha.orch.io/defaultTolerations': '[{' })).admit!(podAttrs(pod())));
    expect(err.code).to.equal(500);
  });

  it('refuses a configuration of another kind or with bad tolerations (the start stops)', () => {
    expect(() => readTolerationRestrictionConfig({ kind: 'Other', apiVersion: 'x/v1' })).to.throw(/expected kind Configuration/);
    expect(() => readTolerationRestrictionConfig(config({ default: [{ key: 'a', operator: 'Sometimes' }] })))
      .to.throw('default[0].operator: Unsupported value: "Sometimes": supported values: "Equal", "Exists"');
    expect(readTolerationRestrictionConfig({ apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration', whitelist: [dedicated] }).whitelist)
      .to.deep.equal([dedicated]);
  });
});

describe('toleration arithmetic', () => {
  it('isSuperset: empty key with Exists covers all, an empty effect every effect, NoExecute seconds bound the covered', () => {
    expect(isSuperset({ operator: 'Exists' }, { key: 'a', operator: 'Equal', value: 'v' })).to.equal(true);
    expect(isSuperset({ key: 'a', operator: 'Exists' }, { key: 'a', operator: 'Equal', value: 'v', effect: 'NoSchedule' })).to.equal(true);
    expect(isSuperset({ key: 'a', operator: 'Equal', value: 'v' }, { key: 'a', operator: 'Exists' })).to.equal(false);
    expect(isSuperset({ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, { key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 })).to.equal(false);
    expect(isSuperset({ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }, { key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 })).to.equal(true);
  });

  it('mergeTolerations keeps the first of equal ones and drops covered ones; verifyAgainstWhitelist allows all with an empty list', () => {
    const a = { key: 'a', operator: 'Equal', value: 'v' };
    expect(mergeTolerations([a], [{ ...a }, { key: 'a', operator: 'Exists' }])).to.deep.equal([{ key: 'a', operator: 'Exists' }]);
    expect(mergeTolerations([a], [{ ...a }])).to.deep.equal([a]);
    expect(verifyAgainstWhitelist([a], [])).to.equal(true);
    expect(verifyAgainstWhitelist([a], [{ key: 'b', operator: 'Exists' }])).to.equal(false);
  });
});
