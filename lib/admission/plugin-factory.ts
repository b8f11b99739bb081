/**
 * What an admission plugin is made from, and the factory that makes it. The plugin folders
 * export their factories by name; registry.ts, above them, lists every folder's factories and
 * builds the chain. Kept apart from registry.ts so that plugins never import the registry.
 */
import type { ServedSet } from '../registry/resource-registry';
import type { Logger } from 'winston';
import { AdmissionPlugin } from './interfaces';
import { PluginName } from './plugin-names';
import { AdmissionMetrics } from './metrics';
import { NamespaceLookup } from './namespace-lifecycle';
import { Naming } from '../naming';
import type { ServerConfig } from '../config';
import { StoreIndex } from '../registry/store-index';
import type { Authorization } from '../authz/build';

/** What a plugin is made from. */
export interface PluginDeps {
  naming: Naming;
  config: ServerConfig;
  /**
   * The server's stores by group/version/resource. Filled before start() is called (not yet
   * while factories run); their watch caches (`store.deps.cache`) run from start() on.
   */
  stores: StoreIndex;
  /** Follows resources added and removed at runtime (custom resources); absent: `stores` is fixed. */
  served?: ServedSet;
  log: Logger;
  /** Namespaces, from the watch cache first (namespace-lifecycle.ts). */
  namespaces: NamespaceLookup;
  /** The server's authorization (rights checks such as `approve` on signers); set before serving. */
  authorization: { authorization?: Authorization };
  metrics: AdmissionMetrics;
  /** This plugin's section of --admission-control-config-file (a parsed object), if any. */
  pluginConfig: unknown;
  /** The configuration file (for messages), empty when none. */
  configFile: string;
  /** PEM of the server's CA. */
  caPem: string;
}

export type PluginFactory = (deps: PluginDeps) => AdmissionPlugin | Promise<AdmissionPlugin>;
export type PluginFactories = Partial<Record<PluginName, PluginFactory>>;
