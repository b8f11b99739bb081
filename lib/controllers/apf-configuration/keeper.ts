/**
 * API priority and fairness' configuration, kept on every replica (not leader-elected: Kubernetes
 * runs it as the `priority-and-fairness-config-producer` post-start hook of every kube-apiserver
 * that serves the flowcontrol kinds, whatever --enable-priority-and-fairness says, and the config
 * consumer's status writes in every one that has priority and fairness on):
 *
 * - the producer (ensure.ts): a first pass at start, retried every second for up to five
 *   minutes (the start fails after that, as the hook does), then a pass every minute; besides,
 *   a change to or removal of an object with a bootstrap name or the autoupdate annotation brings
 *   the next pass forward, so a deleted suggested object or a stomped mandatory one is back within
 *   a moment rather than a minute (the end state is Kubernetes').
 * - the consumer's status (dangling.ts), only with `writeConditions` (priority and fairness on):
 *   every FlowSchema's `Dangling` condition, rewritten through `/status` when the level it names
 *   appears or goes.
 *
 * `/readyz/poststarthook/priority-and-fairness-config-producer` fails until the first pass is done.
 */
import { GenericStore } from '../../registry/store';
import { ApiError } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { ResourceFeed } from '../../registry/resource-feed';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { Naming } from '../../naming';
import { HealthChecks } from '../../api/health';
import {
  AUTO_UPDATE_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
} from '../../registry/flowcontrol/bootstrap-configuration';
import { EnsureTarget, ensureBootstrapConfiguration } from './ensure';
import { CONSUMER_FIELD_MANAGER, danglingUpToDate, desiredDangling, priorityLevelNameOf, withDangling } from './dangling';

export const PRODUCER_HOOK = 'poststarthook/priority-and-fairness-config-producer';
const BOOTSTRAP_NAMES = new Set([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS, ...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]
  .map((o) => o.metadata.name));

export interface KeeperOptions {
  log: { info(msg: string, meta?: object): void; warn(msg: string, meta?: object): void };
  health?: HealthChecks;
  /** Kubernetes: one minute. */
  periodMs?: number;
  /** How long the first pass is retried (Kubernetes: five minutes). */
  firstPassTimeoutMs?: number;
  /** Keep FlowSchemas' Dangling conditions (the config consumer: --enable-priority-and-fairness). */
  writeConditions: boolean;
  /** How soon after a change to a bootstrap object the next pass runs. */
  nudgeDelayMs?: number;
}

