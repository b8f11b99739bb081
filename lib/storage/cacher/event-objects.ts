/**
 * The stored objects of a watch cache event, decoded on first need and then shared by everything
 * that reads the event: the cache's field index (a pod's spec.nodeName) and every watch stream
 * that is sent it (api/shared-events.ts), so one write is decoded once however many read it.
 * The memos serve one fan-out, not the event's life in the ring (EventMemo). The object before
 * a change is the previous change's decoding while something still holds it. The objects are
 * shared: nothing may mutate them (a consumer that changes one copies it first).
 */
import { performance } from 'node:perf_hooks';
import { ApiObject } from '../../scheme/types';
import { StorageEvent } from '../interfaces';
import { decodeFromStorage } from '../storage-codec';

/** Deliveries are 10 ms apart: a watcher that keeps up takes an event well within this. */
const MEMO_MS = 1_000;
/** Every EventMemo, so that an event leaves them all together. */
const memos: Array<EventMemo<unknown>> = [];
/** The events memoized in the current period and in the one before; older ones are forgotten. */
let memoPeriod = { startedAt: 0, events: new Set<StorageEvent>(), previous: new Set<StorageEvent>() };

/** Notes that `ev` has memo entries; forgets those of events memoized two periods ago. */
function memoized(ev: StorageEvent): void {
  const now = performance.now();
  if (now - memoPeriod.startedAt >= MEMO_MS) {
    for (const old of memoPeriod.previous) for (const m of memos) m.forget(old);
    memoPeriod = { startedAt: now, events: new Set(), previous: memoPeriod.events };
  }
  memoPeriod.events.add(ev);
}

/**
 * Values made from a cache event, kept for one fan-out: an event's entry goes MEMO_MS to
 * 2 x MEMO_MS after it was set (the ring holds up to 10,000 events per resource, and their
 * decoded objects and encodings took several times their stored bytes).
 */
export class EventMemo<V> {
  private readonly map = new WeakMap<StorageEvent, V>();

  constructor() {
    memos.push(this as EventMemo<unknown>);
  }

  get(ev: StorageEvent): V | undefined {
    return this.map.get(ev);
  }

  set(ev: StorageEvent, value: V): void {
    this.map.set(ev, value);
    memoized(ev);
  }

  forget(ev: StorageEvent): void {
    this.map.delete(ev);
  }
}

const after = new EventMemo<ApiObject>();
const before = new EventMemo<ApiObject>();
/**
 * Each decoding by the stored bytes it was made from, while something else keeps it: an update's
 * previous bytes are the previous change's value (the cache store hands the same Buffer on), so
 * a watch that needs the object before a change (a selector's DELETED) reuses that change's
 * decoding while a memo or a stream still holds it. Weak both ways: this keeps no decoding alive.
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
