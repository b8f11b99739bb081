/**
 * What the CRD status controllers share: the CRDs followed from the watch cache (with the
 * controller's own writes overlaid, as Kubernetes' mutation cache does, so a controller never
 * decides on a status older than the one it wrote), one work queue, and status writes through
 * `/status` with a compare on the resourceVersion the decision was made from. A conflict or a
 * CRD gone is not an error: the watch brings the newer state and the key is looked at again.
 */
import { GenericStore } from '../../registry/store';
import { ApiObject } from '../../scheme/types';
import { logger } from '../../logger';
import { ResourceFeed } from '../../registry/resource-feed';
import { WorkQueue } from '../../controllers/work-queue';

const rv = (o: ApiObject | undefined) => Number(o?.metadata?.resourceVersion ?? 0);

export abstract class CrdStatusController {
  protected readonly crds = new Map<string, ApiObject>();
  private readonly queue: WorkQueue;
  private feed?: ResourceFeed;

  constructor(protected readonly store: GenericStore, private readonly label: string, protected readonly fieldManager: string, workers = 1) {
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers,
      onError: (name, err) => logger.warn(`${label}: will retry`, { crd: name, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  async start(): Promise<void> {
    this.feed = new ResourceFeed(this.store, {
      upsert: (crd) => this.observe(crd),
      remove: (crd) => this.forget(crd.metadata?.name as string),
    }, this.label);
    await this.feed.start();
  }

  async stop(): Promise<void> {
    await this.feed?.stop();
    await this.queue.stop();
  }

  /** Nothing queued or in progress (tests). */
  get idle(): boolean {
    return this.queue.idle;
  }

  protected enqueue(name: string): void {
    this.queue.add(name);
  }

  /** A CRD was removed (its names are free again). */
  protected forget(name: string): void {
    if (!name) return;
    this.crds.delete(name);
    this.removed(name);
  }

  /** Decides and writes the CRD named `name`. */
  protected abstract sync(name: string): Promise<void>;

  /** Told after a CRD left; default nothing. */
  protected removed(_name: string): void {}

  /** Whether a newly observed state (`previous` the one known before) needs a sync; default always. */
  protected wants(_crd: ApiObject, _previous: ApiObject | undefined): boolean {
    return true;
  }

  private observe(crd: ApiObject): void {
    const name = crd.metadata?.name as string;
    if (!name) return;
    // Our own write may be newer than what the watch has delivered so far.
    const known = this.crds.get(name);
    if (known && known.metadata?.uid === crd.metadata?.uid && rv(known) > rv(crd)) return;
    this.crds.set(name, crd);
    if (this.wants(crd, known)) this.enqueue(name);
  }

  /**
   * Writes `next`'s status over `from` (the state decided on) through `/status`. Returns the
   * stored CRD, or undefined when it changed or went meanwhile.
   */
  protected async writeStatus(from: ApiObject, next: ApiObject): Promise<ApiObject | undefined> {
    const name = from.metadata?.name as string;
    try {
      const { object } = await this.store.updateWith({}, name, (current) => ({ ...current, status: next.status }), {
        dryRun: false, subresource: 'status', fieldManager: this.fieldManager, precondition: String(from.metadata?.resourceVersion ?? ''),
      });
      const known = this.crds.get(name);
      if (!known || rv(object) > rv(known)) this.crds.set(name, object);
      return object;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 404 || code === 409) return undefined;
      throw err;
    }
  }
}