const rfc3339Now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export class ApfConfigurationKeeper {
  private readonly flowSchemas = new Map<string, ApiObject>();
  private readonly levels = new Set<string>();
  private feeds: ResourceFeed[] = [];
  private periodic?: NodeJS.Timeout;
  private nudge?: NodeJS.Timeout;
  private statusTimer?: NodeJS.Timeout;
  private passRunning?: Promise<void>;
  private stopped = false;
  private ready = false;

  constructor(private readonly fsStore: GenericStore, private readonly plStore: GenericStore, private readonly opts: KeeperOptions) {}

  /** The keeper over the flavor's flowcontrol stores; undefined when the server does not serve them. */
  static forStores(stores: StoreIndex, naming: Naming, opts: KeeperOptions): ApfConfigurationKeeper | undefined {
    const group = naming.group('flowcontrol.apiserver');
    const fs = stores.get(storeKey(group, 'v1', 'flowschemas')) as GenericStore | undefined;
    const pl = stores.get(storeKey(group, 'v1', 'prioritylevelconfigurations')) as GenericStore | undefined;
    return fs && pl ? new ApfConfigurationKeeper(fs, pl, opts) : undefined;
  }

  private target(store: GenericStore): EnsureTarget {
    return { store, apiVersion: `${store.def.group}/${store.def.version}`, log: this.opts.log };
  }

  /** One producer pass; passes never overlap. */
  pass(): Promise<void> {
    if (this.passRunning) return this.passRunning;
    this.passRunning = ensureBootstrapConfiguration(this.target(this.fsStore), this.target(this.plStore))
      .finally(() => { this.passRunning = undefined; });
    return this.passRunning;
  }

  async start(): Promise<void> {
    this.opts.health?.add(PRODUCER_HOOK, async () => { if (!this.ready) throw new Error('not finished'); });
    const deadline = Date.now() + (this.opts.firstPassTimeoutMs ?? 5 * 60_000);
    for (;;) {
      try {
        await this.pass();
        break;
      } catch (err) {
        if (this.stopped) return;
        if (Date.now() >= deadline) throw new Error(`unable to initialize APF bootstrap configuration: ${(err as Error).message}`);
        this.opts.log.warn('APF bootstrap ensurer ran into error, will retry later', { error: (err as Error).message });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    this.ready = true;
    const schedule = () => {
      this.periodic = setTimeout(() => { void this.runPass().finally(() => { if (!this.stopped) schedule(); }); }, this.opts.periodMs ?? 60_000);
    };
    schedule();
    this.feeds = [
      new ResourceFeed(this.fsStore, {
        upsert: (o) => { this.flowSchemas.set(o.metadata?.name ?? '', o); this.changed(o); },
        remove: (o) => { this.flowSchemas.delete(o.metadata?.name ?? ''); this.changed(o); },
      }, 'apf flowschemas'),
      new ResourceFeed(this.plStore, {
        upsert: (o) => { this.levels.add(o.metadata?.name ?? ''); this.changed(o); },
        remove: (o) => { this.levels.delete(o.metadata?.name ?? ''); this.changed(o); },
      }, 'apf prioritylevelconfigurations'),
    ];
    for (const feed of this.feeds) await feed.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.periodic, this.nudge, this.statusTimer]) if (t) clearTimeout(t);
    await Promise.all(this.feeds.map((f) => f.stop()));
    await this.passRunning?.catch(() => undefined);
  }

  private async runPass(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.pass();
    } catch (err) {
      this.opts.log.warn('APF bootstrap ensurer ran into error, will retry later', { error: (err as Error).message });
    }
  }

  /** A bootstrap object, or one that carries the autoupdate annotation (a candidate for removal), brings the next pass forward. */
  private changed(obj: ApiObject): void {
    if (this.stopped) return;
    if (this.opts.writeConditions) this.statusTimer ??= setTimeout(() => { this.statusTimer = undefined; void this.syncStatus(); }, 20);
    const concerns = BOOTSTRAP_NAMES.has(obj.metadata?.name ?? '') || obj.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] !== undefined;
    if (concerns && !this.nudge) {
      this.nudge = setTimeout(() => { this.nudge = undefined; void this.runPass(); }, this.opts.nudgeDelayMs ?? 200);
    }
  }

  /** Writes every FlowSchema's Dangling condition that is not what the levels now say. */
  private async syncStatus(): Promise<void> {
    for (const fs of [...this.flowSchemas.values()]) {
      if (this.stopped) return;
      const want = desiredDangling(fs, this.levels.has(priorityLevelNameOf(fs)));
      if (danglingUpToDate(fs, want)) continue;
      try {
        await this.fsStore.updateWith({ namespace: undefined }, fs.metadata?.name ?? '', (current) => {
          const now = desiredDangling(current, this.levels.has(priorityLevelNameOf(current)));
          return danglingUpToDate(current, now) ? current : withDangling(current, now, rfc3339Now());
        }, { dryRun: false, fieldManager: CONSUMER_FIELD_MANAGER, subresource: 'status' });
      } catch (err) {
        if (err instanceof ApiError && (err.reason === 'NotFound' || err.reason === 'Conflict')) continue;
        this.opts.log.warn('unable to write a FlowSchema status', { name: fs.metadata?.name, error: (err as Error).message });
      }
    }
  }
}
