/** The ResourceQuota plugin by name (listed by ../registry.ts), with its configuration read. */
import type { PluginFactories } from '../plugin-factory';
import { readQuotaConfiguration } from './config';
import { resourceQuotaPlugin } from './plugin';
import { QuotaStore } from './quota-store';

export const resourceQuotaPlugins: PluginFactories = {
  ResourceQuota: (d) => resourceQuotaPlugin(d.naming, new QuotaStore(d.stores), readQuotaConfiguration(d.pluginConfig)),
};
