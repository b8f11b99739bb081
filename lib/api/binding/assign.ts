/**
 * BindingREST's setPodNodeAndMetadata (pkg/registry/core/pod/storage/storage.go): a
 * compare-and-swap on the stored pod, outside the pod's update strategy (a pod's own updates may
 * not change spec.nodeName): the pod must not be terminating, bound or gated; it gets the node,
 * the binding's annotations and the PodScheduled condition True. Lost races read again, so of
 * concurrent binds exactly one wins and the others find the pod bound (409).
 */
import { errors, ApiError, GroupResource } from '../../meta/api-errors';
import { GenericStore } from '../../registry/store';
import { now } from '../../registry/system-fields';
import { ApiObject } from '../../scheme/types';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_ATTEMPTS = 16;
const BINDING: GroupResource = { group: '', resource: 'pods/binding' };

export interface Assignment {
  namespace: string;
  pod: string;
  node: string;
  annotations: Record<string, string>;
  /** The binding's metadata.uid and resourceVersion: preconditions on the pod when set. */
  uid?: string;
  resourceVersion?: string;
  dryRun: boolean;
}

/** The pod as the binding leaves it, or throws the 409 Kubernetes answers. */
function bound(current: ApiObject, a: Assignment, pods: GenericStore): ApiObject {
  const meta = current.metadata ?? {};
  if (a.uid && a.uid !== meta.uid) {
    throw errors.conflict(pods.gr, a.pod, `Precondition failed: UID in precondition: ${a.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (a.resourceVersion && a.resourceVersion !== meta.resourceVersion) {
    throw errors.conflict(pods.gr, a.pod, `Precondition failed: ResourceVersion in precondition: ${a.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  }
  const spec = isObject(current.spec) ? current.spec : {};
  if (meta.deletionTimestamp) throw errors.conflict(BINDING, a.pod, `pod ${a.pod} is being deleted, cannot be assigned to a host`);
  if (typeof spec.nodeName === 'string' && spec.nodeName) {
    throw errors.conflict(BINDING, a.pod, `pod ${a.pod} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
  }
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length) {
    throw errors.conflict(BINDING, a.pod, `pod ${a.pod} has non-empty .spec.schedulingGates`);
  }
  const status = isObject(current.status) ? { ...current.status } : {};
  const conditions = Array.isArray(status.conditions) ? [...status.conditions as Json[]] : [];
  const i = conditions.findIndex((c) => isObject(c) && c.type === 'PodScheduled');
  // UpdatePodCondition: a new condition, or the old one replaced (its transition time kept when True already).
  const condition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now() };
  if (i < 0) conditions.push(condition);
  else conditions[i] = { ...condition, ...(conditions[i].status === 'True' ? { lastTransitionTime: conditions[i].lastTransitionTime } : {}) };
  return {
    ...current,
    metadata: { ...meta, annotations: { ...(meta.annotations ?? {}), ...a.annotations } },
    spec: { ...spec, nodeName: a.node },
    status: { ...status, conditions },
  };
}

/** Binds the pod; a dry run checks and writes nothing. */
export async function assignPod(pods: GenericStore, a: Assignment): Promise<void> {
  const key = pods.key(a.namespace, a.pod);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { kv } = await pods.currentForWrite(key, attempt);
    if (!kv) throw errors.notFound(pods.gr, a.pod);
    const current = await pods.currentOf(kv);
    current.metadata = { ...current.metadata, resourceVersion: String(kv.modRevision) };
    let next: ApiObject;
    try {
      next = bound(current, a, pods);
    } catch (e) {
      // A refusal computed from a cached copy is confirmed against etcd first.
      if (attempt === 0 && e instanceof ApiError) continue;
      throw e;
    }
    if (a.dryRun) return;
    const { value } = await pods.storedForm(next);
    const res = await pods.storage.update(kv.key, value, kv.modRevision);
    if (res.ok) return;
    if (!res.current) throw errors.notFound(pods.gr, a.pod);
  }
  throw errors.conflict(BINDING, a.pod, 'the object is being changed too often; please retry');
}
