/**
 * The resourcequota controller (Kubernetes' quota controller in kube-controller-manager): keeps
 * every ResourceQuota's status (hard copied from the spec, used recalculated from the objects,
 * usage.ts) and writes it through `/status` with a compare on the quota's resourceVersion.
 *
 * A quota is recalculated at once when it is created or its spec.hard no longer equals
 * status.hard; all quotas every `resyncMs` (kube's --resource-quota-sync-period, 5 minutes),
 * which also corrects a charge the admission plugin made for an object whose write then failed;
 * and the quotas of a namespace when an object they may count there is deleted, or a pod, service
 * or claim of it changes its usage (replenishment; adds are charged by the admission plugin). The objects are followed through the watch caches
 * (ResourceFeed) of pods, services and claims, and of every other resource a quota counts as its
 * quotas name it (custom resources included). A recalculation never counts a charge away: it
 * waits for this server's charges whose objects are still being written, lists consistently, and
 * writes only if the quota is unchanged since it was read (../../admission/resourcequota/in-flight.ts).
 */
import { ApiObject } from '../../scheme/types';
import { GenericStore } from '../../registry/store';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { ServedSet } from '../../registry/resource-registry';
import { ResourceFeed } from '../../registry/resource-feed';
import { Naming } from '../../naming';
import { logger } from '../../logger';
import { EvaluatorRegistry } from '../../admission/resourcequota/evaluators/index';
import { equals, parseResourceList, toJson } from '../../admission/resourcequota/resource-list';
import { inFlightCharges } from '../../admission/resourcequota/in-flight';
import { quotaTestHooks } from '../../admission/resourcequota/test-hooks';
import { WorkQueue } from '../work-queue';
import { chargedResources, computeStatus } from './usage';

const LABEL = 'resourcequota controller';
const ALWAYS_FOLLOWED = ['pods', 'services', 'persistentvolumeclaims'];

export interface ResourceQuotaControllerOptions {
  /** How often every quota is recalculated; default 5 minutes. */
  resyncMs?: number;
}

