/**
 * The local APIServices: one `<version>.<group>` APIService without a service for every
 * group-version this server serves itself, kept as kube-apiserver 1.32 keeps them with its
 * autoregister controller (kube-aggregator/pkg/controllers/autoregister) and CRD registration
 * controller (pkg/controlplane/controller/crdregistration):
 *  - built-in group-versions (after --runtime-config) whose group-version has an entry in
 *    kube-apiserver's priority table are synced once at start (label
 *    `kube-aggregator.kubernetes.io/automanaged: onstart`); a group-version without an entry gets
 *    none (kube's "Skipping APIService creation"), as the aggregator's own group has none;
 *  - a custom resource group-version gets one while a CRD lists it as served (label `true`,
 *    groupPriorityMinimum 1000, versionPriority 100), kept continuously: updated when its spec
 *    drifts, re-created when deleted, deleted when no CRD serves the group-version any more.
 *    As crdregistration's handleVersionUpdate, this reads the CRD objects themselves (their
 *    `spec.group` and `spec.versions[].served`), whatever their conditions: the APIService exists
 *    as soon as the CRD does, before its names are accepted or it is Established, and stays until
 *    the CRD is gone from the store (a terminating CRD keeps it until its finalizer is removed);
 *    a CRD in a built-in group-version is skipped (kube's APIServiceAlreadyExists);
 *  - autoregister's table of cases: an APIService without the label (a user's) is never touched;
 *    an `onstart` one is synced once per process (created, updated, or deleted when it was present
 *    at start but its group-version is no longer served), and left alone afterwards, so one deleted
 *    while the server runs comes back only at the next start; one labelled `onstart` that was
 *    created after start is left alone.
 * The custom group-versions follow the CRDs in the store (a ResourceFeed, kube's CRD informer).
 * Runs where `primaryDuties` is set; its first sync is done before start() returns (before the
 * server reports ready), with every CRD already stored.
 */
import type { Naming } from '../naming';
import type { GenericStore } from '../registry/store';
import type { ApiObject } from '../scheme/types';
import { deleteObject } from '../registry/delete';
import { ResourceFeed } from '../registry/resource-feed';
import { storeKey } from '../registry/store-index';
import { WorkQueue } from '../controllers/work-queue';
import type { AggregationContext } from './context';
import { apiServicesStoreKey, apiServiceName, type ApiService, type ApiServiceSpec } from './api-service';
import { builtinVersionPriorities, CRD_PRIORITY, type Priority } from '../api/group-priority';

export const AUTOMANAGED_ONSTART = 'onstart';
export const AUTOMANAGED_CONTINUOUSLY = 'true';
const FIELD_MANAGER = 'kube-apiserver';
/** How long start() waits for the first sync (etcd slow or down: the server starts anyway). */
const INITIAL_SYNC_MS = 20_000;

/** `kube-aggregator.kubernetes.io/automanaged` in the flavor's label domain. */
export function automanagedLabel(naming: Naming): string {
  return `kube-aggregator.${naming.labelDomain}/automanaged`;
}

interface Desired {
  name: string;
  mode: typeof AUTOMANAGED_ONSTART | typeof AUTOMANAGED_CONTINUOUSLY;
  spec: ApiServiceSpec;
}

/** The fields of a spec that decide equality, absent and empty alike (Go's zero values). */
function normalSpec(s: ApiServiceSpec | undefined): string {
  const svc = s?.service ? { namespace: s.service.namespace ?? '', name: s.service.name ?? '', port: s.service.port ?? 443 } : null;
  return JSON.stringify([s?.group ?? '', s?.version ?? '', svc, !!s?.insecureSkipTLSVerify, s?.caBundle ?? '',
    s?.groupPriorityMinimum ?? 0, s?.versionPriority ?? 0]);
}

const codeOf = (err: unknown) => (err as { code?: number } | undefined)?.code;

export class LocalApiServiceKeeper {
  private readonly label: string;
  private readonly priorities: Map<string, Priority>;
  private readonly store: GenericStore;
  private desired = new Map<string, Desired>();
  /** The APIServices that existed when the keeper started (autoregister's apiServicesAtStart). */
  private readonly atStart = new Set<string>();
  /** Synced successfully once by this process (the "once" of `onstart`). */
  private readonly synced = new Set<string>();
  /** Each stored CRD's group-versions listed as served (CRD name -> `<group>/<version>`s). */
  private readonly crdGroupVersions = new Map<string, readonly string[]>();
  private crdFeed?: ResourceFeed;
  private queue?: WorkQueue;
  private stopped = false;

