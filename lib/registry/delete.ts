/**
 * Deletion per the spec's table: an object with finalizers (or something else that keeps it)
 * becomes Terminating (deletionTimestamp set) and is removed when the last finalizer goes;
 * Foreground and Orphan propagation add their finalizer first (see propagation.ts); a kind
 * with graceful deletion (a Pod on a node) stays Terminating for its grace period (graceful.ts);
 * otherwise it is removed at once with a compare on mod_revision. Preconditions are checked
 * against the object as stored, before the write.
 */
import { ApiObject, ObjectMeta, StrategyContext } from '../scheme/types';
import { decodeKv, encodeForStorage as encodeWithoutRv } from '../storage/storage-codec';
import { errors } from '../meta/api-errors';
import { GenericStore } from './store';
import { DeleteOptions, ListOptions, WriteOptions } from './options';
import { list } from './list';
import { clone, now } from './system-fields';
import { deletionFinalizers } from './propagation';
import { gracefulDeletion } from './graceful';

export interface DeleteResult {
  /** The object as deleted, or as it stays while finalizers remain. */
  object: ApiObject;
  /** Removed from the store now (false: Terminating). */
  removed: boolean;
}

const MAX_RETRIES = 16;

function checkPreconditions(store: GenericStore, obj: ApiObject, opts: DeleteOptions): void {
  const p = opts.preconditions;
  const meta = obj.metadata as ObjectMeta;
  const name = meta.name as string;
  if (p?.uid && p.uid !== meta.uid) {
    throw errors.conflict(store.gr, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${meta.uid}`);
  }
  if (p?.resourceVersion && p.resourceVersion !== meta.resourceVersion) {
    throw errors.conflict(store.gr, name,
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`);
  }
}

export async function deleteObject(store: GenericStore, ctx: StrategyContext, name: string, opts: DeleteOptions,
  wopts: WriteOptions): Promise<DeleteResult> {
  const key = store.key(ctx.namespace, name);
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const { kv, cached } = await store.currentForWrite(key, attempt, opts.preconditions?.resourceVersion);
    if (!kv) throw errors.notFound(store.gr, name);
    // A converted def's admission and response see the object at the request's version.
    const current = store.def.versioning ? await store.currentOf(kv) : decodeKv(kv);
    try {
      checkPreconditions(store, current, opts);
      const attrs = { operation: 'DELETE' as const, resource: store.def, namespace: ctx.namespace, name, oldObject: current, dryRun: wopts.dryRun, deleteOptions: opts, ctx };
      // As Kubernetes: both phases run for a delete (mutating plugins see no object to change).
      await store.deps.admission.admit(attrs);
      await store.deps.admission.validate(attrs);
    } catch (err) {
      // A refusal computed from the cache's copy may come from staleness: confirm it against
      // etcd, asking admission again only when the copy was stale.
      if (cached && !(await store.stillCurrent(kv))) continue;
      throw err;
    }

    const meta = current.metadata as ObjectMeta;
    const grace = gracefulDeletion(store.def.strategy, current, opts);
    // As Kubernetes: while a graceful deletion is pending, a delete changes nothing (not even finalizers).
    if (grace === 'pending') return { object: store.output(current), removed: false };
    const mark = grace === 'immediate' ? undefined : grace;
    // The propagation policy becomes a finalizer (propagation.ts); a later delete may switch it.
    const gc = deletionFinalizers(meta.finalizers ?? [], opts, store.def.strategy.defaultGarbageCollectionPolicy);
    const keep = gc.finalizers.length > 0 || !!store.def.strategy.blocksRemoval?.(current) || (mark?.deletionGracePeriodSeconds ?? 0) > 0;
    if (keep) {
      if (meta.deletionTimestamp && !gc.changed && !mark) return { object: store.output(current), removed: false };
      const next = clone(current);
      const nextMeta = next.metadata as ObjectMeta;
      if (gc.changed) {
        if (gc.finalizers.length) nextMeta.finalizers = gc.finalizers;
        else delete nextMeta.finalizers;
      }
      if (mark) {
        nextMeta.deletionTimestamp = mark.deletionTimestamp;
        nextMeta.deletionGracePeriodSeconds = mark.deletionGracePeriodSeconds;
        if (mark.first) {
          if (nextMeta.generation) nextMeta.generation += 1;
          store.def.strategy.onDeleteRequested?.(next);
        }
      } else if (!nextMeta.deletionTimestamp) {
        nextMeta.deletionTimestamp = now();
        nextMeta.deletionGracePeriodSeconds = 0;
        store.def.strategy.onDeleteRequested?.(next);
      }
      if (wopts.dryRun) return { object: store.output(next), removed: false };
      const value = store.def.versioning ? (await store.storedForm(next)).value : encodeWithoutRv(next, store.deps.storageMediaType);
      const res = await store.storage.update(key, value, kv.modRevision);
      if (res.ok) {
        nextMeta.resourceVersion = String(res.revision);
        return { object: store.output(next), removed: false };
      }
      continue;
    }
    if (wopts.dryRun) return { object: store.output(current), removed: true };
    const res = await store.storage.delete(key, kv.modRevision);
    if (res.ok) {
      await store.afterRemoval(current);
      return { object: store.outputStored(current, kv.value, kv.modRevision), removed: true };
    }
  }
  throw errors.conflict(store.gr, name, 'the object is being changed too often; please retry');
}

/** deletecollection: deletes every object the list options select; returns them as deleted. */
export async function deleteCollection(store: GenericStore, ctx: StrategyContext, listOpts: ListOptions,
  opts: DeleteOptions, wopts: WriteOptions): Promise<ApiObject[]> {
  const { items } = await list(store, ctx.namespace, { ...listOpts, limit: undefined, continue: undefined });
  const deleted: ApiObject[] = [];
  for (const item of items) {
    try {
      const r = await deleteObject(store, { ...ctx, namespace: item.metadata?.namespace ?? ctx.namespace }, item.metadata?.name as string, opts, wopts);
      deleted.push(r.object);
    } catch (err) {
      // Gone in the meantime: that is what was asked for.
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
  return deleted;
}