const keyOf = (o: ApiObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export class ResourceQuotaController {
  private readonly queue: WorkQueue;
  private readonly evaluators: EvaluatorRegistry;
  private readonly storageGroup: string;
  /** Quota keys by namespace. */
  private readonly quotasByNamespace = new Map<string, Set<string>>();
  /** Feeds by group/resource. */
  private readonly feeds = new Map<string, ResourceFeed>();
  private quotaFeed?: ResourceFeed;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private unsubscribe?: () => void;
  private followScheduled = false;

  constructor(private readonly stores: StoreIndex, naming: Naming, private readonly served?: ServedSet,
    private readonly opts: ResourceQuotaControllerOptions = {}) {
    this.evaluators = new EvaluatorRegistry(naming);
    this.storageGroup = naming.group('storage');
    this.queue = new WorkQueue(async (key) => {
      try {
        await this.sync(key);
      } finally {
        quotaTestHooks.synced?.(key);
      }
    }, {
      onError: (key, err) => logger.warn(`${LABEL}: will retry`, { quota: key, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller when the server serves ResourceQuotas, else undefined. */
  static forStores(stores: StoreIndex, naming: Naming, served?: ServedSet, opts?: ResourceQuotaControllerOptions): ResourceQuotaController | undefined {
    return stores.has(storeKey('', 'v1', 'resourcequotas')) ? new ResourceQuotaController(stores, naming, served, opts) : undefined;
  }

  private get live(): StoreIndex {
    return this.served?.stores ?? this.stores;
  }

  /** The store of a resource at any version (the first served). */
  private find(group: string, resource: string): GenericStore | undefined {
    for (const s of this.live.values()) if (s.def.group === group && s.def.resource === resource && !s.def.virtual) return s;
    return undefined;
  }

  async start(): Promise<void> {
    const quotaStore = this.find('', 'resourcequotas')!;
    this.quotaFeed = new ResourceFeed(quotaStore, { upsert: (q) => this.quotaChanged(q), remove: (q) => this.quotaRemoved(q) }, LABEL);
    await this.quotaFeed.start();
    for (const r of ALWAYS_FOLLOWED) await this.follow('', r);
    this.unsubscribe = this.served?.onChange(() => this.scheduleFollow());
    await this.followNamed();
    const resync = this.opts.resyncMs ?? 5 * 60_000;
    this.timer = setInterval(() => { for (const keys of this.quotasByNamespace.values()) for (const k of keys) this.queue.add(k); }, resync);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.queue.stop();
    await Promise.all([this.quotaFeed, ...this.feeds.values()].map((f) => f?.stop()));
  }

  private quotaChanged(quota: ApiObject): void {
    const ns = quota.metadata?.namespace ?? '';
    const key = keyOf(quota);
    let keys = this.quotasByNamespace.get(ns);
    if (!keys) this.quotasByNamespace.set(ns, keys = new Set());
    const isNew = !keys.has(key);
    keys.add(key);
    const spec = parseResourceList((quota.spec as { hard?: unknown } | undefined)?.hard);
    const status = (quota.status ?? {}) as { hard?: unknown; used?: unknown };
    const hard = parseResourceList(status.hard);
    const used = parseResourceList(status.used);
    const missingUsed = [...spec.keys()].some((k) => !used.has(k));
    if (isNew || !equals(spec, hard) || missingUsed) this.queue.add(key);
    if (isNew) this.scheduleFollow();
  }

  private quotaRemoved(quota: ApiObject): void {
    this.quotasByNamespace.get(quota.metadata?.namespace ?? '')?.delete(keyOf(quota));
  }

  /** Queues the quotas of the object's namespace (replenishment). */
  private replenish(obj: ApiObject): void {
    for (const k of this.quotasByNamespace.get(obj.metadata?.namespace ?? '') ?? []) this.queue.add(k);
  }

  /** followNamed once for a burst of changes (the initial state hands over every quota). */
  private scheduleFollow(): void {
    if (this.followScheduled || this.stopped) return;
    this.followScheduled = true;
    setImmediate(() => {
      this.followScheduled = false;
      this.followNamed().catch((err) => logger.warn(`${LABEL}: cannot follow the resources quotas name`, { error: err instanceof Error ? err.message : String(err) }));
    });
  }

  /** Follows every resource some quota's hard names count. */
  private async followNamed(): Promise<void> {
    const wanted = new Map<string, [string, string]>();
    for (const q of await this.quotaObjects()) {
      const hard = Object.keys(((q.spec ?? {}) as { hard?: Record<string, unknown> }).hard ?? {});
      for (const [g, r] of chargedResources(hard, this.storageGroup)) wanted.set(`${g}/${r}`, [g, r]);
    }
    for (const [g, r] of wanted.values()) await this.follow(g, r);
  }

  private async quotaObjects(): Promise<ApiObject[]> {
    const store = this.find('', 'resourcequotas');
    if (!store) return [];
    const cache = store.deps.cache;
    const kvs = cache?.ready ? cache.list(store.collectionPrefix()).kvs : (await store.storage.range(store.collectionPrefix())).kvs;
    return store.outputKvs(kvs);
  }

  private async follow(group: string, resource: string): Promise<void> {
    const key = `${group}/${resource}`;
    if (this.stopped || this.feeds.has(key)) return;
    const store = this.find(group, resource);
    if (!store) return;
    // Pods, services and claims change usage on update too (a pod turning terminal, a claim
    // growing): an update whose usage differs replenishes, as Kubernetes' replenishment does. An
    // add never does (the admission plugin charged it; a recalculation racing in-flight charges
    // could undercount). Other objects replenish only by going.
    const full = group === '' && ALWAYS_FOLLOWED.includes(resource);
    const evaluator = this.evaluators.get(group, resource);
    const usageByKey = new Map<string, string>();
    const usageText = (o: ApiObject) => JSON.stringify(toJson(evaluator.usage(o)));
    let started = false;
    const feed = new ResourceFeed(store, {
      upsert: (o) => {
        if (!full) return;
        const k = keyOf(o);
        const before = usageByKey.get(k);
        const now = usageText(o);
        usageByKey.set(k, now);
        if (started && before !== undefined && before !== now) this.replenish(o);
      },
      remove: (o) => {
        usageByKey.delete(keyOf(o));
        if (started) this.replenish(o);
      },
    }, LABEL, full ? {} : { metadataOnly: true, readsOnly: [] });
    this.feeds.set(key, feed);
    try {
      await feed.start();
      started = true;
    } catch (err) {
      this.feeds.delete(key);
      logger.warn(`${LABEL}: cannot follow ${key}`, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Recalculates one quota and writes its status when it differs. */
  private async sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/');
    const store = this.find('', 'resourcequotas');
    if (!store) return;
    let quota: ApiObject;
    try {
      quota = await store.get(namespace, name);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
    await quotaTestHooks.quotaRead?.(quota);
    // The charges this read includes whose objects are still being written are waited for, and
    // the objects are then listed consistently (usage.ts): no charge is counted away (in-flight.ts).
    await inFlightCharges(store.storage).settled(namespace);
    const status = await computeStatus(quota, this.evaluators, { find: (g, r) => this.find(g, r) }, this.storageGroup);
    const current = (quota.status ?? {}) as { hard?: unknown; used?: unknown };
    if (equals(parseResourceList(current.hard), parseResourceList(status.hard)) && equals(parseResourceList(current.used), parseResourceList(status.used))
      && Object.keys(current.hard ?? {}).length === Object.keys(status.hard).length) return;
    // Compared on the resourceVersion read before the count: a charge since then makes it
    // fail (409, thrown), and the queue retries with a fresh read.
    await store.update({ namespace }, name, { ...quota, status }, { dryRun: false, subresource: 'status', fieldManager: 'kube-controller-manager' });
  }
}