  constructor(readonly agg: AggregationContext) {
    this.label = automanagedLabel(agg.naming);
    this.priorities = builtinVersionPriorities(agg.naming);
    this.store = agg.stores.get(apiServicesStoreKey(agg.naming)) as GenericStore;
  }

  /** The APIServices this server wants now (name -> its spec and label value). */
  desiredApiServices(): ReadonlyMap<string, Readonly<Desired>> {
    return this.desired;
  }

  async start(): Promise<void> {
    for (const s of this.agg.cache.list()) this.atStart.add(s.metadata?.name ?? '');
    this.queue = new WorkQueue((name) => this.check(name), {
      workers: 5, baseDelayMs: 5, maxDelayMs: 30_000,
      onError: (name, err) => this.agg.log.warn('local APIServices: sync failed; retried', { apiService: name, error: err instanceof Error ? err.message : String(err) }),
    });
    await this.followCrds();
    this.desired = this.computeDesired();
    this.agg.cache.onChange((name, now) => {
      if (this.desired.has(name) || (now && this.isAutomanaged(now))) this.queue?.add(name);
    });
    for (const name of this.desired.keys()) this.queue.add(name);
    for (const s of this.agg.cache.list()) if (this.isAutomanaged(s)) this.queue.add(s.metadata?.name ?? '');
    await this.firstSync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.crdFeed?.stop();
    await this.queue?.stop();
  }

  /** Fills crdGroupVersions from the CRD store and follows it (no store: custom resources are off). */
  private async followCrds(): Promise<void> {
    const store = this.agg.stores.get(storeKey(this.agg.naming.group('apiextensions'), 'v1', 'customresourcedefinitions')) as GenericStore | undefined;
    if (!store) return;
    const set = (name: string, gvs: readonly string[]) => {
      const before = this.crdGroupVersions.get(name) ?? [];
      if (before.length === gvs.length && before.every((gv, i) => gv === gvs[i])) return;
      if (gvs.length) this.crdGroupVersions.set(name, gvs);
      else this.crdGroupVersions.delete(name);
      // The feed's initial state is taken by start()'s first computeDesired.
      if (following) this.servedSetChanged();
    };
    let following = false;
    this.crdFeed = new ResourceFeed(store, {
      upsert: (obj) => set(obj.metadata?.name ?? '', servedGroupVersions(obj)),
      remove: (obj) => set(obj.metadata?.name ?? '', []),
    }, 'crd-autoregister');
    await this.crdFeed.start();
    following = true;
  }

  /**
   * Until the queue is idle and every wanted APIService is in the cache (bounded): on a restart,
   * where they all are, as soon as the queue has looked at each once.
   */
  private async firstSync(): Promise<void> {
    const queue = this.queue as WorkQueue;
    const synced = await this.agg.cache.until(() => this.stopped || (queue.idle && [...this.desired.keys()].every((n) => this.agg.cache.get(n))),
      INITIAL_SYNC_MS, queue.settled());
    if (!synced) this.agg.log.warn('local APIServices: first sync not done in time; going on', { waitedMs: INITIAL_SYNC_MS });
  }

  private isAutomanaged(s: ApiService): boolean {
    const v = s.metadata?.labels?.[this.label];
    return v === AUTOMANAGED_ONSTART || v === AUTOMANAGED_CONTINUOUSLY;
  }

