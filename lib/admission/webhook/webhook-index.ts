/**
 * The webhooks of one kind (mutating or validating), sorted as Kubernetes calls them
 * (configuration name, then position in it) and bucketed by operation -> API group -> resource,
 * with `*` buckets at each level. A request looks up at most eight buckets: one that no webhook
 * can match allocates nothing and scans nothing. Versions, subresources, scope and selectors are
 * checked on the few candidates only (webhook-matcher.ts).
 */
import { ApiObject } from '../../scheme/types';
import { CompiledWebhook, compileConfiguration } from './compiled-webhook';

type Buckets = Map<string, Map<string, Map<string, CompiledWebhook[]>>>;

const WILDCARD = '*';

function bucketFor(buckets: Buckets, op: string, group: string, resource: string): CompiledWebhook[] {
  let byGroup = buckets.get(op);
  if (!byGroup) buckets.set(op, byGroup = new Map());
  let byResource = byGroup.get(group);
  if (!byResource) byGroup.set(group, byResource = new Map());
  let list = byResource.get(resource);
  if (!list) byResource.set(resource, list = []);
  return list;
}

export class WebhookIndex {
  private readonly configurations = new Map<string, ApiObject>();
  private hooks: CompiledWebhook[] = [];
  private buckets: Buckets = new Map();

  constructor(private readonly mutating: boolean) {}

  /** Every webhook, in call order. */
  all(): readonly CompiledWebhook[] {
    return this.hooks;
  }

  get size(): number {
    return this.hooks.length;
  }

  upsert(config: ApiObject): void {
    const name = config.metadata?.name;
    if (!name) return;
    this.configurations.set(name, config);
    this.rebuild();
  }

  remove(config: ApiObject): void {
    const name = config.metadata?.name;
    if (name && this.configurations.delete(name)) this.rebuild();
  }

  /**
   * The webhooks whose rules name this operation, group and resource (or `*` there), in call
   * order; undefined when there are none (the common case: no allocation).
   */
  candidates(operation: string, group: string, resource: string): CompiledWebhook[] | undefined {
    if (!this.hooks.length) return undefined;
    const lists = this.scratch;
    lists.length = 0;
    this.collect(this.buckets.get(operation), group, resource);
    this.collect(this.buckets.get(WILDCARD), group, resource);
    if (lists.length === 0) return undefined;
    if (lists.length === 1) return lists[0];
    // From several buckets: restore call order, each webhook once.
    const found = [...new Set(lists.flat())].sort((a, b) => a.order - b.order);
    lists.length = 0;
    return found;
  }

  /** Bucket lists found by candidates(): reused between calls (lookups are synchronous). */
  private readonly scratch: CompiledWebhook[][] = [];

  private collect(byGroup: Map<string, Map<string, CompiledWebhook[]>> | undefined, group: string, resource: string): void {
    if (!byGroup) return;
    this.collectResource(byGroup.get(group), resource);
    this.collectResource(byGroup.get(WILDCARD), resource);
  }

  private collectResource(byResource: Map<string, CompiledWebhook[]> | undefined, resource: string): void {
    if (!byResource) return;
    const exact = byResource.get(resource);
    if (exact) this.scratch.push(exact);
    const any = byResource.get(WILDCARD);
    if (any) this.scratch.push(any);
  }

  /** Configuration changes are rare: recompute everything from the stored objects. */
  private rebuild(): void {
    const names = [...this.configurations.keys()].sort();
    const hooks: CompiledWebhook[] = [];
    for (const name of names) hooks.push(...compileConfiguration(this.configurations.get(name)!, this.mutating));
    const buckets: Buckets = new Map();
    hooks.forEach((h, i) => {
      h.order = i;
      const keys = new Set<string>();
      for (const rule of h.rules) {
        for (const op of rule.operations) {
          for (const group of rule.apiGroups) {
            for (const res of rule.resources) {
              const slash = res.indexOf('/');
              const key = `${op}\u0000${group}\u0000${slash < 0 ? res : res.slice(0, slash)}`;
              if (keys.has(key)) continue;
              keys.add(key);
              const [o, g, r] = key.split('\u0000');
              bucketFor(buckets, o, g, r).push(h);
            }
          }
        }
      }
    });
    this.hooks = hooks;
    this.buckets = buckets;
  }
}
