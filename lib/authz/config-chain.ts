/**
 * The chain of --authorization-config (Kubernetes' pkg/kubeapiserver/authorizer/reload.go): the
 * file's authorizers in order, made from lib/authz's modes (RBAC, Node, ABAC, AlwaysAllow,
 * AlwaysDeny, and one Webhook authorizer per Webhook entry with its matchConditions), and the file
 * checked for changes every interval: a changed valid file replaces the chain's modes (requests
 * in flight keep theirs); a bad one is logged and the previous chain stays. Each reload that read a
 * changed file is counted as kube counts it:
 * apiserver_authorization_config_controller_automatic_reloads_total{status,apiserver_id_hash} and
 * ..._automatic_reload_last_timestamp_seconds{status,apiserver_id_hash}.
 */
import { createHash } from 'node:crypto';
import { PolledFile } from '../polled-file';
import os from 'node:os';
import type { MetricsRegistry } from '../metrics/registry';
import type { Naming } from '../naming';
import { alwaysAllowMode, alwaysDenyMode } from './always';
import { AuthorizationConfig, readAuthorizationConfig, parseAuthorizationConfig } from './authorization-config';
import { configWebhookAuthorizer } from './config-webhook';
import { ModeChain, NamedAuthorizer } from './mode-chain';
import type { Authorizer, RuleResolver } from './authorizer';

/** What the configured authorizers are made from (the modes that keep state are made once by build.ts). */
export interface ConfigChainDeps {
  file: string;
  reloadIntervalMs: number;
  naming: Naming;
  rbac: Authorizer & RuleResolver;
  /** The Node mode, made (and started) the first time a configuration names it. */
  node: () => NamedAuthorizer;
  /** The ABAC mode (from --authorization-policy-file), when a configuration names it. */
  abac: () => NamedAuthorizer;
  metrics?: MetricsRegistry;
  log: { info(m: string): void; error(m: string): void };
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

export class ConfiguredAuthorization {
  readonly chain: ModeChain;
  private readonly polled: PolledFile;
  private closers: Array<() => void> = [];
  private readonly reloads?: { labels(...v: string[]): { inc(): void } };
  private readonly lastReload?: { labels(...v: string[]): { set(v: number): void } };
  private readonly idHash = `sha256:${sha256(`orch-apiserver-${os.hostname()}`)}`;

  /** Reads and builds the initial chain: a bad file throws (the server does not start). */
  constructor(private readonly deps: ConfigChainDeps) {
    const { config, data } = readAuthorizationConfig(deps.file);
    this.polled = new PolledFile({
      file: deps.file,
      intervalMs: deps.reloadIntervalMs,
      apply: (text) => this.apply(text),
      unreadable: (cause) => this.failed(`error reading authorization config file ${JSON.stringify(deps.file)}: ${cause}`),
      invalid: (err) => this.failed(err.message),
    }, data);
    this.chain = new ModeChain(this.build(config));
    if (deps.metrics) {
      this.reloads = deps.metrics.counter({
        name: 'apiserver_authorization_config_controller_automatic_reloads_total', labelNames: ['status', 'apiserver_id_hash'],
        help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
      });
      this.lastReload = deps.metrics.gauge({
        name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds', labelNames: ['status', 'apiserver_id_hash'],
        help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
      });
    }
  }

  start(): void {
    this.polled.start();
  }

  stop(): void {
    this.polled.stop();
    for (const close of this.closers.splice(0)) close();
  }

  /** Checks the file once: true when a changed, valid configuration replaced the chain. */
  reload(): boolean {
    return this.polled.check();
  }

  /** Builds the chain of a changed file and puts it in effect; throws (nothing changes) when it is not valid. */
  private apply(data: string): void {
    let modes: NamedAuthorizer[];
    const before = this.closers;
    this.closers = [];
    try {
      modes = this.build(parseAuthorizationConfig(data));
    } catch (e) {
      for (const close of this.closers.splice(0)) close();
      this.closers = before;
      throw e;
    }
    this.chain.modes = modes;
    // The previous webhooks' connections close once requests that hold them are done with them.
    setTimeout(() => { for (const close of before) close(); }, 30_000).unref();
    this.record('success');
    this.deps.log.info(`reloaded authorization configuration from ${this.deps.file}`);
  }

  private failed(message: string): false {
    this.record('failure');
    this.deps.log.error(`error reloading authorization configuration from ${this.deps.file}, keeping the previous one: ${message}`);
    return false;
  }

  private record(status: 'success' | 'failure'): void {
    this.reloads?.labels(status, this.idHash).inc();
    this.lastReload?.labels(status, this.idHash).set(Date.now() / 1000);
  }

  private build(config: AuthorizationConfig): NamedAuthorizer[] {
    return config.authorizers.map((a): NamedAuthorizer => {
      switch (a.type) {
        case 'AlwaysAllow': return alwaysAllowMode;
        case 'AlwaysDeny': return alwaysDenyMode;
        case 'RBAC': return { mode: 'RBAC', authorizer: this.deps.rbac, rules: this.deps.rbac };
        case 'Node': return this.deps.node();
        case 'ABAC': return this.deps.abac();
        case 'Webhook': {
          const w = configWebhookAuthorizer(a, this.deps.naming, (m) => this.deps.log.error(m), this.deps.metrics);
          this.closers.push(() => w.close());
          return { mode: 'Webhook', name: a.name, authorizer: w, rules: w };
        }
        default: throw new Error(`authorizer type ${String(a.type)} is not served`);
      }
    });
  }
}
