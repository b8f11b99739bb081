/**
 * The pvc-protection controller (Kubernetes' PVC protection controller): removes the
 * `<labelDomain>/pvc-protection` finalizer from a claim being deleted once no pod uses it, so the
 * claim goes; and adds the finalizer to live claims that lack it (made before
 * StorageObjectInUseProtection was enabled).
 *
 * A pod uses a claim when it is scheduled (spec.nodeName set: an unscheduled pod will not start
 * with a claim being deleted, the scheduler refuses it) and names it in a
 * `persistentVolumeClaim.claimName` volume, or has an ephemeral volume whose generated claim
 * `<pod>-<volume>` it is and controls (unless the pod is shut down: deleted with grace period
 * 0). As in Kubernetes, a pod that ran to Succeeded or Failed still counts until it is deleted
 * (its volumes may not be unmounted yet). The watch-fed index answers "in use" at once; "unused"
 * is confirmed with a live list of the namespace's pods before the finalizer goes.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { decodeFromStorage } from '../storage/storage-codec';
import { Naming } from '../naming';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';
import { ephemeralClaimName } from '../registry/core/volumes/ephemeral';
import { pvcProtectionFinalizer } from '../admission/resources/protection-finalizers';
import { getOrUndefined, isDeletionCandidate, needsFinalizer, withoutFinalizer, withFinalizer } from './protection-finalizer-writes';

/** What the controller keeps of a pod. */
export interface PodClaimUse {
  uid: string;
  namespace: string;
  name: string;
  scheduled: boolean;
  /** Deleted with grace period 0 (or force-deleted): kubelet is done with it. */
  shutDown: boolean;
  /** Claims named by persistentVolumeClaim volumes. */
  claims: string[];
  /** Claims generated for its ephemeral volumes. */
  ephemeralClaims: string[];
}

/** The claims a pod refers to, read defensively by Kubernetes' field names. */
export function podClaimUse(pod: ApiObject): PodClaimUse {
  const spec = (pod.spec ?? {}) as { nodeName?: unknown; volumes?: unknown };
  const meta = pod.metadata ?? {};
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  const name = String(meta.name ?? '');
  const claims: string[] = [];
  const ephemeralClaims: string[] = [];
  for (const v of volumes) {
    const claimName = v?.persistentVolumeClaim?.claimName;
    if (typeof claimName === 'string' && claimName) claims.push(claimName);
    else if (v?.ephemeral && typeof v.name === 'string') ephemeralClaims.push(ephemeralClaimName(name, v.name));
  }
  return {
    uid: String(meta.uid ?? ''), namespace: String(meta.namespace ?? ''), name,
    scheduled: typeof spec.nodeName === 'string' && spec.nodeName !== '',
    shutDown: !!meta.deletionTimestamp && meta.deletionGracePeriodSeconds === 0,
    claims, ephemeralClaims,
  };
}

/** podUsesPVC: does this pod keep `claim` from going? */
export function podUsesClaim(use: PodClaimUse, claim: ApiObject): boolean {
  if (!use.scheduled) return false;
  const name = claim.metadata?.name as string;
  if (use.claims.includes(name)) return true;
  if (use.shutDown || !use.ephemeralClaims.includes(name)) return false;
  // The generated name alone is not enough: the claim must be the one made for this pod.
  return (claim.metadata?.ownerReferences ?? []).some((r) => r?.controller === true && r.uid === use.uid);
}

const FEED_LABEL = 'pvc protection controller';

export class PvcProtectionController {
  private readonly queue: WorkQueue;
  private readonly feeds: ResourceFeed[] = [];
  private readonly finalizer: string;
  private readonly fieldManager: string;
  /** Pod key -> what it uses; claim key -> pods naming it. */
  private readonly pods = new Map<string, PodClaimUse>();
  private readonly podsByClaim = new Map<string, Set<string>>();

