/**
 * What every part of the aggregation layer is given: the server's configuration, stores and
 * served set, the APIService cache and the backend transport (one of each per process).
 */
import type { ServerConfig } from '../config';
import type { Naming } from '../naming';
import type { StoreIndex } from '../registry/store-index';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { MetricsRegistry } from '../metrics/registry';
import type { ApiServiceCache } from './api-service-cache';
import type { BackendTransport } from './backend';

export interface AggregationContext {
  naming: Naming;
  config: ServerConfig;
  stores: StoreIndex;
  /** What this server serves itself (built-in and custom resources; changes with CRDs). */
  registry: ResourceRegistry;
  metrics: MetricsRegistry;
  cache: ApiServiceCache;
  transport: BackendTransport;
  /** This process keeps what is written once per server (local APIServices, Available conditions). */
  primaryDuties: boolean;
  log: { info(m: string, meta?: object): void; warn(m: string, meta?: object): void; error(m: string, meta?: object): void; debug(m: string, meta?: object): void };
}
