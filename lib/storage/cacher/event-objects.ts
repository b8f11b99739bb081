/**
 * The stored objects of a watch cache event, decoded on first need and then shared by everything
 * that reads the event: the cache's field index (a pod's spec.nodeName) and every watch stream
 * that is sent it (api/shared-events.ts), so one write is decoded once however many read it.
 * The events key the memo, so a decoding lives as long as the event ring holds its event.
 * The object before a change is the previous change's object, while the ring still holds that
 * change. The objects are shared: nothing may mutate them (a consumer that changes one copies it first).
 */
import { ApiObject } from '../../scheme/types';
import { StorageEvent } from '../interfaces';
import { decodeFromStorage } from '../storage-codec';

const after = new WeakMap<StorageEvent, ApiObject>();
const before = new WeakMap<StorageEvent, ApiObject>();
/**
 * Each decoding by the stored bytes it was made from, for as long as its event keeps it: an
 * update's previous bytes are the previous change's value (the cache store hands the same
 * Buffer on), so a watch that needs the object before a change (a selector's DELETED) reuses
 * that change's decoding while the ring holds it. Weak both ways: this keeps no decoding alive.
 */
const byValue = new WeakMap<Buffer, WeakRef<ApiObject>>();

/** The stored bytes of the object before the change: the deleted state, or the previous one of an update. */
export function previousValueOf(ev: StorageEvent): Buffer | undefined {
  const raw = ev.type === 'delete' ? ev.value : ev.prevValue;
  return raw && raw.length ? raw : undefined;
}

/** The object a put stored, at the event's revision; undefined for a delete. Throws when it does not decode. */
export function objectAfter(ev: StorageEvent): ApiObject | undefined {
  if (ev.type !== 'put') return undefined;
  let obj = after.get(ev);
  if (!obj) {
    after.set(ev, (obj = decodeFromStorage(ev.value, ev.revision)));
    byValue.set(ev.value, new WeakRef(obj));
  }
  return obj;
}

/**
 * The object before the change, at the event's revision (as a DELETED event carries it);
 * undefined when it did not exist. Decoded only when the previous change's decoding is gone.
 * Throws when it does not decode.
 */
export function objectBefore(ev: StorageEvent): ApiObject | undefined {
  const raw = previousValueOf(ev);
  if (!raw) return undefined;
  let obj = before.get(ev);
  if (!obj) {
    const earlier = byValue.get(raw)?.deref();
    obj = earlier ? atRevision(earlier, ev.revision) : decodeFromStorage(raw, ev.revision);
    before.set(ev, obj);
  }
  return obj;
}

/** `obj` (shared, not copied deeply) with another resourceVersion. */
function atRevision(obj: ApiObject, revision: number): ApiObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}
