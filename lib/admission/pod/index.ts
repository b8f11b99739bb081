/** The admission plugins of lib/admission/pod, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { storeKey } from '../../registry/store-index';
import { alwaysPullImagesPlugin } from './always-pull-images';
import { defaultTolerationSecondsPlugin } from './default-toleration-seconds';
import { extendedResourceTolerationPlugin } from './extended-resource-toleration';
import { limitPodHardAntiAffinityTopologyPlugin } from './limit-pod-hard-anti-affinity-topology';
import { podNodeSelectorPlugin, readPodNodeSelectorConfig } from './pod-node-selector';
import { podTolerationRestrictionPlugin } from './pod-toleration-restriction';
import { readTolerationRestrictionConfig } from './pod-toleration-restriction-config';
import { priorityPlugin } from './priority';
import { storedPriorityClasses } from './priority-classes';
import { securityContextDenyPlugin } from './security-context-deny';
import { serviceAccountPlugin } from './service-account';

export const podPlugins: PluginFactories = {
  ServiceAccount: (d) => serviceAccountPlugin(d.naming, async (namespace, name, live) => {
    const store = d.stores.get(storeKey('', 'v1', 'serviceaccounts'));
    if (!store) throw new Error('serviceaccounts are not served');
    // As Kubernetes' informer then client: any cached version first, a consistent read when missing.
    return store.get(namespace, name, live ? undefined : '0').catch((err: { code?: number }) => {
      if (err.code === 404) return undefined;
      throw err;
    });
  }),
  AlwaysPullImages: () => alwaysPullImagesPlugin(),
  DefaultTolerationSeconds: (d) => defaultTolerationSecondsPlugin(d.naming, {
    notReadySeconds: d.config.defaultNotReadyTolerationSeconds, unreachableSeconds: d.config.defaultUnreachableTolerationSeconds,
  }),
  SecurityContextDeny: () => securityContextDenyPlugin(),
  LimitPodHardAntiAffinityTopology: (d) => limitPodHardAntiAffinityTopologyPlugin(d.naming),
  PodNodeSelector: (d) => podNodeSelectorPlugin(d.naming, d.namespaces, readPodNodeSelectorConfig(d.pluginConfig)),
  PodTolerationRestriction: (d) => podTolerationRestrictionPlugin(d.naming, d.namespaces, readTolerationRestrictionConfig(d.pluginConfig)),
  ExtendedResourceToleration: (d) => extendedResourceTolerationPlugin(d.naming),
  Priority: (d) => priorityPlugin(storedPriorityClasses(d.stores, d.naming.group('scheduling')), d.naming.group('scheduling')),
};
