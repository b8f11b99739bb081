/**
 * The live set of what this server serves: the built-in resources, added once at start, and the
 * custom resources of CustomResourceDefinitions, added, replaced and removed at runtime by the
 * CRD serving controller (lib/apiextensions/serving). Everything that used to read a fixed list
 * (the dispatcher, discovery, OpenAPI, request metrics, the garbage collector, the namespace
 * controller, webhook matching) reads this instead, or follows its changes.
 */
import { storeKey, StoreIndex } from './store-index';
import { ResourceDef } from '../scheme/types';
import { logger } from '../logger';
import type { GenericStore } from './store';
import { compareKubeAwareVersions } from '../meta/kube-version';

/** One served group/version/resource: its def and its store (none for a virtual resource). */
export interface ServedResource {
  def: ResourceDef;
  store?: GenericStore;
  /**
   * Listed in discovery and OpenAPI (default true). Kubernetes serves a custom resource once its
   * names are accepted but lists it only once it is Established.
   */
  listed?: boolean;
  /** The verbs discovery shows when they differ from the def's (a terminating CRD's resources). */
  discoveryVerbs?: string[];
}

/** One change of the served set, as listeners see it (after the maps are updated). */
export interface RegistryChange {
  added: readonly ServedResource[];
  removed: readonly ServedResource[];
  generation: number;
}

export type RegistryListener = (change: RegistryChange) => void;

/** What a consumer that follows the served set needs (the garbage collector, webhooks). */
export interface ServedSet {
  readonly stores: StoreIndex;
  onChange(listener: RegistryListener): () => void;
}

const keyOf = (def: ResourceDef) => storeKey(def.group, def.version, def.resource);

/** The served set. Listeners run synchronously and must only schedule work. */
export class ResourceRegistry implements ServedSet {
  /** The live store map the dispatcher reads per request (built-ins and custom resources). */
  readonly stores: StoreIndex = new Map();
  private readonly builtins = new Map<string, ServedResource>();
  private readonly builtinGroupResources = new Set<string>();
  private readonly custom = new Map<string, ServedResource>();
  private readonly listeners = new Set<RegistryListener>();
  private readonly listedCopies = new WeakMap<ServedResource, ResourceDef>();
  private snapshot?: readonly ResourceDef[];
  private documentedSnapshot?: readonly ResourceDef[];
  /** A listed copy (discovery verbs) → its entry's own def. */
  private readonly fullDefs = new WeakMap<ResourceDef, ResourceDef>();
  private builtinSnapshot?: readonly ResourceDef[];
  /** +1 per change: caches of what is derived from the served set key on it. */
  generation = 0;

  /** The built-in resources, once at start before anything serves. */
  addBuiltins(entries: readonly ServedResource[]): void {
    for (const e of entries) {
      const key = keyOf(e.def);
      this.builtins.set(key, e);
      this.builtinGroupResources.add(`${e.def.group}/${e.def.resource}`);
      if (e.store) this.stores.set(key, e.store);
    }
    this.changed(entries, []);
  }

  /** Whether `resource` of `group` is a built-in resource (at any version). */
  isBuiltin(group: string, resource: string): boolean {
    return this.builtinGroupResources.has(`${group}/${resource}`);
  }

  /** Whether this def is one of the built-in resources' own. */
  isBuiltinDef(def: ResourceDef): boolean {
    return this.builtins.get(keyOf(def))?.def === def;
  }

  /** The custom entry served at `group/version/resource`, if any. */
  customEntry(key: string): ServedResource | undefined {
    return this.custom.get(key);
  }

  /**
   * Adds custom entries in one change. An entry over a built-in resource is refused (built-ins
   * always win, as Kubernetes consults its built-in handlers first): its key is returned.
   */
  add(entries: readonly ServedResource[]): string[] {
    return this.replace([], entries);
  }

  /** Removes custom entries by `group/version/resource` key, in one change. */
  remove(keys: readonly string[]): void {
    this.replace(keys, []);
  }

  /**
   * Removes `removeKeys` and adds `entries` in one change (a CRD update: new defs and stores,
   * maybe other versions). Returns the keys refused because a built-in owns them.
   */
  replace(removeKeys: readonly string[], entries: readonly ServedResource[]): string[] {
    const removed: ServedResource[] = [];
    for (const key of removeKeys) {
      const old = this.custom.get(key);
      if (!old) continue;
      this.custom.delete(key);
      if (this.stores.get(key) === old.store) this.stores.delete(key);
      removed.push(old);
    }
    const added: ServedResource[] = [];
    const refused: string[] = [];
    for (const e of entries) {
      const key = keyOf(e.def);
      if (this.isBuiltin(e.def.group, e.def.resource)) {
        refused.push(key);
        continue;
      }
      const old = this.custom.get(key);
      if (old && !removed.includes(old)) removed.push(old);
      this.custom.set(key, e);
      if (e.store) this.stores.set(key, e.store);
      else this.stores.delete(key);
      added.push(e);
    }
    if (added.length || removed.length) this.changed(added, removed);
    return refused;
  }

  /**
   * What discovery, OpenAPI and request metrics show: the built-ins in their order, then the
   * listed custom resources by group, Kubernetes' version priority and resource. The same array
   * until the next change (consumers cache on its identity).
   */
  resources(): readonly ResourceDef[] {
    this.snapshot ??= [...this.builtins.values()].map((e) => e.def).concat(this.customDefs());
    return this.snapshot;
  }

  /**
   * What OpenAPI documents: as resources(), but each def with all its verbs. Kubernetes'
   * OpenAPI builder writes every route of a terminating CRD (only discovery shrinks its verbs),
   * so kubectl still finds the create operation and its fieldValidation parameter.
   */
  documentedResources(): readonly ResourceDef[] {
    this.documentedSnapshot ??= [...this.builtins.values()].map((e) => e.def)
      .concat(this.customDefs().map((d) => this.fullDefs.get(d) ?? d));
    return this.documentedSnapshot;
  }

  /** The built-in defs only (their OpenAPI documents do not depend on custom resources). */
  builtinResources(): readonly ResourceDef[] {
    this.builtinSnapshot ??= [...this.builtins.values()].map((e) => e.def);
    return this.builtinSnapshot;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  private customDefs(): ResourceDef[] {
    return [...this.custom.values()]
      .filter((e) => e.listed !== false)
      .map((e) => this.listedDef(e))
      .sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1)
        : a.version !== b.version ? compareKubeAwareVersions(b.version, a.version)
          : a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  /** The def as listed: a copy with the discovery verbs, made once per entry (stable identity). */
  private listedDef(e: ServedResource): ResourceDef {
    if (!e.discoveryVerbs) return e.def;
    let def = this.listedCopies.get(e);
    if (!def) {
      this.listedCopies.set(e, def = { ...e.def, verbs: [...e.discoveryVerbs] });
      this.fullDefs.set(def, e.def);
    }
    return def;
  }

  private changed(added: readonly ServedResource[], removed: readonly ServedResource[]): void {
    this.generation++;
    this.snapshot = undefined;
    this.documentedSnapshot = undefined;
    this.builtinSnapshot = undefined;
    const change: RegistryChange = { added, removed, generation: this.generation };
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (err) {
        logger.error('resource registry: a change listener failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}
