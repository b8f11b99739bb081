/**
 * Builds the `default/kubernetes` reconciler from the server's configuration and stores
 * (lib/server/server.ts calls it once listening): undefined with --endpoint-reconciler-type=none.
 * The Service itself is created only where Services are served with a service IP range
 * (`serviceClusterIp`, the first address of --service-cluster-ip-range); the Endpoints and the
 * EndpointSlice are written whatever the range.
 */
import type { ServerConfig } from '../../config';
import { Naming } from '../../naming';
import { GenericStore } from '../../registry/store';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { Storage } from '../../storage/interfaces';
import { logger } from '../../logger';
import { chooseAdvertiseAddress } from './advertise';
import { KubernetesServiceReconciler } from './lease-reconciler';

export interface KubernetesServiceDeps {
  config: ServerConfig;
  naming: Naming;
  stores: StoreIndex;
  storage: Storage;
  /** The port the server listens on (--secure-port, or the one the OS chose for 0). */
  securePort: number;
  /** The first address of the service IP range, when Services are served. */
  serviceClusterIp?: string;
}

export function startKubernetesService(d: KubernetesServiceDeps): KubernetesServiceReconciler | undefined {
  if (d.config.endpointReconcilerType === 'none') return undefined;
  const endpoints = d.stores.get(storeKey('', 'v1', 'endpoints')) as GenericStore | undefined;
  if (!endpoints || !d.securePort) return undefined;
  const { address, warning } = chooseAdvertiseAddress(d.config.advertiseAddress, d.config.bindAddress);
  if (warning) logger.warn(warning);
  const services = d.stores.get(storeKey('', 'v1', 'services')) as GenericStore | undefined;
  const reconciler = new KubernetesServiceReconciler({
    ip: address, securePort: d.securePort, storage: d.storage, prefix: d.config.etcdPrefix.replace(/\/+$/, ''),
    endpoints, endpointSlices: d.stores.get(storeKey(d.naming.group('discovery'), 'v1', 'endpointslices')) as GenericStore | undefined,
    service: services && d.serviceClusterIp ? { store: services, clusterIP: d.serviceClusterIp } : undefined,
    fieldManager: d.naming.flavor === 'kubernetes' ? 'kube-apiserver' : 'orch-apiserver',
  });
  reconciler.start();
  return reconciler;
}
