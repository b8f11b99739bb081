/**
 * API priority and fairness as the server assembles it: the dispatcher at the server's
 * concurrency limit, its configuration followed from the FlowSchema and PriorityLevelConfiguration
 * stores (bootstrap until they hold objects), the metrics, and the filter for the handler chain.
 */
import type { Context, Next } from 'koa';
import type { Naming } from '../naming';
import type { RequestInfo } from '../api/request-info';
import type { TerminationMetrics } from '../api/metrics/termination-metrics';
import type { MetricsRegistry } from '../metrics/registry';
import { StoreIndex, storeKey } from '../registry/store-index';
import { bootstrapConfiguration } from './bootstrap';
import { ConfigSource } from './config-source';
import { Dispatcher } from './dispatcher';
import { priorityAndFairness } from './filter';
import { FlowControlMetrics } from './metrics';
import type { Counts } from './seats';

/** kube's hard limit on a request's wait in its queue. */
const MAX_WAIT_MS = 60_000;

export interface FlowControlOptions {
  stores: StoreIndex;
  naming: Naming;
  metrics: MetricsRegistry;
  /** --max-requests-inflight + --max-mutating-requests-inflight (this worker's share). */
  serverConcurrencyLimit: number;
  /** --request-timeout: a request waits at most a quarter of it (at most a minute). */
  requestTimeoutMs: number;
  isLongRunning(info: RequestInfo): boolean;
  isHealthProbe(info: RequestInfo): boolean;
}

export interface FlowControl {
  readonly dispatcher: Dispatcher;
  middleware(terminations?: TerminationMetrics): (ctx: Context, next: Next) => Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function buildFlowControl(opts: FlowControlOptions): FlowControl {
  const metrics = opts.metrics.enabled ? new FlowControlMetrics(opts.metrics) : undefined;
  const dispatcher = new Dispatcher({ serverConcurrencyLimit: opts.serverConcurrencyLimit, metrics });
  const group = opts.naming.group('flowcontrol.apiserver');
  const source = new ConfigSource(dispatcher, bootstrapConfiguration(), {
    flowSchemas: opts.stores.get(storeKey(group, 'v1', 'flowschemas')),
    priorityLevels: opts.stores.get(storeKey(group, 'v1', 'prioritylevelconfigurations')),
  });
  const counts = (info: RequestInfo): Counts => {
    const cache = opts.stores.get(storeKey(info.group, info.version, info.resource))?.deps.cache;
    return {
      objects: () => (cache ? (cache.ready ? cache.size : null) : undefined),
      watchers: () => cache?.watcherCount ?? 0,
    };
  };
  // The orch flavor serves coordination.orch.io where the bootstrap objects say coordination.k8s.io.
  const suffix = `.${opts.naming.domain}`;
  const groupAlias = opts.naming.domain === 'k8s.io' ? undefined
    : (g: string) => (g.endsWith(suffix) ? `${g.slice(0, -suffix.length)}.k8s.io` : undefined);
  const waitLimitMs = Math.min(MAX_WAIT_MS, opts.requestTimeoutMs > 0 ? opts.requestTimeoutMs / 4 : MAX_WAIT_MS / 4);
  return {
    dispatcher,
    middleware: (terminations) => priorityAndFairness({ dispatcher, groupAlias, isLongRunning: opts.isLongRunning, isHealthProbe: opts.isHealthProbe, counts, waitLimitMs, metrics, terminations }),
    async start() {
      await source.start();
      dispatcher.start();
    },
    async stop() {
      dispatcher.stop();
      await source.stop();
    },
  };
}
