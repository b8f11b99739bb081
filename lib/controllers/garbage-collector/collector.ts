/**
 * The garbage collector: follows every resource (ResourceFeed, from the watch cache), keeps the
 * owner -> dependents graph, and acts on the work the graph reports:
 * - attemptToDelete(dependent): classify its owners live; no solid owner left -> delete it
 *   (Background, or the policy its own finalizers name); some owners gone -> drop those refs.
 * - attemptToDelete(owner with foregroundDeletion): once no blocking dependent is left in the
 *   graph, remove the finalizer (the store then removes the owner).
 * - attemptToOrphan(owner with orphan): remove its uid from every dependent, then the finalizer.
 * Before finishing an owner it waits until every feed has caught up with etcd, so a dependent
 * written earlier to another resource is not overlooked. See README.md in this folder.
 */
import { GenericStore } from '../../registry/store';
import { RegistryChange, ServedSet } from '../../registry/resource-registry';
import { ApiObject } from '../../scheme/types';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../registry/propagation';
import { logger } from '../../logger';
import { ResourceFeed } from '../../registry/resource-feed';
import { WorkQueue } from '../work-queue';
import { DependencyGraph, GraphNode, GraphWork, ObjectCoordinates, groupOf } from './graph';
import { ClassifiedReferences, UnresolvableOwnerError, classifyReferences, readOrUndefined } from './owner-references';
import { deleteDependent, removeFinalizer, removeOwnerReferences, targetOf, unblockOwnerReferences } from './operations';

/** How long finishing an owner waits for the feeds to catch up before retrying. */
const SYNC_TIMEOUT_MS = 5000;
/** Client errors that a retry cannot fix (the next event brings the object back). */
const PERMANENT = new Set([400, 403, 405, 422]);

const DELETE = 'delete/';
const ORPHAN = 'orphan/';

export class GarbageCollector {
  readonly graph = new DependencyGraph();
  private readonly stores = new Map<string, GenericStore>();
  private readonly byKind = new Map<string, GenericStore>();
  private readonly feeds = new Map<string, ResourceFeed>();
  private unsubscribe?: () => void;
  private started = false;
  private readonly queue: WorkQueue;
  /** While the initial states load, owner checks wait until every resource is in the graph. */
  private loading = true;
  private readonly deferred = new Set<string>();
  private readonly reported = new Set<string>();

