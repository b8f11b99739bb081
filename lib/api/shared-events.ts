/**
 * Work shared by every watcher of one resource: a change is decoded once (with the cache's field
 * index, storage/cacher/event-objects.ts) and encoded once per representation, however many
 * streams it goes to. Storage events from the watch cache are shared objects, so they key the
 * memo. The memo serves one fan-out, not the event's life in the cache's ring (up to 10,000
 * events per resource, whose decoded objects and encodings took several times their stored
 * bytes): an event's entries go MEMO_MS to 2 x MEMO_MS after its first one (EventMemo), and a
 * watcher further behind, or a replay from the ring, decodes again.
 * The decoded objects are shared too: nothing may mutate them.
 */
import { StorageEvent } from '../storage/interfaces';
import { ApiObject, ObjectVersioning } from '../scheme/types';
import { decodeFromStorage } from '../storage/storage-codec';
import { EventMemo, objectAfter, objectBefore } from '../storage/cacher/event-objects';

export interface DecodedEvent {
  /** The object after a put. */
  next?: ApiObject;
  /** The object before: the deleted state, or the previous one of an update (made on first need). */
  prev(): ApiObject | undefined;
}

const decoded = new EventMemo<DecodedEvent>();
const decodedAt = new EventMemo<Map<string, DecodedEvent>>();
const converted = new EventMemo<Map<ObjectVersioning, ConvertedEvent>>();
const encoded = new WeakMap<object, Map<string, Buffer>>();

/**
 * The event's objects, shaped by `output` (the store's kind/apiVersion and decoration, which
 * copies what it changes) from the cache's one decoding of the event, which its field index may
 * have made already. `servedAs`: the apiVersion of a store serving another version over the same
 * watch cache (served-version.ts), whose watchers share a shaping of their own.
 */
export function decodeEvent(ev: StorageEvent, output: (obj: ApiObject) => ApiObject, servedAs?: string): DecodedEvent {
  let byVersion: Map<string, DecodedEvent> | undefined;
  if (servedAs !== undefined) {
    byVersion = decodedAt.get(ev);
    if (!byVersion) decodedAt.set(ev, (byVersion = new Map()));
  }
  let d = byVersion ? byVersion.get(servedAs as string) : decoded.get(ev);
  if (!d) {
    d = shaped(ev, output);
    if (byVersion) byVersion.set(servedAs as string, d);
    else decoded.set(ev, d);
  }
  return d;
}

function shaped(ev: StorageEvent, output: (obj: ApiObject) => ApiObject): DecodedEvent {
  const after = objectAfter(ev);
  let prev: ApiObject | undefined;
  let prevMade = false;
  return {
    next: after && output(after),
    prev: () => {
      if (!prevMade) {
        const before = objectBefore(ev);
        prev = before && output(before);
        prevMade = true;
      }
      return prev;
    },
  };
}

/** An event's objects converted to one version, each converted on first need. */
export interface ConvertedEvent {
  next(): Promise<ApiObject | undefined>;
  prev(): Promise<ApiObject | undefined>;
}

/** One object of a stored value at one version, converted once (undefined: no object). */
function lazyConverted(raw: Buffer | undefined, revision: number, versioning: ObjectVersioning, output: (obj: ApiObject) => ApiObject): () => Promise<ApiObject | undefined> {
  let made: Promise<ApiObject | undefined> | undefined;
  return () => (made ??= raw && raw.length
    ? versioning.fromStorage([decodeFromStorage(raw, revision)]).then(([o]) => output(o))
    : Promise.resolve(undefined));
}

/**
 * decodeEvent() for a def with `versioning`: the event's objects converted to its version, one
 * conversion per stored revision and served version (the def's `versioning` identifies it),
 * however many streams watch it; the previous object only when some watcher needs it
 * (a delete, a selector). A failed conversion rejects for every watcher of the event.
 */
export function decodeEventConverted(ev: StorageEvent, versioning: ObjectVersioning, output: (obj: ApiObject) => ApiObject): ConvertedEvent {
  let byVersion = converted.get(ev);
  if (!byVersion) converted.set(ev, (byVersion = new Map()));
  let d = byVersion.get(versioning);
  if (!d) {
    d = {
      next: lazyConverted(ev.type === 'put' ? ev.value : undefined, ev.revision, versioning, output),
      prev: lazyConverted(ev.type === 'delete' ? ev.value : ev.prevValue, ev.revision, versioning, output),
    };
    byVersion.set(versioning, d);
  }
  return d;
}

/**
 * One encoding of (object, event type) per representation `key`, made on first use. Kept as
 * bytes: a string would be converted to a new buffer on every stream write. The bytes live as
 * long as the object (its event's memo, above), and any one of them would keep a shared
 * allocation alive, so they get an ArrayBuffer of their own: a slice of Node's shared 8 KiB Buffer pool (Buffer.from of a string
 * under 4 KiB) would keep the whole slab alive (3.8 KB of Buffers per watched Lease renewal, 1.5 KB so).
 */
export function encodedOnce(object: object, key: string, encode: () => string | Buffer): Buffer {
  let byKey = encoded.get(object);
  if (!byKey) encoded.set(object, (byKey = new Map()));
  let bytes = byKey.get(key);
  if (bytes === undefined) byKey.set(key, (bytes = ownBytes(encode())));
  return bytes;
}

/** `made` in a Buffer that is its whole ArrayBuffer (copied when it is a slice of a larger one). */
function ownBytes(made: string | Buffer): Buffer {
  if (typeof made === 'string') {
    const b = Buffer.allocUnsafeSlow(Buffer.byteLength(made));
    b.write(made);
    return b;
  }
  if (made.byteLength === made.buffer.byteLength) return made;
  const b = Buffer.allocUnsafeSlow(made.byteLength);
  made.copy(b);
  return b;
}

const batches = new WeakMap<readonly StorageEvent[], Map<string, Buffer>>();

/**
 * The bytes of a whole delivery, made once per representation `key`: the watch cache hands the
 * same array of changes to every watcher of a prefix, so watchers without selectors write the
 * same bytes. Entries go with the array.
 */
export function encodedBatchOnce(events: readonly StorageEvent[], key: string, encode: () => Buffer): Buffer {
  let byKey = batches.get(events);
  if (!byKey) batches.set(events, (byKey = new Map()));
  let bytes = byKey.get(key);
  if (bytes === undefined) byKey.set(key, (bytes = encode()));
  return bytes;
}
