/** The admission plugins of lib/admission/pod-security, by name (listed by ../registry.ts). */
import type { PluginDeps, PluginFactories } from '../plugin-factory';
import { AdmissionPlugin } from '../interfaces';
import { storeKey } from '../../registry/store-index';
import { readPodSecurityConfig } from './config';
import { PolicyContext } from './policy-context';
import { validatePod } from './pods';
import { validateNamespace } from './namespaces';

/**
 * PodSecurity: the Pod Security Standards (privileged, baseline, restricted) enforced, audited
 * and warned per namespace labels `pod-security.<labelDomain>/{enforce,audit,warn}[-version]`,
 * over the defaults and exemptions of its PodSecurityConfiguration. Validating only; creates and
 * updates of pods and namespaces.
 */
export function podSecurity(deps: PluginDeps): AdmissionPlugin {
  const pc = new PolicyContext(readPodSecurityConfig(deps.pluginConfig), deps.naming.labelDomain);
  return {
    name: 'PodSecurity',
    resources: ['/pods', '/namespaces'],
    async validate(attrs) {
      if (attrs.resource.group !== '' || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
      if (attrs.resource.resource === 'pods') await validatePod(pc, deps.namespaces, attrs);
      else if (attrs.resource.resource === 'namespaces') {
        await validateNamespace(pc, () => deps.stores.get(storeKey('', 'v1', 'pods')), attrs);
      }
    },
  };
}

export const podSecurityPlugins: PluginFactories = {
  PodSecurity: podSecurity,
};
