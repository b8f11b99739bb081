/**
 * Generic ephemeral volumes (Kubernetes' ephemeral volume controller). For every pod volume with
 * `ephemeral.volumeClaimTemplate` it creates the PersistentVolumeClaim `<pod>-<volume>` in the
 * pod's namespace: labels and annotations from the template's metadata, the template's spec
 * unchanged, and an owner reference to the pod (controller, blockOwnerDeletion) so that the
 * garbage collector deletes the claim with the pod.
 *
 * A claim of that name that the pod does not control is never taken over. It is reported on the
 * pod as status condition `EphemeralVolumeConflict` = "True" (reason `ClaimNotOwnedByPod`,
 * message naming the claim, as Kubernetes' scheduler words it). When that claim goes, the
 * controller creates the pod's own claim and sets the condition to "False" (reason
 * `ClaimsOwnedByPod`). Driven by watches on pods and claims.
 */
import { GenericStore } from '../registry/store';
import { ApiObject, ObjectMeta } from '../scheme/types';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';
import { ephemeralClaimName } from '../registry/core/volumes/ephemeral';

/** The pod condition type this controller owns. */
export const EPHEMERAL_VOLUME_CONFLICT = 'EphemeralVolumeConflict';
export const FIELD_MANAGER = 'ephemeral-volume-controller';

interface PodCondition {
  type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; lastProbeTime?: string | null;
}

interface EphemeralVolume {
  name: string;
  template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
}

/** The pod's volumes that have an ephemeral claim template. */
export function ephemeralVolumes(pod: ApiObject): EphemeralVolume[] {
  const volumes = (pod.spec as { volumes?: unknown } | undefined)?.volumes;
  if (!Array.isArray(volumes)) return [];
  const out: EphemeralVolume[] = [];
  for (const v of volumes) {
    const template = v?.ephemeral?.volumeClaimTemplate;
    if (typeof v?.name === 'string' && template && typeof template === 'object') out.push({ name: v.name, template });
  }
  return out;
}

/** `<pod>-<volume>`: the name pod validation checks too. */
export const claimName = (pod: ApiObject, volume: { name: string }): string => ephemeralClaimName(pod.metadata?.name as string, volume.name);

/** The claim the controller creates for `volume` of `pod`. */
export function claimFor(pod: ApiObject, volume: EphemeralVolume): ApiObject {
  const meta: ObjectMeta = {
    name: claimName(pod, volume),
    ownerReferences: [{
      apiVersion: pod.apiVersion ?? 'v1', kind: pod.kind ?? 'Pod', name: pod.metadata?.name as string, uid: pod.metadata?.uid as string,
      controller: true, blockOwnerDeletion: true,
    }],
  };
  if (volume.template.metadata?.labels) meta.labels = { ...volume.template.metadata.labels };
  if (volume.template.metadata?.annotations) meta.annotations = { ...volume.template.metadata.annotations };
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta, spec: structuredClone(volume.template.spec ?? {}) };
}

/** metav1.IsControlledBy: the claim's controller reference is the pod (by uid). */
export const isControlledBy = (obj: ApiObject, owner: ApiObject): boolean =>
  (obj.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata?.uid);

