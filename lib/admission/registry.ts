/**
 * Builds the server's admission chain: the enabled plugins (plugin-names.ts) in Kubernetes'
 * order, each made by its factory from the server's deps and its configuration, plus the steps
 * that are part of storage in kube-apiserver and always run (RBAC escalation checks).
 *
 * Plugins whose kinds this server does not serve (quotas, nodes, runtime and
 * ingress classes, ...) are known names with nothing to act on: enabling them is accepted, and
 * the start logs them once.
 */
import { AdmissionChain, AdmissionPlugin } from './interfaces';
import { PluginName, enabledPlugins } from './plugin-names';
import { PluginConfigs } from './config-file';
import { namespaceLifecycle } from './namespace-lifecycle';
import { PluginDeps, PluginFactories } from './plugin-factory';
import { errors } from '../meta/api-errors';
import { webhookPlugins } from './webhook/index';
import { podSecurityPlugins } from './pod-security/index';
import { podPlugins } from './pod/index';
import { resourcePlugins } from './resources/index';
import { imagePolicyPlugins } from './imagepolicy/index';
import { nodePlugins } from './nodes/index';
import { runtimeClassPlugins } from './runtimeclass/index';
import { eventRateLimitPlugins } from './eventratelimit/index';
import { limitRangerPlugins } from './limitranger/index';
import { resourceQuotaPlugins } from './resourcequota/index';
import { policyPlugins } from './policy/index';

const basicPlugins: PluginFactories = {
  AlwaysAdmit: () => ({ name: 'AlwaysAdmit', admit: async () => undefined }),
  AlwaysDeny: () => ({
    name: 'AlwaysDeny',
    // Kubernetes' deny plugin: Forbidden with its fixed sentence, in both phases.
    admit: async (a) => { throw errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, 'admission control is denying all modifications'); },
    validate: async (a) => { throw errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, 'admission control is denying all modifications'); },
  }),
  NamespaceLifecycle: (d) => namespaceLifecycle(d.namespaces, [d.naming.defaultNamespace, d.naming.systemNamespace, d.naming.publicNamespace]),
};

const FACTORIES: PluginFactories = {
  ...basicPlugins, ...webhookPlugins, ...podSecurityPlugins, ...podPlugins, ...resourcePlugins, ...imagePolicyPlugins, ...nodePlugins,
  ...runtimeClassPlugins,
  ...eventRateLimitPlugins,
  ...limitRangerPlugins,
  ...resourceQuotaPlugins,
  ...policyPlugins,
};

export interface BuiltAdmission {
  chain: AdmissionChain;
  /** Enabled names that have no implementation here (their kinds are not served). */
  inert: PluginName[];
}

/**
 * The chain for `--enable-admission-plugins` / `--disable-admission-plugins` and the
 * configuration file; `always` are appended after the enabled plugins (not switchable).
 */
export async function buildAdmission(deps: Omit<PluginDeps, 'pluginConfig'>, configs: PluginConfigs,
  always: AdmissionPlugin[] = []): Promise<BuiltAdmission> {
  const plugins: AdmissionPlugin[] = [];
  const inert: PluginName[] = [];
  for (const name of enabledPlugins(deps.config.enableAdmissionPlugins, deps.config.disableAdmissionPlugins)) {
    const factory = FACTORIES[name];
    if (!factory) {
      inert.push(name);
      continue;
    }
    try {
      plugins.push(await factory({ ...deps, pluginConfig: configs.get(name) }));
    } catch (err) {
      throw new Error(`couldn't init admission plugin ${JSON.stringify(name)}: ${(err as Error).message}`);
    }
  }
  // Webhooks, quota and AlwaysDeny end Kubernetes' order; the always-on storage steps go before them.
  const tail = plugins.findIndex((p) => ['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'AlwaysDeny'].includes(p.name));
  if (tail < 0) plugins.push(...always);
  else plugins.splice(tail, 0, ...always);
  if (inert.length) deps.log.info('admission plugins enabled without anything to act on here (their kinds are not served)', { plugins: inert });
  return { chain: new AdmissionChain(plugins, deps.metrics), inert };
}
