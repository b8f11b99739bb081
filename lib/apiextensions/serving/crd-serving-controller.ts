/**
 * Serves the custom resources of every CustomResourceDefinition, in every replica (it is part of
 * the API server, as in Kubernetes, not a leader-elected controller). It follows the CRDs from
 * their watch cache and, for each CRD whose names are accepted (or that is Established) with a
 * served version, asks the factory for a bundle, makes one store per served version over
 * `<prefix>/<group>/<plural>/` and one watch cache shared by them (started before the stores are
 * registered), and puts them in the ResourceRegistry. A CRD update rebuilds the defs and stores
 * and keeps the watch cache; a removal (or a new uid) takes them out of the registry, then stops
 * the cache, which ends its watches. Discovery and OpenAPI list a CRD's resources only once it is
 * Established.
 */
import { createHash } from 'node:crypto';
import { CustomHandlers } from '../../api/resource-handler';
import { isTrue } from '../../registry/apiextensions/custom-resource-definitions/conditions';
import { crdSpec, crdStatus, crdVersions } from '../../registry/apiextensions/custom-resource-definitions/view';
import { ResourceRegistry, ServedResource } from '../../registry/resource-registry';
import { GenericStore, StoreDeps } from '../../registry/store';
import { ApiObject } from '../../scheme/types';
import { logger } from '../../logger';
import { Cacher } from '../../storage/cacher/cacher';
import { ResourceFeed } from '../../registry/resource-feed';
import { WorkQueue } from '../../controllers/work-queue';
import { Naming } from '../../naming';
import { WebhookClients } from '../../admission/webhook/webhook-client';
import { CrServing, CrServingFactory } from './types';
import { CR_TERMINATING_VERBS } from './cr-resource-def';

export interface CrdServingDeps {
  registry: ResourceRegistry;
  /** The CRD store (its watch cache running). */
  crds: GenericStore;
  factory: CrServingFactory;
  naming: Naming;
  /** Passed to the factory: the clients of conversion webhooks. */
  conversionClients?: WebhookClients;
  /** The dispatcher's live custom handlers: a bundle's (`/scale`) are added and removed here. */
  customHandlers: CustomHandlers;
  /** The deps of a store of `resource` (a GroupResource string) at `keySegment`, without a cache. */
  storeDeps(resource: string, keySegment: string): StoreDeps;
  /** A started watch cache over `prefix`, or undefined when the server runs without them. */
  startCache(storage: StoreDeps['storage'], prefix: string): Promise<Cacher | undefined>;
  /** apiserver_storage_objects for a resource from now on, and no longer. */
  countObjects?(resource: string, store: GenericStore): void;
  stopCounting?(resource: string): void;
}

/** What is served for one CRD. */
interface Served {
  uid: string;
  fingerprint: string;
  bundle: CrServing;
  keySegment: string;
  resource: string;
  cache?: Cacher;
  keys: string[];
  handlerKeys: string[];
}

/** `plural.group`, Kubernetes' GroupResource string (the metrics' resource label). */
const groupResource = (b: CrServing) => `${b.plural}.${b.group}`;

/** Serve when the names are accepted (or it is Established) and some version is served. */
export function shouldServe(crd: ApiObject): boolean {
  const accepted = isTrue(crd, 'NamesAccepted') || isTrue(crd, 'Established');
  return accepted && crdVersions(crdSpec(crd)).some((v) => v.served === true);
}

/** What a bundle is built from: a CRD change outside these (a label, say) rebuilds nothing. */
function fingerprintOf(crd: ApiObject): string {
  const status = crdStatus(crd);
  return createHash('sha1').update(JSON.stringify([
    crd.metadata?.uid, crd.spec, status.acceptedNames, isTrue(crd, 'Established'), isTrue(crd, 'Terminating'), !!crd.metadata?.deletionTimestamp,
  ])).digest('hex');
}

export class CrdServingController {
  private readonly latest = new Map<string, ApiObject>();
  private readonly served = new Map<string, Served>();
  private readonly waiters = new Map<string, (() => void)[]>();
  private readonly queue: WorkQueue;
  private feed?: ResourceFeed;

