/**
 * kube-controller-manager's validatingadmissionpolicy-status-controller (run here in the server's
 * leader-elected controller set): for every ValidatingAdmissionPolicy whose metadata.generation is
 * ahead of status.observedGeneration, type-checks its expressions (type-check.ts) and writes
 * `status.observedGeneration` and `status.typeChecking.expressionWarnings` through `/status`, as
 * Kubernetes' apply of the status does (no warnings: an empty typeChecking).
 */
import { GenericStore } from '../../registry/store';
import { ResourceFeed } from '../../registry/resource-feed';
import { storeKey } from '../../registry/store-index';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { logger } from '../../logger';
import { typeCheckPolicy } from './type-check';

const FIELD_MANAGER = 'validatingadmissionpolicy-status';

export class PolicyStatusController {
  private feed?: ResourceFeed;
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;

  constructor(private readonly policies: GenericStore, private readonly stores: () => Iterable<GenericStore>) {}

  /** The controller, or undefined when ValidatingAdmissionPolicy is not served. */
  static forStores(stores: Map<string, GenericStore>, naming: Naming): PolicyStatusController | undefined {
    const policies = stores.get(storeKey(naming.group('admissionregistration'), 'v1', 'validatingadmissionpolicies'));
    return policies ? new PolicyStatusController(policies, () => stores.values()) : undefined;
  }

  async start(): Promise<void> {
    this.feed = new ResourceFeed(this.policies, {
      upsert: (o) => { if (this.behind(o)) this.enqueue(o.metadata?.name ?? ''); },
      remove: (o) => { this.queue.delete(o.metadata?.name ?? ''); },
    }, 'validatingadmissionpolicy-status');
    await this.feed.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.feed?.stop();
  }

  private behind(o: ApiObject): boolean {
    const observed = Number((o.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0);
    return Number(o.metadata?.generation ?? 0) > observed;
  }

  private enqueue(name: string): void {
    if (!name) return;
    this.queue.add(name);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size && !this.stopped) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          await this.reconcile(name);
        } catch (err) {
          if ((err as { code?: number }).code === 404) continue;
          logger.warn('validatingadmissionpolicy-status: status not written', { policy: name, error: (err as Error).message });
          setTimeout(() => this.enqueue(name), 1000).unref();
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async reconcile(name: string): Promise<void> {
    await this.policies.updateWith({}, name, (current) => {
      if (!this.behind(current)) return current;
      const warnings = typeCheckPolicy(current, this.stores());
      const status = { ...((current.status as Record<string, unknown>) ?? {}) };
      status.observedGeneration = current.metadata?.generation;
      status.typeChecking = warnings.length ? { expressionWarnings: warnings } : {};
      return { ...current, status };
    }, { dryRun: false, subresource: 'status', fieldManager: FIELD_MANAGER });
  }
}