const keyOf = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ''}/${name ?? ''}`;
const conditionsOf = (pod: ApiObject): PodCondition[] => {
  const c = (pod.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? c as PodCondition[] : [];
};

export class EphemeralVolumeController {
  private readonly queue: WorkQueue;
  private readonly feeds: ResourceFeed[] = [];
  /** claim key -> pods that want a claim of that name. */
  private readonly podsByClaim = new Map<string, Set<string>>();
  private readonly claimsByPod = new Map<string, string[]>();
  /** Pod key -> uid of a pod whose claims all exist and are its own: nothing to do until one goes. */
  private readonly satisfied = new Map<string, string>();

  constructor(private readonly pods: GenericStore, private readonly claims: GenericStore) {
    this.queue = new WorkQueue((key) => this.sync(key), {
      onError: (key, err) => logger.warn('ephemeral volume controller: will retry', { pod: key, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller when the server has both kinds (core pods and persistentvolumeclaims), else undefined. */
  static forStores(stores: Iterable<GenericStore>): EphemeralVolumeController | undefined {
    const all = [...stores];
    const find = (resource: string) => all.find((s) => s.def.group === '' && s.def.resource === resource);
    const pods = find('pods');
    const claims = find('persistentvolumeclaims');
    return pods && claims ? new EphemeralVolumeController(pods, claims) : undefined;
  }

  async start(): Promise<void> {
    const podFeed = new ResourceFeed(this.pods, { upsert: (p) => this.podChanged(p), remove: (p) => this.podRemoved(p) }, 'ephemeral volume controller');
    const claimFeed = new ResourceFeed(this.claims, {
      upsert: (c) => this.claimChanged(c, false),
      remove: (c) => this.claimChanged(c, true),
    }, 'ephemeral volume controller');
    await claimFeed.start();
    this.feeds.push(claimFeed);
    await podFeed.start();
    this.feeds.push(podFeed);
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.feeds.map((f) => f.stop()));
  }

  private podChanged(pod: ApiObject): void {
    const key = keyOf(pod.metadata?.namespace, pod.metadata?.name);
    const volumes = ephemeralVolumes(pod);
    this.index(key, volumes.map((v) => keyOf(pod.metadata?.namespace, claimName(pod, v))));
    if (!volumes.length || pod.metadata?.deletionTimestamp) return;
    if (this.satisfied.get(key) !== pod.metadata?.uid) this.queue.add(key);
  }

  private podRemoved(pod: ApiObject): void {
    const key = keyOf(pod.metadata?.namespace, pod.metadata?.name);
    this.index(key, []);
    this.satisfied.delete(key);
  }

  /** A claim that goes may unblock a pod; one that changes may now be (or no longer be) the pod's. */
  private claimChanged(claim: ApiObject, removed: boolean): void {
    const podKeys = this.podsByClaim.get(keyOf(claim.metadata?.namespace, claim.metadata?.name));
    if (!podKeys) return;
    for (const podKey of podKeys) {
      if (removed) this.satisfied.delete(podKey);
      if (!this.satisfied.has(podKey)) this.queue.add(podKey);
    }
  }

  private index(podKey: string, claimKeys: string[]): void {
    for (const old of this.claimsByPod.get(podKey) ?? []) {
      const set = this.podsByClaim.get(old);
      set?.delete(podKey);
      if (set && !set.size) this.podsByClaim.delete(old);
    }
    if (!claimKeys.length) {
      this.claimsByPod.delete(podKey);
      return;
    }
    this.claimsByPod.set(podKey, claimKeys);
    for (const k of claimKeys) {
      if (!this.podsByClaim.has(k)) this.podsByClaim.set(k, new Set());
      this.podsByClaim.get(k)!.add(podKey);
    }
  }

  private async sync(podKey: string): Promise<void> {
    const slash = podKey.indexOf('/');
    const namespace = podKey.slice(0, slash);
    const name = podKey.slice(slash + 1);
    const pod = await getOrUndefined(this.pods, namespace, name);
    // A pod being deleted gets no new claims (its own go with it).
    if (!pod || pod.metadata?.deletionTimestamp) return;
    const conflicts: string[] = [];
    for (const volume of ephemeralVolumes(pod)) {
      const claim = await this.ensureClaim(pod, volume);
      if (!isControlledBy(claim, pod)) {
        conflicts.push(`PVC ${namespace}/${claim.metadata?.name} was not created for pod ${namespace}/${name} (pod is not owner)`);
      }
    }
    await this.report(pod, conflicts);
    if (!conflicts.length) this.satisfied.set(podKey, pod.metadata?.uid as string);
  }

  /** The existing claim of that name, or the one created now. */
  private async ensureClaim(pod: ApiObject, volume: EphemeralVolume): Promise<ApiObject> {
    const namespace = pod.metadata?.namespace;
    const existing = await getOrUndefined(this.claims, namespace, claimName(pod, volume));
    if (existing) return existing;
    try {
      return await this.claims.create({ namespace }, claimFor(pod, volume), { dryRun: false, fieldManager: FIELD_MANAGER });
    } catch (err) {
      // Another replica (or a user) was first: look at what is there now.
      if ((err as { code?: number }).code !== 409) throw err;
      const now = await getOrUndefined(this.claims, namespace, claimName(pod, volume));
      if (!now) throw err;
      return now;
    }
  }

  /** Writes the conflict condition through pods/status when it differs from what is there. */
  private async report(pod: ApiObject, conflicts: string[]): Promise<void> {
    const current = conditionsOf(pod).find((c) => c.type === EPHEMERAL_VOLUME_CONFLICT);
    let wanted: PodCondition | undefined;
    if (conflicts.length) wanted = { type: EPHEMERAL_VOLUME_CONFLICT, status: 'True', reason: 'ClaimNotOwnedByPod', message: conflicts.join('; ') };
    else if (current?.status === 'True') wanted = { type: EPHEMERAL_VOLUME_CONFLICT, status: 'False', reason: 'ClaimsOwnedByPod', message: '' };
    if (!wanted) return;
    if (current && current.status === wanted.status && current.reason === wanted.reason && (current.message ?? '') === wanted.message) return;
    if (!this.pods.def.subresources.some((s) => s.name === 'status')) {
      logger.warn('ephemeral volume controller: pods have no status subresource; conflict not recorded', { pod: pod.metadata?.name, conflicts });
      return;
    }
    const condition: PodCondition = {
      ...wanted,
      lastProbeTime: null,
      lastTransitionTime: current && current.status === wanted.status && current.lastTransitionTime
        ? current.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    if (!condition.message) delete condition.message;
    await this.pods.updateWith({ namespace: pod.metadata?.namespace }, pod.metadata?.name as string, (cur) => {
      const status = { ...((cur.status as Record<string, unknown>) ?? {}) };
      const others = conditionsOf(cur).filter((c) => c.type !== EPHEMERAL_VOLUME_CONFLICT);
      status.conditions = [...others, condition];
      return { ...cur, status };
    }, { dryRun: false, subresource: 'status', fieldManager: FIELD_MANAGER, precondition: pod.metadata?.resourceVersion });
  }
}

async function getOrUndefined(store: GenericStore, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}