  /**
   * @param stores every served resource; those without delete, list and watch are skipped
   * @param served when given, resources added to and removed from it later (custom resources)
   *   are followed too
   */
  constructor(stores: Iterable<GenericStore>, private readonly served?: ServedSet) {
    for (const store of stores) this.track(store);
    this.queue = new WorkQueue((key) => this.process(key), {
      onError: (key, err) => logger.warn('garbage collector: will retry', { item: key, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  async start(): Promise<void> {
    this.started = true;
    this.unsubscribe = this.served?.onChange((c) => this.follow(c));
    for (const [prefix, store] of [...this.stores]) if (!this.feeds.has(prefix)) await this.startFeed(prefix, store);
    this.loading = false;
    for (const uid of this.deferred) this.queue.add(DELETE + uid);
    this.deferred.clear();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.unsubscribe?.();
    await this.queue.stop();
    await Promise.all([...this.feeds.values()].map((f) => f.stop()));
  }

  /** Indexes a store by kind and, when it can be collected, by key prefix. */
  private track(store: GenericStore): string | undefined {
    const { group, version, kind, verbs } = store.def;
    this.byKind.set(`${group}/${version}/${kind}`, store);
    if (!['delete', 'list', 'watch'].every((v) => verbs.includes(v))) return undefined;
    // Several versions of one resource share a prefix: one feed per prefix, through the storage version's store.
    const prefix = store.collectionPrefix();
    if (!this.stores.has(prefix) || !store.def.storageVersion) this.stores.set(prefix, store);
    return prefix;
  }

  private async startFeed(prefix: string, store: GenericStore): Promise<void> {
    const feed = new ResourceFeed(store, {
      upsert: (obj) => this.schedule(this.graph.observe(obj, this.coordinates(store, obj))),
      remove: (obj) => this.schedule(this.graph.remove(obj.metadata?.uid as string)),
    }, 'garbage collector', { metadataOnly: true, readsOnly: ['ownerReferences', 'finalizers', 'deletionTimestamp'] });
    this.feeds.set(prefix, feed);
    await feed.start();
  }

  /**
   * Resources added to or removed from the served set. A resource that goes (its CRD deleted)
   * takes its objects out of the graph: their dependents are looked at again, and with the
   * owner's kind no longer served they are kept, as Kubernetes keeps them.
   */
  private follow(change: RegistryChange): void {
    for (const { store } of change.removed) {
      if (!store) continue;
      const { group, version, kind } = store.def;
      if (this.byKind.get(`${group}/${version}/${kind}`) === store) this.byKind.delete(`${group}/${version}/${kind}`);
      if (this.stores.get(store.collectionPrefix()) === store) this.stores.delete(store.collectionPrefix());
    }
    for (const { store } of change.added) if (store) this.track(store);
    for (const { store } of change.removed) {
      const prefix = store?.collectionPrefix();
      if (!prefix || this.stores.has(prefix)) continue;
      const feed = this.feeds.get(prefix);
      if (!feed) continue;
      this.feeds.delete(prefix);
      const uids = feed.knownUids();
      void feed.stop();
      for (const uid of uids) this.schedule(this.graph.remove(uid));
    }
    if (!this.started) return;
    for (const [prefix, store] of this.stores) {
      if (this.feeds.has(prefix)) continue;
      this.startFeed(prefix, store).catch((err) => logger.warn('garbage collector: cannot follow a resource', { resource: store.def.resource, error: String(err) }));
    }
  }

  /** Nothing queued or in progress (for tests). */
  get idle(): boolean {
    return this.queue.idle;
  }

  private coordinates(store: GenericStore, obj: ApiObject): ObjectCoordinates {
    const m = obj.metadata ?? {};
    return { resource: store.collectionPrefix(), group: store.def.group, kind: store.def.kind, namespace: m.namespace, name: m.name as string };
  }

  private schedule(work: GraphWork): void {
    for (const uid of work.attemptToDelete) this.queue.add(DELETE + uid);
    for (const uid of work.attemptToOrphan) this.queue.add(ORPHAN + uid);
    for (const uid of work.verifyOwners) {
      if (this.loading) this.deferred.add(uid);
      else this.queue.add(DELETE + uid);
    }
  }

  private async process(key: string): Promise<void> {
    try {
      if (key.startsWith(ORPHAN)) await this.attemptToOrphan(key.slice(ORPHAN.length));
      else await this.attemptToDelete(key.slice(DELETE.length));
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== undefined && PERMANENT.has(code)) {
        logger.warn('garbage collector: giving up on an item', { item: key, error: err instanceof Error ? err.message : String(err) });
        return;
      }
      throw err;
    }
  }

  /** The node, its store and its live state; undefined when it is gone or not the same object. */
  private async live(uid: string): Promise<{ node: GraphNode; store: GenericStore; obj: ApiObject } | undefined> {
    const node = this.graph.get(uid);
    const c = node?.coordinates;
    if (!node || !c) return undefined;
    const store = this.stores.get(c.resource);
    if (!store) return undefined;
    const obj = await readOrUndefined(store, c.namespace, c.name);
    // Gone or replaced: the removal event will come through the feed.
    if (!obj || obj.metadata?.uid !== uid) return undefined;
    return { node, store, obj };
  }

  private async attemptToDelete(uid: string): Promise<void> {
    const cached = this.graph.get(uid);
    // Being deleted is a one-way trip: its dependents are looked at once it is removed.
    if (cached?.beingDeleted && !cached.deletingDependents) return;
    const live = await this.live(uid);
    if (!live) return;
    const { node, store, obj } = live;
    const meta = obj.metadata ?? {};
    if (meta.deletionTimestamp) {
      if (meta.finalizers?.includes(FINALIZER_FOREGROUND)) await this.finishForeground(node, store, obj);
      return;
    }
    const refs = meta.ownerReferences ?? [];
    if (!refs.length) return;

    let owners: ClassifiedReferences;
    try {
      owners = await classifyReferences(refs, store.def.namespaced ? meta.namespace : undefined, (apiVersion, kind) => this.storeFor(apiVersion, kind));
    } catch (err) {
      if (!(err instanceof UnresolvableOwnerError)) throw err;
      // Not retried: a kind served later brings its objects through a feed of its own.
      if (!this.reported.has(uid)) {
        this.reported.add(uid);
        logger.warn('garbage collector: owner reference cannot be resolved; object is not collected',
          { reason: err.code, resource: store.def.resource, namespace: meta.namespace, name: meta.name, error: err.message });
      }
      return;
    }
    const { solid, dangling, waiting } = owners;
    if (solid.length) {
      // Kept: references to gone owners go, and so do those to owners waiting in the foreground.
      const drop = [...dangling, ...waiting].map((r) => r.uid);
      if (drop.length) await removeOwnerReferences(store, targetOf(obj), drop);
      return;
    }
    if (waiting.length && node.dependents.size) {
      // Its own dependents go first. A dependent that deletes its dependents too may be our owner: unblock to avoid a cycle.
      if ([...node.dependents].some((d) => d.deletingDependents)) await unblockOwnerReferences(store, targetOf(obj));
      await deleteDependent(store, obj, 'Foreground');
      return;
    }
    const finalizers = meta.finalizers ?? [];
    const policy = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    await deleteDependent(store, obj, policy);
  }

  /** An owner deleting its dependents in the foreground: done when no blocking dependent is left. */
  private async finishForeground(node: GraphNode, store: GenericStore, owner: ApiObject): Promise<void> {
    await this.catchUp();
    const blocking = this.graph.blockingDependents(node);
    if (!blocking.length) {
      await removeFinalizer(store, targetOf(owner), FINALIZER_FOREGROUND);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.queue.add(DELETE + dep.uid);
  }

  private async attemptToOrphan(uid: string): Promise<void> {
    const live = await this.live(uid);
    if (!live) return;
    const { node, store, obj } = live;
    if (!obj.metadata?.deletionTimestamp || !obj.metadata.finalizers?.includes(FINALIZER_ORPHAN)) return;
    await this.catchUp();
    for (const dep of [...node.dependents]) {
      const c = dep.coordinates;
      const depStore = c && this.stores.get(c.resource);
      if (!c || !depStore) continue;
      await removeOwnerReferences(depStore, { namespace: c.namespace, name: c.name, uid: dep.uid }, [uid]);
    }
    await removeFinalizer(store, targetOf(obj), FINALIZER_ORPHAN);
  }

  /** Waits until every feed has delivered etcd's current state; throws (retry) when it cannot. */
  private async catchUp(): Promise<void> {
    const [first] = this.stores.values();
    if (!first) return;
    const revision = await first.storage.currentRevision();
    const synced = await Promise.all([...this.feeds.values()].map((f) => f.sync(revision, SYNC_TIMEOUT_MS)));
    if (synced.includes(false)) throw new Error(`the dependency graph has not caught up with revision ${revision}`);
  }

  private storeFor(apiVersion: string, kind: string): GenericStore | undefined {
    const slash = apiVersion.indexOf('/');
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return this.byKind.get(`${groupOf(apiVersion)}/${version}/${kind}`);
  }
}
