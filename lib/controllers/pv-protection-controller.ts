/**
 * The pv-protection controller (Kubernetes' PV protection controller): removes the
 * `<labelDomain>/pv-protection` finalizer from a volume being deleted once it is no longer
 * Bound (status.phase, which the binder sets while a claim is bound to it), so the volume goes;
 * and adds the finalizer to live volumes that lack it (made before
 * StorageObjectInUseProtection was enabled).
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';
import { pvProtectionFinalizer } from '../admission/resources/protection-finalizers';
import { getOrUndefined, isDeletionCandidate, needsFinalizer, withoutFinalizer, withFinalizer } from './protection-finalizer-writes';

/** isBeingUsed: a volume is in use while its phase is Bound. */
export const volumeInUse = (pv: ApiObject): boolean => (pv.status as { phase?: string } | undefined)?.phase === 'Bound';

export class PvProtectionController {
  private readonly queue: WorkQueue;
  private feed?: ResourceFeed;
  private readonly finalizer: string;
  private readonly fieldManager: string;

  constructor(private readonly volumes: GenericStore, naming: Naming) {
    this.finalizer = pvProtectionFinalizer(naming);
    this.fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
    this.queue = new WorkQueue((name) => this.sync(name), {
      onError: (name, err) => logger.warn('pv protection controller: will retry', { volume: name, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller when the server has core persistentvolumes, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming): PvProtectionController | undefined {
    const volumes = [...stores].find((s) => s.def.group === '' && s.def.resource === 'persistentvolumes');
    return volumes ? new PvProtectionController(volumes, naming) : undefined;
  }

  async start(): Promise<void> {
    // A phase change of a volume being deleted mentions deletionTimestamp, so it is handed over.
    this.feed = new ResourceFeed(this.volumes, {
      upsert: (pv) => {
        if (needsFinalizer(pv, this.finalizer) || isDeletionCandidate(pv, this.finalizer)) this.queue.add(String(pv.metadata?.name ?? ''));
      },
      remove: () => undefined,
    }, 'pv protection controller', { metadataOnly: true, readsOnly: ['finalizers', 'deletionTimestamp'] });
    await this.feed.start();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await this.feed?.stop();
  }

  private async sync(name: string): Promise<void> {
    const pv = await getOrUndefined(this.volumes, undefined, name);
    if (!pv) return;
    const opts = { dryRun: false, fieldManager: this.fieldManager, precondition: pv.metadata?.resourceVersion };
    if (isDeletionCandidate(pv, this.finalizer)) {
      if (!volumeInUse(pv)) await this.volumes.updateWith({}, name, (cur) => withoutFinalizer(cur, this.finalizer), opts);
      return;
    }
    if (needsFinalizer(pv, this.finalizer)) await this.volumes.updateWith({}, name, (cur) => withFinalizer(cur, this.finalizer), opts);
  }
}