  constructor(private readonly deps: CrdServingDeps) {
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers: 2,
      onError: (name, err) => logger.warn('crd serving: will retry', { crd: name, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** Follows the CRDs; resolves once the CRDs present now are queued. */
  async start(): Promise<void> {
    this.feed = new ResourceFeed(this.deps.crds, {
      upsert: (crd) => this.observe(crd.metadata?.name as string, crd),
      remove: (crd) => this.observe(crd.metadata?.name as string, undefined),
    }, 'crd serving');
    await this.feed.start();
  }

  async stop(): Promise<void> {
    await this.feed?.stop();
    await this.queue.stop();
    await Promise.all([...this.served.keys()].map((name) => this.teardown(name)));
  }

  /** Resolves once the CRD named `name` is served with its current state (tests). */
  ready(name: string): Promise<void> {
    const crd = this.latest.get(name);
    const s = this.served.get(name);
    if (crd && s && s.fingerprint === fingerprintOf(crd)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(name, [...(this.waiters.get(name) ?? []), resolve]));
  }

  /** The bundle served for a CRD, if any. */
  bundle(name: string): CrServing | undefined {
    return this.served.get(name)?.bundle;
  }

  private observe(name: string, crd: ApiObject | undefined): void {
    if (!name) return;
    if (crd) this.latest.set(name, crd);
    else this.latest.delete(name);
    this.queue.add(name);
  }

  private async sync(name: string): Promise<void> {
    const crd = this.latest.get(name);
    const current = this.served.get(name);
    if (!crd || !shouldServe(crd)) {
      if (current) await this.teardown(name);
      return;
    }
    const fingerprint = fingerprintOf(crd);
    if (current?.fingerprint === fingerprint) return this.wake(name);
    if (current && current.uid !== crd.metadata?.uid) await this.teardown(name);
    let bundle: CrServing;
    try {
      bundle = this.deps.factory(crd, { naming: this.deps.naming, conversionClients: this.deps.conversionClients });
    } catch (err) {
      // The CRD was validated on write; a bundle that cannot be built is not served.
      logger.error('crd serving: cannot serve custom resource definition', { crd: name, error: err instanceof Error ? err.message : String(err) });
      if (this.served.has(name)) await this.teardown(name);
      return;
    }
    if (this.deps.registry.isBuiltin(bundle.group, bundle.plural)) {
      logger.warn('crd serving: custom resource definition overlaps a built-in resource; not served', { crd: name });
      if (this.served.has(name)) await this.teardown(name);
      return;
    }
    await this.install(name, crd, fingerprint, bundle);
    this.wake(name);
  }

  private async install(name: string, crd: ApiObject, fingerprint: string, bundle: CrServing): Promise<void> {
    const previous = this.served.get(name);
    const resource = groupResource(bundle);
    // Same uid and keys: the running watch cache goes on (its watches too); else a new one.
    let cache = previous?.keySegment === bundle.keySegment ? previous.cache : undefined;
    if (previous && previous.keySegment !== bundle.keySegment) await this.teardown(name);
    const base = this.deps.storeDeps(resource, bundle.keySegment);
    const stores = [...bundle.defs.values()].map((def) => new GenericStore(def, { ...base }));
    if (!cache && stores.length) {
      cache = await this.deps.startCache(stores[0].storage, stores[0].collectionPrefix());
    }
    // The CRD may have changed or gone while the cache started: the next sync decides.
    if (this.latest.get(name) !== crd) {
      if (cache && cache !== previous?.cache) await cache.stop();
      this.queue.add(name);
      return;
    }
    for (const store of stores) store.deps.cache = cache;
    const listed = isTrue(crd, 'Established');
    const entries: ServedResource[] = stores.map((store) => ({
      def: store.def, store, listed, ...(bundle.terminating ? { discoveryVerbs: [...CR_TERMINATING_VERBS] } : {}),
    }));
    const old = this.served.get(name);
    const newKeys = entries.map((e) => `${e.def.group}/${e.def.version}/${e.def.resource}`);
    const refused = this.deps.registry.replace(old?.keys ?? [], entries);
    if (refused.length) logger.warn('crd serving: versions overlap built-in resources; not served', { crd: name, keys: refused });
    for (const key of old?.handlerKeys ?? []) this.deps.customHandlers.delete(key);
    const handlerKeys = [...bundle.customHandlers.keys()];
    for (const [key, handler] of bundle.customHandlers) this.deps.customHandlers.set(key, handler);
    if (!old && stores[0]) this.deps.countObjects?.(resource, stores[0]);
    this.served.set(name, {
      uid: String(crd.metadata?.uid ?? ''), fingerprint, bundle, keySegment: bundle.keySegment, resource, cache,
      keys: newKeys.filter((k) => !refused.includes(k)), handlerKeys,
    });
  }

  /** Out of the registry first (new requests get 404), then the cache stops (its watches end). */
  private async teardown(name: string): Promise<void> {
    const s = this.served.get(name);
    if (!s) return;
    this.served.delete(name);
    this.deps.registry.remove(s.keys);
    for (const key of s.handlerKeys) this.deps.customHandlers.delete(key);
    this.deps.stopCounting?.(s.resource);
    await s.cache?.stop();
  }

  private wake(name: string): void {
    const waiting = this.waiters.get(name);
    if (!waiting) return;
    this.waiters.delete(name);
    for (const w of waiting) w();
  }
}

