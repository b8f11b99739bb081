/**
 * The scheduling-related Pod plugins on hand-made requests: PodNodeSelector (namespace
 * annotation, cluster default, conflicts, whitelists) and LimitPodHardAntiAffinityTopology
 * (Priority has its own table: priority.test.ts).
 */
import { expect } from 'chai';
import { podNodeSelectorPlugin, readPodNodeSelectorConfig } from '../../../lib/admission/pod/pod-node-selector';
import { selectorToLabelsMap } from '../../../lib/admission/pod/labels-map';
import { limitPodHardAntiAffinityTopologyPlugin } from '../../../lib/admission/pod/limit-pod-hard-anti-affinity-topology';
import { flavors } from '../../../lib/naming';
import { ApiObject } from '../../../lib/scheme/types';
import { pod, podAttrs, rejection, specOf } from './pod-plugin-attrs';

describe('PodNodeSelector admission plugin', () => {
  const ns = (annotations: Record<string, string> = {}): ApiObject => ({ metadata: { name: 'team', annotations } });
  const plugin = (namespace: ApiObject | undefined, config: unknown = undefined) =>
    podNodeSelectorPlugin(flavors.orch, { get: async () => namespace }, readPodNodeSelectorConfig(config));
  const run = async (p: ReturnType<typeof plugin>, spec: Record<string, unknown> = {}) => {
    const a = podAttrs(pod(spec));
    await p.admit!(a);
    await p.validate!(a);
    return specOf(a).nodeSelector;
  };

  it("merges the namespace's annotation into the pod's nodeSelector", async () => {
    const p = plugin(ns({ 'scheduler.alpha.orch.io/node-selector': 'env=prod, tier = web' }));
    expect(await run(p, { nodeSelector: { disk: 'ssd' } })).to.deep.equal({ env: 'prod', tier: 'web', disk: 'ssd' });
  });

  it("falls back to the configuration's clusterDefaultNodeSelector; an empty annotation means none", async () => {
    const config = { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'region=west' } };
    expect(await run(plugin(ns(), config))).to.deep.equal({ region: 'west' });
    expect(await run(plugin(ns({ 'scheduler.alpha.orch.io/node-selector': '' }), config))).to.equal(undefined);
  });

  it('refuses a pod selector that contradicts the namespace, as Kubernetes words it', async () => {
    const p = plugin(ns({ 'scheduler.alpha.orch.io/node-selector': 'env=prod' }));
    const err = await rejection(() => run(p, { nodeSelector: { env: 'dev' } }));
    expect(err.code).to.equal(403);
    expect(err.message).to.equal('pods "web" is forbidden: pod node label selector conflicts with its namespace node label selector');
  });

  it("refuses a merged selector outside the namespace's whitelist from the configuration", async () => {
    const config = { podNodeSelectorPluginConfig: { team: 'env=prod,tier=web' } };
    expect(await run(plugin(ns({ 'scheduler.alpha.orch.io/node-selector': 'env=prod' }), config))).to.deep.equal({ env: 'prod' });
    const err = await rejection(() => run(plugin(ns(), config), { nodeSelector: { tier: 'db' } }));
    expect(err.message).to.equal('pods "web" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  });

  it('answers 500 for an annotation that is not a k=v list, and 404 for a missing namespace', async () => {
    const err = await rejection(() => run(plugin(ns({ 'scheduler.alpha.orch.io/node-selector': 'env in (a)' }))));
    expect(err.code).to.equal(500);
    expect(err.message).to.equal('Internal error occurred: invalid selector: [env in (a)]');
    expect((await rejection(() => run(plugin(undefined)))).code).to.equal(404);
  });

  it('leaves updates alone (create only, as Kubernetes)', async () => {
    const a = podAttrs(pod({ nodeSelector: { env: 'dev' } }), { operation: 'UPDATE', old: pod() });
    const p = plugin(ns({ 'scheduler.alpha.orch.io/node-selector': 'env=prod' }));
    await p.admit!(a);
    await p.validate!(a);
    expect(specOf(a).nodeSelector).to.deep.equal({ env: 'dev' });
  });

  it('reads selectors as Kubernetes does', () => {
    expect(selectorToLabelsMap('a=1,b=2')).to.deep.equal({ a: '1', b: '2' });
    expect(() => selectorToLabelsMap('bad key=1')).to.throw(/^key: Invalid value: "bad key": /);
    expect(() => readPodNodeSelectorConfig({ podNodeSelectorPluginConfig: { x: 1 } })).to.throw(/must map names/);
  });
});

describe('LimitPodHardAntiAffinityTopology admission plugin', () => {
  const affinity = (topologyKey: string, kind = 'requiredDuringSchedulingIgnoredDuringExecution') => ({
    affinity: { podAntiAffinity: { [kind]: [kind.startsWith('preferred') ? { weight: 1, podAffinityTerm: { topologyKey } } : { topologyKey, labelSelector: {} }] } },
  });

  it('allows the hostname key and preferred terms, refuses other required keys as Kubernetes words it', async () => {
    const p = limitPodHardAntiAffinityTopologyPlugin(flavors.orch);
    await p.validate!(podAttrs(pod(affinity('orch.io/hostname'))));
    await p.validate!(podAttrs(pod(affinity('topology.orch.io/zone', 'preferredDuringSchedulingIgnoredDuringExecution'))));
    const err = await rejection(() => p.validate!(podAttrs(pod(affinity('topology.orch.io/zone')))));
    expect(err.code).to.equal(403);
    expect(err.message).to.equal('pods "web" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.orch.io/zone but only key orch.io/hostname is allowed');
  });

  it('uses kubernetes.io/hostname in the kubernetes flavor, and a pod without a name is named as Kubernetes does', async () => {
    const p = limitPodHardAntiAffinityTopologyPlugin(flavors.kubernetes);
    await p.validate!(podAttrs(pod(affinity('kubernetes.io/hostname'))));
    const unnamed = podAttrs({ metadata: { generateName: 'w-' }, spec: affinity('zone') });
    expect((await rejection(() => p.validate!(unnamed))).message).to.match(/^pods is forbidden: affinity/);
  });
});
