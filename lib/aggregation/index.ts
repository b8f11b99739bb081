/**
 * The aggregation layer (kube-aggregator inside kube-apiserver): APIServices, the proxy to
 * extension API servers, their availability, and their discovery and OpenAPI merged into the
 * server's. One Aggregation per serving process; what writes (local APIServices, conditions)
 * runs where `primaryDuties` is set.
 */
import type { Context, Next } from 'koa';
import type { ServerConfig } from '../config';
import type { Naming } from '../naming';
import type { StoreIndex } from '../registry/store-index';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { MetricsRegistry } from '../metrics/registry';
import type { HealthChecks } from '../api/health';
import type { GenericStore } from '../registry/store';
import { storeKey } from '../registry/store-index';
import { storeLookup } from '../authn/object-lookup';
import { apiServicesStoreKey } from './api-service';
import { ApiServiceCache } from './api-service-cache';
import { BackendTransport } from './backend';
import { healthCheckFromEnv } from './backend-pool';
import type { AggregationContext } from './context';
import { aggregationProxy, apiServiceForwarder } from './proxy';
import { AvailabilityController } from './availability';
import { LocalApiServiceKeeper } from './local-api-services';
import { RemoteDiscovery } from './remote-discovery';
import { RemoteOpenApi } from './remote-openapi';

export interface AggregationDeps {
  naming: Naming;
  config: ServerConfig;
  stores: StoreIndex;
  registry: ResourceRegistry;
  metrics: MetricsRegistry;
  /** --proxy-client-cert-file / --proxy-client-key-file, loaded (lib/server/proxy-client.ts). */
  proxyClient?: { certPem: string; keyPem: string };
  /** This server's URL once it listens, and the CA of its serving certificate. */
  selfUrl: () => string;
  selfCaPem: string;
  primaryDuties: boolean;
  log: AggregationContext['log'];
  /** Gets kube-aggregator's post-start hooks as checks, each failing until its part has started. */
  health?: HealthChecks;
}

/**
 * kube-apiserver 1.32's post-start hooks of the aggregator (`/healthz`, `/livez`, `/readyz`), by
 * the step of start() after which each is done.
 */
const HOOKS = {
  informers: ['poststarthook/start-kube-aggregator-informers', 'poststarthook/apiservice-registration-controller'],
  autoregistration: ['poststarthook/kube-apiserver-autoregistration', 'autoregister-completion'],
  availability: ['poststarthook/apiservice-status-local-available-controller', 'poststarthook/apiservice-status-remote-available-controller'],
  discovery: ['poststarthook/apiservice-discovery-controller'],
  openapi: ['poststarthook/apiservice-openapi-controller', 'poststarthook/apiservice-openapiv3-controller'],
} as const;
type Step = keyof typeof HOOKS;

export class Aggregation {
  readonly context: AggregationContext;
  /** In the handler chain after authorization: proxies what an extension server serves. */
  readonly proxy: (ctx: Context, next: Next) => Promise<void>;
  readonly discovery: RemoteDiscovery;
  readonly openapi: RemoteOpenApi;
  readonly availability: AvailabilityController;
  readonly localApiServices: LocalApiServiceKeeper;
  private readonly started = new Set<Step>();

  constructor(deps: AggregationDeps) {
    for (const [step, names] of Object.entries(HOOKS) as Array<[Step, readonly string[]]>) {
      for (const name of names) {
        deps.health?.add(name, async () => {
          if (!this.started.has(step)) throw new Error('not finished');
        });
      }
    }
    const store = deps.stores.get(apiServicesStoreKey(deps.naming)) as GenericStore | undefined;
    if (!store) throw new Error('the aggregation layer needs the apiservices resource (--runtime-config switched it off)');
    const lookup = (resource: string) => {
      const s = deps.stores.get(storeKey('', 'v1', resource));
      return s ? storeLookup(s) : { get: () => undefined };
    };
    const transport = new BackendTransport({
      services: lookup('services'), endpoints: lookup('endpoints'),
      enableAggregatorRouting: deps.config.enableAggregatorRouting,
      proxyClient: deps.proxyClient, selfUrl: deps.selfUrl, selfCaPem: deps.selfCaPem,
      healthCheck: healthCheckFromEnv(process.env, (m) => deps.log.warn(m)),
    });
    this.context = {
      naming: deps.naming, config: deps.config, stores: deps.stores, registry: deps.registry, metrics: deps.metrics,
      cache: new ApiServiceCache(store), transport, primaryDuties: deps.primaryDuties, log: deps.log,
    };
    const forward = apiServiceForwarder(this.context);
    this.proxy = aggregationProxy(this.context, forward);
    this.discovery = new RemoteDiscovery(this.context);
    this.openapi = new RemoteOpenApi(this.context, forward);
    this.availability = new AvailabilityController(this.context);
    this.localApiServices = new LocalApiServiceKeeper(this.context);
  }

  /** Before serving: the cache filled; the keepers and fetchers started. */
  async start(): Promise<void> {
    await this.context.cache.start();
    this.started.add('informers');
    // A replica without the primary duties keeps no APIServices: its hooks are done at once, as
    // kube-apiserver's on a replica whose controllers find nothing to do.
    if (this.context.primaryDuties) await this.localApiServices.start();
    this.started.add('autoregistration');
    if (this.context.primaryDuties) await this.availability.start();
    this.started.add('availability');
    await this.discovery.start();
    this.started.add('discovery');
    await this.openapi.start();
    this.started.add('openapi');
  }

  async stop(): Promise<void> {
    await this.openapi.stop();
    await this.discovery.stop();
    await this.availability.stop();
    await this.localApiServices.stop();
    await this.context.cache.stop();
    this.context.transport.close();
  }
}
