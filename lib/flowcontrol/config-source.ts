/**
 * Where the dispatcher's configuration comes from: the FlowSchema and PriorityLevelConfiguration
 * stores (their watch caches, followed change by change with ResourceFeeds, as kube's APF
 * controller follows its informers). Until both stores hold objects (the first moments after
 * start, before the configuration keeper has created them; or a server not serving the kinds),
 * the bootstrap configuration is used. Changes are digested together after a short debounce.
 */
import { randomUUID } from 'node:crypto';
import { ResourceFeed } from '../registry/resource-feed';
import type { GenericStore } from '../registry/store';
import type { ApiObject } from '../scheme/types';
import { logger } from '../logger';
import type { Dispatcher } from './dispatcher';
import type { FlowControlConfiguration, FlowSchema, PriorityLevelConfiguration } from './types';

const DEBOUNCE_MS = 50;

export class ConfigSource {
  private readonly flowSchemas = new Map<string, FlowSchema>();
  private readonly levels = new Map<string, PriorityLevelConfiguration>();
  private readonly feeds: ResourceFeed[] = [];
  private pending?: NodeJS.Timeout;
  private started = false;

  private readonly bootstrap: FlowControlConfiguration;

  constructor(private readonly dispatcher: Dispatcher, bootstrap: FlowControlConfiguration,
    stores: { flowSchemas?: GenericStore; priorityLevels?: GenericStore }) {
    // Until the objects are stored they have no uid: each bootstrap object gets one for this
    // process's life, so that the response headers always name something.
    this.bootstrap = {
      flowSchemas: bootstrap.flowSchemas.map((o) => ({ ...o, metadata: { ...o.metadata, uid: o.metadata.uid ?? randomUUID() } })),
      priorityLevels: bootstrap.priorityLevels.map((o) => ({ ...o, metadata: { ...o.metadata, uid: o.metadata.uid ?? randomUUID() } })),
    };
    const follow = <T>(store: GenericStore | undefined, into: Map<string, T>, label: string) => {
      if (!store) return;
      this.feeds.push(new ResourceFeed(store, {
        upsert: (o: ApiObject) => { into.set(o.metadata?.name ?? '', o as unknown as T); this.changed(); },
        remove: (o: ApiObject) => { into.delete(o.metadata?.name ?? ''); this.changed(); },
      }, label));
    };
    follow(stores.flowSchemas, this.flowSchemas, 'apf-flowschemas');
    follow(stores.priorityLevels, this.levels, 'apf-prioritylevelconfigurations');
  }

  /** The configuration in force now. */
  current(): FlowControlConfiguration {
    if (this.flowSchemas.size === 0 || this.levels.size === 0) return this.bootstrap;
    return { flowSchemas: [...this.flowSchemas.values()], priorityLevels: [...this.levels.values()] };
  }

  /** Applies the bootstrap configuration, then the stores' as they are read. */
  async start(): Promise<void> {
    this.dispatcher.configure(this.current());
    await Promise.all(this.feeds.map((f) => f.start()));
    this.started = true;
    this.apply();
  }

  async stop(): Promise<void> {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    await Promise.all(this.feeds.map((f) => f.stop()));
  }

  private changed(): void {
    if (!this.started || this.pending) return;
    this.pending = setTimeout(() => { this.pending = undefined; this.apply(); }, DEBOUNCE_MS);
    this.pending.unref();
  }

  private apply(): void {
    try {
      this.dispatcher.configure(this.current());
    } catch (err) {
      // A malformed object the kinds' validation let through must not stop dispatching.
      logger.error('priority and fairness: the configuration could not be applied; the previous one stays', { err: (err as Error).message });
    }
  }
}
