/**
 * ClusterRole aggregation (Kubernetes' clusterrole-aggregation controller): a ClusterRole with an
 * `aggregationRule` gets as `rules` the union of the rules of every other ClusterRole that one
 * of its `clusterRoleSelectors` matches: selector by selector, matching roles by name, each rule
 * once, in that order. Kept current as roles appear, change labels or rules, or go: any change
 * queues every aggregating role (there are few, and one role's labels may have stopped matching).
 *
 * Reads the ClusterRoles from a feed of the watch cache; writes only when the rules differ, as a
 * guaranteedUpdate (compare on mod_revision, retried from a fresh read), so replicas that compute
 * the same answer write once between them.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { clone } from '../registry/system-fields';
import { StoreIndex, storeKey } from '../registry/store-index';
import { labelSelectorFromObject, matchesLabels } from '../meta/label-selector';
import { PolicyRule, RoleObject } from '../registry/rbac/types';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';

export const FIELD_MANAGER = 'clusterrole-aggregation-controller';
const LABEL = 'clusterrole aggregation';

/** A rule in one comparable form: absent, null and empty lists are the same. */
function ruleKey(r: PolicyRule): string {
  const l = (v: readonly string[] | null | undefined) => v ?? [];
  return JSON.stringify([l(r.verbs), l(r.apiGroups), l(r.resources), l(r.resourceNames), l(r.nonResourceURLs)]);
}

/** Whether two rule lists are the same rules in the same order. */
export function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]));
}

/**
 * The rules `aggregate` should have, from `roles` (every ClusterRole); undefined when it has no
 * aggregationRule or one of its selectors is not valid (nothing is then written, as Kubernetes).
 */
export function aggregatedRules(aggregate: RoleObject, roles: Iterable<RoleObject>): PolicyRule[] | undefined {
  const rule = aggregate.aggregationRule;
  if (!rule) return undefined;
  const self = aggregate.metadata?.name;
  const byName = [...roles].filter((r) => r.metadata?.name !== self)
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const raw of rule.clusterRoleSelectors ?? []) {
    const { selector } = labelSelectorFromObject(raw ?? {});
    if (!selector) return undefined;
    for (const role of byName) {
      if (!matchesLabels(selector, role.metadata?.labels)) continue;
      for (const r of role.rules ?? []) {
        const key = ruleKey(r);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(r);
      }
    }
  }
  return out;
}

export class ClusterRoleAggregationController {
  /** name -> the ClusterRole as the feed last reported it. */
  private readonly roles = new Map<string, RoleObject>();
  private readonly feed: ResourceFeed;
  private readonly queue: WorkQueue;
  private started = false;

  constructor(private readonly clusterRoles: GenericStore) {
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers: 1,
      maxDelayMs: 10_000,
      onError: (name, err) => logger.warn(`${LABEL}: will retry`, { clusterRole: name, error: err instanceof Error ? err.message : String(err) }),
    });
    this.feed = new ResourceFeed(clusterRoles, {
      upsert: (o) => { this.roles.set(o.metadata?.name ?? '', o as RoleObject); this.changed(); },
      remove: (o) => { this.roles.delete(o.metadata?.name ?? ''); this.changed(); },
    }, LABEL);
  }

  /** The controller when the server has the clusterroles resource of `rbacGroup`, else undefined. */
  static forStores(stores: StoreIndex, rbacGroup: string): ClusterRoleAggregationController | undefined {
    const store = stores.get(storeKey(rbacGroup, 'v1', 'clusterroles'));
    return store ? new ClusterRoleAggregationController(store) : undefined;
  }

  /** Takes the current ClusterRoles, then brings every aggregating one up to date and follows changes. */
  async start(): Promise<void> {
    await this.feed.start();
    this.started = true;
    this.changed();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await this.feed.stop();
  }

  /** Every change may concern every aggregate; the initial state is queued once, after it is complete. */
  private changed(): void {
    if (!this.started) return;
    for (const [name, role] of this.roles) if (role.aggregationRule) this.queue.add(name);
  }

  private async sync(name: string): Promise<void> {
    const cached = this.roles.get(name);
    if (!cached?.aggregationRule) return;
    const wanted = aggregatedRules(cached, this.roles.values());
    if (!wanted || sameRules(wanted, cached.rules ?? [])) return;
    const opts = { dryRun: false, fieldManager: FIELD_MANAGER };
    try {
      await this.clusterRoles.guaranteedUpdate({}, name, (current: ApiObject) => {
        // The stored copy may be newer than the feed's: its own rule decides, the feed gives the rest.
        const rules = aggregatedRules(current as RoleObject, this.roles.values());
        if (!rules || sameRules(rules, (current as RoleObject).rules ?? [])) return undefined;
        const next: ApiObject = { ...current, rules: clone(rules) };
        next.metadata = { ...current.metadata, managedFields: this.clusterRoles.trackUpdate(current, next, opts, current.metadata?.managedFields) };
        return next;
      }, opts);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return; // deleted meanwhile
      throw err;
    }
  }
}
