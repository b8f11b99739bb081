/**
 * Builds the authorization chain: from --authorization-config when given (config-chain.ts: the
 * file's authorizers, reloaded when it changes), else from --authorization-mode. Each mode lives in
 * its own file; RBAC reads a PolicyIndex kept current from the RBAC kinds' watch caches.
 */
import type { ServerConfig } from '../config';
import { Naming } from '../naming';
import { StoreIndex } from '../registry/store-index';
import { ModeChain, NamedAuthorizer } from './mode-chain';
import { alwaysAllowMode, alwaysDenyMode } from './always';
import { PolicyIndex } from './rbac/policy-index';
import { PolicyFeeds } from './rbac/policy-feeds';
import { RbacAuthorizer } from './rbac/rbac-authorizer';
import { nodeMode } from './node/node-mode';
import { webhookAuthorizer } from './webhook-authorizer';
import { AbacAuthorizer } from './abac-authorizer';
import { readPolicyFile } from './abac-policy';
import { ConfiguredAuthorization } from './config-chain';
import type { MetricsRegistry } from '../metrics/registry';

export interface Authorization {
  /** What the handler chain, impersonation and the access reviews ask. */
  chain: ModeChain;
  /** The RBAC mode's policy (also read by escalation checks), when RBAC is in the chain or not. */
  rbac: RbacAuthorizer;
  /** Fills the in-memory policy (resolves when it is complete) and starts the modes' own work. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface AuthorizationDeps {
  config: ServerConfig;
  naming: Naming;
  stores: StoreIndex;
  warn(message: string): void;
  /** Where --authorization-config's reload and match-condition metrics go. */
  metrics?: MetricsRegistry;
}

export function buildAuthorization(deps: AuthorizationDeps): Authorization {
  const { config, naming, stores } = deps;
  const rbacGroup = naming.group('rbac.authorization');
  // The index is kept even without the RBAC mode: escalation checks of the RBAC kinds read it.
  const index = new PolicyIndex(rbacGroup);
  const rbac = new RbacAuthorizer(index);
  const feeds = new PolicyFeeds(stores, rbacGroup, index);
  const starts: Array<() => Promise<void>> = [() => feeds.start()];
  const stops: Array<() => Promise<void>> = [() => feeds.stop()];
  if (config.authorizationConfigFile) {
    const running = { value: false };
    const configured = configuredAuthorization(deps, rbac, starts, stops, running);
    return {
      chain: configured.chain, rbac,
      start: async () => { for (const s of starts) await s(); running.value = true; configured.start(); },
      stop: async () => { configured.stop(); for (const s of stops) await s(); },
    };
  }
  const modes: NamedAuthorizer[] = config.authorizationMode.map((mode): NamedAuthorizer => {
    switch (mode) {
      case 'AlwaysAllow': return alwaysAllowMode;
      case 'AlwaysDeny': return alwaysDenyMode;
      case 'RBAC': return { mode, authorizer: rbac, rules: rbac };
      case 'Node': {
        const node = nodeMode(stores, naming);
        starts.push(() => node.start());
        stops.push(() => node.stop());
        return node.named;
      }
      case 'Webhook': {
        const webhook = webhookAuthorizer(config, naming, deps.warn);
        stops.push(async () => webhook.close());
        return { mode, authorizer: webhook, rules: webhook };
      }
      case 'ABAC': {
        const abac = new AbacAuthorizer(readPolicyFile(config.authorizationPolicyFile, deps.warn));
        return { mode, authorizer: abac, rules: abac };
      }
      default: throw new Error(`--authorization-mode ${mode} is not served yet`);
    }
  });
  return {
    chain: new ModeChain(modes), rbac,
    start: async () => { for (const s of starts) await s(); },
    stop: async () => { for (const s of stops) await s(); },
  };
}

/** The chain of --authorization-config; the Node and ABAC modes are made once, when a configuration first names them. */
function configuredAuthorization(deps: AuthorizationDeps, rbac: RbacAuthorizer,
  starts: Array<() => Promise<void>>, stops: Array<() => Promise<void>>, running: { value: boolean }): ConfiguredAuthorization {
  const { config, naming, stores } = deps;
  let node: NamedAuthorizer | undefined;
  let abac: NamedAuthorizer | undefined;
  return new ConfiguredAuthorization({
    file: config.authorizationConfigFile, reloadIntervalMs: config.authorizationConfigReloadIntervalMs, naming, rbac, metrics: deps.metrics,
    log: { info: deps.warn, error: deps.warn },
    node: () => {
      if (!node) {
        const made = nodeMode(stores, naming);
        node = made.named;
        stops.push(() => made.stop());
        if (running.value) void made.start().catch((e: Error) => deps.warn(`Node authorizer: ${e.message}`));
        else starts.push(() => made.start());
      }
      return node;
    },
    abac: () => {
      if (!abac) {
        const a = new AbacAuthorizer(readPolicyFile(config.authorizationPolicyFile, deps.warn));
        abac = { mode: 'ABAC', authorizer: a, rules: a };
      }
      return abac;
    },
  });
}
