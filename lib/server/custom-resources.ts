/**
 * Starts what serves custom resources in this replica: the CRD status controllers (naming,
 * establishing) and the CRD serving controller, wired to the server's registry, storage,
 * admission and metrics. Every replica runs them, as every kube-apiserver runs its apiextensions
 * controllers: they are part of serving, not of the leader-elected controller manager.
 */
import { CustomHandlers } from '../api/resource-handler';
import { storeKey } from '../registry/store-index';
import { AdmissionChain } from '../admission/interfaces';
import { startCrdControllers, CrdControllers } from '../apiextensions/controllers/crd-controllers';
import { CrdServingController } from '../apiextensions/serving/crd-serving-controller';
import { CrServingFactory } from '../apiextensions/serving/types';
import { conversionWebhookClients } from '../apiextensions/conversion/converter';
import { WebhookClients } from '../admission/webhook/webhook-client';
import { EtcdMetrics } from '../metrics/etcd-metrics';
import { StorageObjectsMetric } from '../metrics/storage-metrics';
import { Naming } from '../naming';
import { ResourceRegistry } from '../registry/resource-registry';
import { GenericStore } from '../registry/store';
import { crdSpec, crdStatus, crdVersions } from '../registry/apiextensions/custom-resource-definitions/view';
import { ApiObject } from '../scheme/types';
import { Cacher } from '../storage/cacher/cacher';
import { FreshnessProbe } from '../storage/cacher/freshness';
import { Storage } from '../storage/interfaces';
import type { ServerConfig } from '../config';
import { logger } from '../logger';

export interface CustomResourceServing {
  /** Absent when the CRD kind itself is not served (--runtime-config). */
  serving?: CrdServingController;
  controllers?: CrdControllers;
  /** The clients of CRD conversion webhooks (tests set a service resolver on them). */
  conversionClients?: WebhookClients;
  stop(): Promise<void>;
}

export interface CustomResourceDeps {
  config: ServerConfig;
  naming: Naming;
  registry: ResourceRegistry;
  storage: Storage;
  etcdMetrics: EtcdMetrics;
  storageObjects: StorageObjectsMetric;
  admission: AdmissionChain;
  customHandlers: CustomHandlers;
  /** Confirms watch cache freshness (the server's etcd probe); absent without watch caches. */
  probe?: FreshnessProbe;
  factory: CrServingFactory;
  /** A resource's storage (measured, encrypted at rest when configured): the server's storageForResource. */
  storageForResource: (resource: string) => Storage;
}

/** The store serving a CRD's objects: any served version's (they share keys and cache). */
function customStoreOf(registry: ResourceRegistry, crd: ApiObject): GenericStore | undefined {
  const spec = crdSpec(crd);
  const plural = crdStatus(crd).acceptedNames?.plural ?? '';
  for (const v of crdVersions(spec)) {
    const store = registry.customEntry(storeKey(spec.group ?? '', v.name ?? '', plural))?.store;
    if (store) return store;
  }
  return undefined;
}

export async function startCustomResourceServing(deps: CustomResourceDeps): Promise<CustomResourceServing> {
  const { config, naming, registry } = deps;
  const crds = registry.stores.get(storeKey(naming.group('apiextensions'), 'v1', 'customresourcedefinitions'));
  if (!crds) return { stop: async () => undefined };
  const prefix = config.etcdPrefix.replace(/\/+$/, '');
  const controllers = await startCrdControllers({ crds, builtins: () => registry.builtinResources(), naming, customStore: (crd) => customStoreOf(registry, crd) });
  // Conversion webhooks get clients of their own (no admission kubeconfig credentials); closed on stop.
  const conversionClients = conversionWebhookClients();
  const serving = new CrdServingController({
    registry, crds, naming, conversionClients, factory: deps.factory, customHandlers: deps.customHandlers,
    storeDeps: (resource, keySegment) => ({
      storage: deps.storageForResource(resource), prefix, keyPrefix: keySegment, admission: deps.admission,
      continueTtlMs: config.continueTokenTtlMs, storageMediaType: config.storageMediaType,
    }),
    startCache: async (storage, collectionPrefix) => {
      if (!config.watchCache) return undefined;
      const cacher = new Cacher(storage, collectionPrefix, { probe: deps.probe, log: logger });
      await cacher.start();
      return cacher;
    },
    countObjects: (resource, store: GenericStore) => {
      if (store.deps.cache) deps.storageObjects.fromCache(resource, store.deps.cache);
      else deps.storageObjects.poll(resource, async () => (await store.storage.range(store.collectionPrefix(), { countOnly: true })).count, config.etcdCountMetricPollPeriodMs);
    },
    stopCounting: (resource) => {
      deps.storageObjects.remove(resource);
      deps.etcdMetrics.remove(resource);
    },
  });
  await serving.start();
  return {
    serving, controllers, conversionClients,
    stop: async () => {
      await controllers.stop();
      await serving.stop();
      conversionClients.close();
    },
  };
}
