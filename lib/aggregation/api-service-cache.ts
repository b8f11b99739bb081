/**
 * Every APIService in memory (kube-aggregator's APIService lister), followed from the watch cache
 * by a ResourceFeed: the proxy, discovery, OpenAPI and the availability controller read it on
 * every request or sync, never etcd. Listeners hear the name of each APIService that changed.
 */
import { ResourceFeed } from '../registry/resource-feed';
import type { GenericStore } from '../registry/store';
import type { ApiService } from './api-service';

/** How often until() asks again without a change. */
const UNTIL_POLL_MS = 20;

export type ApiServiceListener = (name: string, now: ApiService | undefined) => void;

export class ApiServiceCache {
  private readonly byName = new Map<string, ApiService>();
  /** `<group>/<version>` -> APIService name. */
  private readonly byGroupVersion = new Map<string, string>();
  private readonly listeners: ApiServiceListener[] = [];
  /** The wake-ups of until() calls waiting for a change. */
  private readonly waiters = new Set<() => void>();
  private feed?: ResourceFeed;
  private snapshot?: readonly ApiService[];
  /** Bumped on every change: a key for what is derived from the set (discovery documents). */
  generation = 0;

  constructor(readonly store: GenericStore) {}

  async start(): Promise<void> {
    this.feed = new ResourceFeed(this.store, {
      upsert: (obj) => this.set(obj as ApiService),
      remove: (obj) => this.remove(obj.metadata?.name ?? ''),
    }, 'apiservice-cache');
    await this.feed.start();
  }

  async stop(): Promise<void> {
    await this.feed?.stop();
  }

  /** Called with the name of every APIService that changed (created, updated, deleted). */
  onChange(listener: ApiServiceListener): void {
    this.listeners.push(listener);
  }

  /**
   * Resolves true once `done()` holds, asked now, after every change, when `also` settles (what
   * changes elsewhere: a work queue) and every 20 ms, or false after `timeoutMs`. A start waits on
   * this rather than on a timer alone, so it goes on as soon as what it waits for has happened.
   */
  async until(done: () => boolean, timeoutMs: number, also?: Promise<unknown>): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const wakeAll = () => this.wakeWaiters();
    void also?.then(wakeAll, wakeAll);
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => { clearTimeout(timer); this.waiters.delete(wake); resolve(); };
        const timer = setTimeout(wake, Math.min(UNTIL_POLL_MS, left));
        this.waiters.add(wake);
      });
    }
    return true;
  }

  get(name: string): ApiService | undefined {
    return this.byName.get(name);
  }

  /** The APIService registered for a group-version, if any. */
  forGroupVersion(group: string, version: string): ApiService | undefined {
    const name = this.byGroupVersion.get(`${group}/${version}`);
    return name === undefined ? undefined : this.byName.get(name);
  }

  /** Every APIService; the same array until the next change (do not mutate). */
  list(): readonly ApiService[] {
    return (this.snapshot ??= [...this.byName.values()]);
  }

  private set(obj: ApiService): void {
    const name = obj.metadata?.name ?? '';
    const old = this.byName.get(name);
    if (old) this.byGroupVersion.delete(`${old.spec?.group ?? ''}/${old.spec?.version ?? ''}`);
    this.byName.set(name, obj);
    this.byGroupVersion.set(`${obj.spec?.group ?? ''}/${obj.spec?.version ?? ''}`, name);
    this.changed(name, obj);
  }

  private remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    const gv = `${old.spec?.group ?? ''}/${old.spec?.version ?? ''}`;
    if (this.byGroupVersion.get(gv) === name) this.byGroupVersion.delete(gv);
    this.changed(name, undefined);
  }

  private changed(name: string, now: ApiService | undefined): void {
    this.snapshot = undefined;
    this.generation++;
    for (const l of this.listeners) l(name, now);
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