  constructor(private readonly claimStore: GenericStore, private readonly podStore: GenericStore, naming: Naming) {
    this.finalizer = pvcProtectionFinalizer(naming);
    this.fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
    this.queue = new WorkQueue((key) => this.sync(key), {
      onError: (key, err) => logger.warn(`${FEED_LABEL}: will retry`, { claim: key, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller when the server has core pods and persistentvolumeclaims, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming): PvcProtectionController | undefined {
    const all = [...stores];
    const find = (resource: string) => all.find((s) => s.def.group === '' && s.def.resource === resource);
    const claims = find('persistentvolumeclaims');
    const pods = find('pods');
    return claims && pods ? new PvcProtectionController(claims, pods, naming) : undefined;
  }

  async start(): Promise<void> {
    const podFeed = new ResourceFeed(this.podStore, { upsert: (p) => this.podChanged(p), remove: (p) => this.podRemoved(p) }, FEED_LABEL);
    await podFeed.start();
    this.feeds.push(podFeed);
    const claimFeed = new ResourceFeed(this.claimStore, { upsert: (c) => this.claimChanged(c), remove: () => undefined }, FEED_LABEL,
      { metadataOnly: true, readsOnly: ['finalizers', 'deletionTimestamp'] });
    await claimFeed.start();
    this.feeds.push(claimFeed);
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.feeds.map((f) => f.stop()));
  }

  private claimChanged(claim: ApiObject): void {
    if (needsFinalizer(claim, this.finalizer) || isDeletionCandidate(claim, this.finalizer)) {
      this.queue.add(`${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`);
    }
  }

  private podChanged(pod: ApiObject): void {
    const use = podClaimUse(pod);
    const key = `${use.namespace}/${use.name}`;
    this.index(key, use);
    // A running scheduled pod cannot free a claim; one that is unscheduled, ended or deleted may.
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (use.scheduled && phase !== 'Succeeded' && phase !== 'Failed' && !use.shutDown) return;
    this.enqueueClaims(use);
  }

  private podRemoved(pod: ApiObject): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const use = this.pods.get(key);
    if (!use || (pod.metadata?.uid && use.uid !== pod.metadata.uid)) return;
    this.index(key, undefined);
    this.enqueueClaims(use);
  }

  private enqueueClaims(use: PodClaimUse): void {
    for (const c of [...use.claims, ...use.ephemeralClaims]) this.queue.add(`${use.namespace}/${c}`);
  }

  private index(podKey: string, use: PodClaimUse | undefined): void {
    const old = this.pods.get(podKey);
    for (const c of old ? [...old.claims, ...old.ephemeralClaims] : []) {
      const set = this.podsByClaim.get(`${old!.namespace}/${c}`);
      set?.delete(podKey);
      if (set && !set.size) this.podsByClaim.delete(`${old!.namespace}/${c}`);
    }
    if (!use) {
      this.pods.delete(podKey);
      return;
    }
    this.pods.set(podKey, use);
    for (const c of [...use.claims, ...use.ephemeralClaims]) {
      const k = `${use.namespace}/${c}`;
      if (!this.podsByClaim.has(k)) this.podsByClaim.set(k, new Set());
      this.podsByClaim.get(k)!.add(podKey);
    }
  }

  private async sync(claimKey: string): Promise<void> {
    const slash = claimKey.indexOf('/');
    const namespace = claimKey.slice(0, slash);
    const name = claimKey.slice(slash + 1);
    const claim = await getOrUndefined(this.claimStore, namespace, name);
    if (!claim) return;
    const ctx = { namespace };
    const opts = { dryRun: false, fieldManager: this.fieldManager, precondition: claim.metadata?.resourceVersion };
    if (isDeletionCandidate(claim, this.finalizer)) {
      if (await this.isBeingUsed(claim)) return;
      await this.claimStore.updateWith(ctx, name, (cur) => withoutFinalizer(cur, this.finalizer), opts);
      return;
    }
    if (needsFinalizer(claim, this.finalizer)) await this.claimStore.updateWith(ctx, name, (cur) => withFinalizer(cur, this.finalizer), opts);
  }

  /** The index first; an unused verdict only after a live list of the namespace's pods agrees. */
  private async isBeingUsed(claim: ApiObject): Promise<boolean> {
    const namespace = claim.metadata?.namespace as string;
    for (const podKey of this.podsByClaim.get(`${namespace}/${claim.metadata?.name}`) ?? []) {
      const use = this.pods.get(podKey);
      if (use && podUsesClaim(use, claim)) return true;
    }
    const live = await this.podStore.storage.range(this.podStore.collectionPrefix(namespace));
    for (const kv of live.kvs) {
      let pod: ApiObject;
      try {
        pod = decodeFromStorage(kv.value, kv.modRevision);
      } catch {
        continue;
      }
      if (podUsesClaim(podClaimUse(pod), claim)) return true;
    }
    return false;
  }
}
