/** The admission plugins of lib/admission/imagepolicy, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { KubeconfigClient, readKubeconfig } from '../../authn/kubeconfig-client';
import { parseImagePolicyConfig } from './config';
import { imagePolicyWebhook } from './image-policy-webhook';

export const imagePolicyPlugins: PluginFactories = {
  // The configuration and the backend's kubeconfig are read now: a bad one stops the start.
  ImagePolicyWebhook: (d) => {
    const config = parseImagePolicyConfig(d.pluginConfig);
    const client = new KubeconfigClient(readKubeconfig(config.kubeConfigFile, 'imagePolicy.kubeConfigFile'));
    return imagePolicyWebhook({
      client, config, apiVersion: `${d.naming.group('imagepolicy')}/v1alpha1`, domain: d.naming.domain, log: d.log,
    });
  },
};
