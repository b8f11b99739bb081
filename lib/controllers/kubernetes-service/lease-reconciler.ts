/**
 * Keeps the `default/kubernetes` Service and its Endpoints and EndpointSlice on every replica, as
 * kube-apiserver's lease endpoint reconciler (--endpoint-reconciler-type=lease) and
 * kubernetesservice controller do; it runs on every replica, not under leader election.
 *
 * Every 10 s a replica puts its lease key `<prefix>/masterleases/<advertise address>` with an
 * etcd lease of 15 s, reads the keys of every live replica and, when the Endpoints do not list
 * exactly those addresses on the secure port, rewrites them (and the EndpointSlice made from
 * them); a replica that died stops renewing its key, which etcd drops within the TTL, and the next
 * reconcile of any replica removes it. On graceful stop a replica deletes its key and writes the
 * endpoints without itself at once. It creates the Service when it is missing and the server
 * serves Services (never updates one). Write conflicts between replicas are left to the next round.
 */
import { GenericStore } from '../../registry/store';
import { deleteObject } from '../../registry/delete';
import { ApiObject } from '../../scheme/types';
import { Storage } from '../../storage/interfaces';
import { logger } from '../../logger';
import {
  DEFAULT_NAMESPACE, KUBERNETES, endpointsCorrect, kubernetesEndpoints, kubernetesService, sliceFields,
} from './endpoints-adapter';

/** kube-apiserver's DefaultEndpointReconcilerTTL and DefaultEndpointReconcilerInterval. */
export const LEASE_TTL_SECONDS = 15;
export const RECONCILE_INTERVAL_MS = 10_000;

export interface KubernetesServiceOptions {
  /** This replica's advertise address and secure port. */
  ip: string;
  securePort: number;
  /** The raw storage and the etcd key prefix (`/registry`) of the lease keys. */
  storage: Storage;
  prefix: string;
  endpoints: GenericStore;
  /** Absent when the discovery group is switched off. */
  endpointSlices?: GenericStore;
  /** The Service to create when missing: absent when Services are not served. */
  service?: { store: GenericStore; clusterIP: string };
  /** The field manager of the writes (`kube-apiserver` in the kubernetes flavor). */
  fieldManager: string;
  leaseTtlSeconds?: number;
  intervalMs?: number;
}

const notFound = (err: unknown): boolean => (err as { code?: number }).code === 404;
const ctx = { namespace: DEFAULT_NAMESPACE };

export class KubernetesServiceReconciler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly o: KubernetesServiceOptions) {}

  private leaseKey(ip = this.o.ip): string { return `${this.o.prefix}/masterleases/${ip}`; }

  /** Reconciles now and then every interval; failures are logged and retried next round. */
  start(): void {
    const round = () => {
      if (this.stopped || this.running) return;
      this.running = this.reconcile(true).catch((err) => { logger.warn('kubernetes service: reconcile failed; will retry', { error: (err as Error).message }); })
        .finally(() => { this.running = undefined; });
    };
    round();
    this.timer = setInterval(round, this.o.intervalMs ?? RECONCILE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Graceful stop: this replica's lease key goes, and the endpoints are written without it. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    try {
      const { kv } = await this.o.storage.get(this.leaseKey());
      if (kv) await this.o.storage.delete(kv.key, kv.modRevision);
      await this.reconcile(false);
    } catch (err) {
      logger.warn('kubernetes service: could not remove this replica from the endpoints', { error: (err as Error).message });
    }
  }

  /** One round: renew the lease (`renew`), then make the objects match the live leases. */
  async reconcile(renew: boolean): Promise<void> {
    if (renew) await this.renewLease();
    const ips = await this.liveIps();
    if (renew && !ips.includes(this.o.ip)) ips.push(this.o.ip);
    ips.sort();
    await this.ensureService();
    // As kube-apiserver: never erase every endpoint (the last replica stopping leaves itself).
    if (!ips.length) return;
    const endpoints = await this.ensureEndpoints(ips);
    await this.ensureSlice(endpoints);
  }

  private async renewLease(): Promise<void> {
    const key = this.leaseKey();
    const value = Buffer.from(JSON.stringify({
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: this.o.ip }, subsets: [{ addresses: [{ ip: this.o.ip }] }],
    }));
    const ttlSeconds = this.o.leaseTtlSeconds ?? LEASE_TTL_SECONDS;
    const { kv } = await this.o.storage.get(key);
    const res = kv ? await this.o.storage.update(key, value, kv.modRevision, { ttlSeconds }) : await this.o.storage.create(key, value, { ttlSeconds });
    if (!res.ok) throw new Error(`lease ${key} changed meanwhile`);
  }

  private async liveIps(): Promise<string[]> {
    const prefix = `${this.o.prefix}/masterleases/`;
    const { kvs } = await this.o.storage.range(prefix);
    return kvs.map((kv) => kv.key.slice(prefix.length)).filter(Boolean);
  }

  private async ensureService(): Promise<void> {
    const s = this.o.service;
    if (!s) return;
    try {
      await s.store.get(DEFAULT_NAMESPACE, KUBERNETES);
    } catch (err) {
      if (!notFound(err)) throw err;
      await s.store.create(ctx, kubernetesService(s.clusterIP, this.o.securePort), { dryRun: false, fieldManager: this.o.fieldManager })
        .catch((e) => { if ((e as { code?: number }).code !== 409) throw e; });
    }
  }

  private async ensureEndpoints(ips: string[]): Promise<ApiObject> {
    const current = await this.o.endpoints.get(DEFAULT_NAMESPACE, KUBERNETES).catch((err) => { if (notFound(err)) return undefined; throw err; });
    if (current && endpointsCorrect(current, ips, this.o.securePort)) return current;
    const wanted = kubernetesEndpoints(current, ips, this.o.securePort);
    if (!current) return this.o.endpoints.create(ctx, wanted, { dryRun: false, fieldManager: this.o.fieldManager });
    return this.o.endpoints.updateWith(ctx, KUBERNETES, (cur) => kubernetesEndpoints(cur, ips, this.o.securePort), {
      dryRun: false, fieldManager: this.o.fieldManager, precondition: current.metadata?.resourceVersion,
    });
  }

  private async ensureSlice(endpoints: ApiObject): Promise<void> {
    const store = this.o.endpointSlices;
    if (!store) return;
    const { labels, fields } = sliceFields(endpoints);
    const current = await store.get(DEFAULT_NAMESPACE, KUBERNETES).catch((err) => { if (notFound(err)) return undefined; throw err; });
    const opts = { dryRun: false, fieldManager: this.o.fieldManager };
    const fresh = (): ApiObject => ({ apiVersion: `${store.def.group}/v1`, kind: 'EndpointSlice', metadata: { name: KUBERNETES, namespace: DEFAULT_NAMESPACE, labels }, ...fields });
    if (!current) { await store.create(ctx, fresh(), opts); return; }
    // A changed address type cannot be updated (immutable): the slice is made again.
    if (current.addressType !== fields.addressType) {
      await deleteObject(store, ctx, KUBERNETES, {}, opts);
      await store.create(ctx, fresh(), opts);
      return;
    }
    const same = JSON.stringify([current.endpoints, current.ports, current.metadata?.labels]) === JSON.stringify([
      (fields.endpoints as Array<Record<string, unknown>>), fields.ports ?? undefined, labels]);
    if (same) return;
    await store.updateWith(ctx, KUBERNETES, (cur) => ({ ...cur, ...fields, ports: fields.ports, metadata: { ...cur.metadata, labels } }),
      { ...opts, precondition: current.metadata?.resourceVersion });
  }
}