  /** Every served group-version: built-ins from the table (onstart), the CRDs' (continuous). */
  private computeDesired(): Map<string, Desired> {
    const registry = this.agg.registry;
    const builtinGvs = new Set<string>();
    for (const def of registry.builtinResources()) builtinGvs.add(`${def.group}/${def.version}`);
    const out = new Map<string, Desired>();
    for (const gv of builtinGvs) {
      const [group, version] = splitGv(gv);
      const p = this.priorities.get(gv);
      if (!p) continue;
      const name = apiServiceName(group, version);
      out.set(name, { name, mode: AUTOMANAGED_ONSTART, spec: { group, version, groupPriorityMinimum: p.group, versionPriority: p.version } });
    }
    for (const gvs of this.crdGroupVersions.values()) {
      for (const gv of gvs) {
        if (builtinGvs.has(gv)) continue;
        const [group, version] = splitGv(gv);
        const name = apiServiceName(group, version);
        if (out.has(name)) continue;
        out.set(name, {
          name, mode: AUTOMANAGED_CONTINUOUSLY,
          spec: { group, version, groupPriorityMinimum: CRD_PRIORITY.group, versionPriority: CRD_PRIORITY.version },
        });
      }
    }
    return out;
  }

  private servedSetChanged(): void {
    if (this.stopped) return;
    const before = this.desired;
    this.desired = this.computeDesired();
    for (const name of new Set([...before.keys(), ...this.desired.keys()])) {
      const a = before.get(name);
      const b = this.desired.get(name);
      if (!a || !b || a.mode !== b.mode || normalSpec(a.spec) !== normalSpec(b.spec)) this.queue?.add(name);
    }
  }

  /** autoregister's checkAPIService: one APIService against what is wanted of it. */
  private async check(name: string): Promise<void> {
    const hasSynced = this.synced.has(name);
    await this.reconcile(name, hasSynced);
    if (!hasSynced) this.synced.add(name);
  }

  private async reconcile(name: string, hasSynced: boolean): Promise<void> {
    const desired = this.desired.get(name);
    const curr = this.agg.cache.get(name);
    if (!curr && !desired) return;
    if (desired?.mode === AUTOMANAGED_ONSTART && hasSynced) return;
    if (!curr && desired) {
      try {
        await this.store.create({}, this.objectOf(desired), { dryRun: false, fieldManager: FIELD_MANAGER });
        this.agg.log.debug('local APIServices: created', { apiService: name });
      } catch (err) {
        if (codeOf(err) !== 409) throw err;
      }
      return;
    }
    if (!curr || !this.isAutomanaged(curr)) return;
    const currMode = curr.metadata?.labels?.[this.label];
    if (currMode === AUTOMANAGED_ONSTART && !this.atStart.has(name)) return;
    if (currMode === AUTOMANAGED_ONSTART && hasSynced) return;
    if (!desired) {
      try {
        await deleteObject(this.store, {}, name, { preconditions: { uid: String(curr.metadata?.uid ?? '') } }, { dryRun: false, fieldManager: FIELD_MANAGER });
        this.agg.log.info('local APIServices: deleted (its group-version is no longer served)', { apiService: name });
      } catch (err) {
        if (codeOf(err) !== 404 && codeOf(err) !== 409) throw err;
      }
      return;
    }
    if (normalSpec(curr.spec) === normalSpec(desired.spec)) return;
    try {
      await this.store.updateWith({}, name, (current) => ({ ...current, spec: { ...desired.spec } }), {
        dryRun: false, fieldManager: FIELD_MANAGER, precondition: String(curr.metadata?.resourceVersion ?? ''),
      });
      this.agg.log.debug('local APIServices: updated', { apiService: name });
    } catch (err) {
      if (codeOf(err) !== 404 && codeOf(err) !== 409) throw err;
    }
  }

  private objectOf(d: Desired): ApiService {
    return {
      apiVersion: `${this.agg.naming.group('apiregistration')}/v1`, kind: 'APIService',
      metadata: { name: d.name, labels: { [this.label]: d.mode } },
      spec: { ...d.spec },
    } as ApiService;
  }
}

/** A CRD's `<group>/<version>` for each of its spec.versions with `served: true`. */
function servedGroupVersions(crd: ApiObject): string[] {
  const spec = (crd.spec ?? {}) as { group?: unknown; versions?: unknown };
  if (typeof spec.group !== 'string' || !Array.isArray(spec.versions)) return [];
  return spec.versions.flatMap((v: { name?: unknown; served?: unknown }) =>
    (v && typeof v.name === 'string' && v.served === true ? [`${spec.group}/${v.name}`] : []));
}

function splitGv(gv: string): [string, string] {
  const i = gv.lastIndexOf('/');
  return [gv.slice(0, i), gv.slice(i + 1)];
}
