/**
 * How objects are stored in etcd: without `metadata.resourceVersion`, which is the key's
 * mod_revision and is set on every read. Written as JSON, or with --storage-media-type set to
 * a protobuf type in the k8s\0 protobuf envelope (kinds without protobuf stay JSON). Read in
 * either encoding whatever the flag: JSON starts with '{', protobuf with k8s\0.
 */
import { KeyValue } from './interfaces';
import { protobufMediaTypes } from '../naming';
import { ApiObject, ObjectMeta } from '../scheme/types';
import { decodeProtobuf, encodeProtobuf, hasProtobuf, hasProtobufPrefix } from '../scheme/protobuf';

/** `mediaType`: the --storage-media-type flag; absent means JSON. */
export function encodeForStorage(obj: ApiObject, mediaType = 'application/json'): Buffer {
  // Most objects are already in the stored form (no resourceVersion, the three members first):
  // encoded as they are, without the copies below.
  if (obj.metadata?.resourceVersion === undefined && headInOrder(obj)
    && !(protobufMediaTypes.includes(mediaType) && hasProtobuf(obj.apiVersion, obj.kind))) {
    return Buffer.from(JSON.stringify(obj));
  }
  const { resourceVersion: _rv, ...meta } = obj.metadata ?? {};
  // apiVersion, kind, metadata first: a reader can then splice the resourceVersion into the
  // stored bytes without parsing them (jsonWithResourceVersion).
  const { apiVersion, kind, metadata: _m, ...rest } = obj;
  const stored = { apiVersion, kind, metadata: meta, ...rest };
  if (protobufMediaTypes.includes(mediaType) && hasProtobuf(obj.apiVersion, obj.kind)) return encodeProtobuf(stored);
  return Buffer.from(JSON.stringify(stored));
}

/** The object's first members are apiVersion, kind and metadata, in that order. */
function headInOrder(obj: ApiObject): boolean {
  let i = 0;
  for (const k in obj) {
    if (k !== (i === 0 ? 'apiVersion' : i === 1 ? 'kind' : 'metadata')) return false;
    if (++i === 3) return true;
  }
  return false;
}

const HEAD = Buffer.from('{"apiVersion":"');
const KIND = Buffer.from(',"kind":"');
const METADATA = Buffer.from(',"metadata":{');

const RV_MEMBER = Buffer.from('"resourceVersion":"');

/** Decimal digits of a non-negative integer. */
function decimalDigits(n: number): number {
  let digits = 1;
  while (n >= 10) { n = Math.floor(n / 10); digits++; }
  return digits;
}

/**
 * An object's JSON as served (with metadata.resourceVersion) without building it: the stored
 * bytes with `"resourceVersion":"<modRevision>"` (and a comma unless metadata is otherwise empty)
 * inserted at `at`. `write` puts it into a larger buffer (a list body).
 */
export class ServedJson {
  /** Bytes of the served JSON. */
  readonly length: number;
  private readonly digits: number;
  /** A comma follows the member: metadata has other members. */
  private readonly comma: boolean;

  constructor(readonly value: Buffer, readonly at: number, readonly modRevision: number) {
    this.digits = decimalDigits(modRevision);
    this.comma = value[at] !== 0x7d; // '}': metadata is otherwise empty
    this.length = value.length + RV_MEMBER.length + this.digits + (this.comma ? 2 : 1);
  }

  /** Writes the served bytes at `offset` of `out`; returns the offset after them. */
  write(out: Buffer, offset: number): number {
    // No allocation and few native calls (this runs for every item of a list): the whole value,
    // its tail moved right to open the gap, then the member written into the gap byte by byte.
    const { value, at } = this;
    const gap = this.length - value.length;
    out.set(value, offset);
    out.copyWithin(offset + at + gap, offset + at, offset + value.length);
    let p = offset + at;
    out.set(RV_MEMBER, p);
    p += RV_MEMBER.length + this.digits;
    const close = p;
    for (let r = this.modRevision; ; r = Math.floor(r / 10)) {
      out[--p] = 0x30 + (r % 10);
      if (r < 10) break;
    }
    out[close] = 0x22; // '"'
    if (this.comma) out[close + 1] = 0x2c; // ','
    return offset + this.length;
  }
}

/**
 * The object's JSON as served, made from the stored JSON bytes without parsing them: the stored
 * layout puts apiVersion, kind and metadata first, so the first `"metadata":{` is the object's
 * own. Undefined when the value is not in that layout (protobuf, or written otherwise): the
 * caller decodes instead.
 */
export function servedJson(value: Buffer, modRevision: number): ServedJson | undefined {
  return servedAt(value, modRevision, spliceOffset(value));
}

/**
 * servedJson of a stored key, remembering on the KeyValue where the resourceVersion goes: the
 * watch cache keeps its KeyValues, so each is scanned once however often it is listed.
 */
export function servedJsonOf(kv: KeyValue): ServedJson | undefined {
  return servedAt(kv.value, kv.modRevision, kv.jsonSpliceAt ??= spliceOffset(kv.value));
}

function servedAt(value: Buffer, modRevision: number, at: number): ServedJson | undefined {
  if (at < 0) return undefined;
  return new ServedJson(value, at, modRevision);
}

/** Where the resourceVersion goes in stored JSON (just inside metadata's brace); -1 when not in the stored layout. */
function spliceOffset(value: Buffer): number {
  // Exactly {"apiVersion":"…","kind":"…","metadata":{ (no escapes in the two values).
  if (!startsWithAt(value, HEAD, 0)) return -1;
  const apiVersionEnd = value.indexOf(0x22, HEAD.length);
  if (apiVersionEnd < 0 || value[apiVersionEnd - 1] === 0x5c || !startsWithAt(value, KIND, apiVersionEnd + 1)) return -1;
  const kindEnd = value.indexOf(0x22, apiVersionEnd + 1 + KIND.length);
  if (kindEnd < 0 || value[kindEnd - 1] === 0x5c || !startsWithAt(value, METADATA, kindEnd + 1)) return -1;
  return kindEnd + 1 + METADATA.length;
}

/** A byte loop: for these short markers it beats Buffer.compare's argument checks (once per list item). */
function startsWithAt(value: Buffer, what: Buffer, at: number): boolean {
  if (value.length < at + what.length) return false;
  for (let i = 0; i < what.length; i++) if (value[at + i] !== what[i]) return false;
  return true;
}

const STORED = Symbol('stored form');

/**
 * Remembers, on an object a store returns, the bytes it was stored as and their revision, so a
 * plain JSON response can be those bytes with the resourceVersion spliced in (no stringify).
 * Only for objects that are exactly what was stored (no output decoration); a symbol member, so
 * JSON.stringify and copies never carry it.
 */
export function withStoredForm<T extends object>(obj: T, value: Buffer, modRevision: number): T {
  (obj as Record<symbol, unknown>)[STORED] = { value, modRevision };
  return obj;
}

/** The served JSON of an object from withStoredForm, when its stored bytes are in the JSON layout. */
export function storedFormOf(obj: unknown): ServedJson | undefined {
  const stored = typeof obj === 'object' && obj !== null ? (obj as Record<symbol, { value: Buffer; modRevision: number } | undefined>)[STORED] : undefined;
  return stored ? servedJson(stored.value, stored.modRevision) : undefined;
}

/** `head` + items joined by commas + `tail` in one allocation (a list body from its items' bytes). */
export function joinJson(head: string, items: ReadonlyArray<Buffer | ServedJson>, tail: string): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) size += item.length;
  const out = Buffer.allocUnsafe(size);
  writeJoined(out, head, items, 0, items.length, tail);
  return out;
}

/** `head` + items[start, end) joined by commas + `tail`, written at the start of `out`; returns the bytes written. */
export function writeJoined(out: Buffer, head: string, items: ReadonlyArray<Buffer | ServedJson>,
  start: number, end: number, tail: string): number {
  let offset = out.write(head, 0);
  for (let i = start; i < end; i++) {
    if (i > start) out[offset++] = 0x2c; // ','
    const item = items[i];
    if (item instanceof ServedJson) offset = item.write(out, offset);
    else { out.set(item, offset); offset += item.length; }
  }
  return offset + out.write(tail, offset);
}

export function decodeFromStorage(value: Buffer, modRevision: number): ApiObject {
  const obj = hasProtobufPrefix(value) ? decodeStoredProtobuf(value) : JSON.parse(value.toString('utf8')) as ApiObject;
  // A freshly decoded object: its metadata is set in place, not copied.
  (obj.metadata ??= {}).resourceVersion = String(modRevision);
  return obj;
}

/** A stored value that does not decode is a server fault (500), not the client's BadRequest. */
function decodeStoredProtobuf(value: Buffer): ApiObject {
  try {
    return decodeProtobuf(value);
  } catch (err) {
    throw new Error(`a stored protobuf value could not be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Only the metadata of a stored object (with its resourceVersion), parsed from the metadata
 * object's bytes alone: for consumers that need nothing else (the garbage collector follows every
 * object of every resource). Undefined when the value is not stored JSON in the stored layout.
 */
export function decodeStoredMetadata(value: Buffer, modRevision: number): ObjectMeta | undefined {
  const served = servedJson(value, modRevision);
  if (!served) return undefined;
  const start = served.at - 1; // the metadata object's '{'
  const end = jsonContainerEnd(value, start);
  if (end < 0) return undefined;
  const meta = JSON.parse(value.toString('utf8', start, end + 1)) as ObjectMeta;
  meta.resourceVersion = String(modRevision);
  return meta;
}

/**
 * Only the identity of a stored object, `{ uid, name, namespace?, resourceVersion }`, read from
 * its metadata members without parsing anything: for consumers that know the object mentions
 * nothing else they read (ResourceFeed's readsOnly). Undefined when the value is not compact
 * stored JSON in the stored layout, or uid or name is missing, escaped or not a string: the caller
 * decodes instead.
 */
export function decodeStoredIdentity(value: Buffer, modRevision: number): ObjectMeta | undefined {
  const served = servedJson(value, modRevision);
  if (!served) return undefined;
  const found: { uid?: string; name?: string; namespace?: string } = {};
  // At each member's opening quote; after its value, at the ',' or '}' that follows it.
  for (let i = served.at; value[i] !== 0x7d; i++) {
    const keyEnd = value[i] === 0x22 ? jsonStringEnd(value, i) : -1;
    if (keyEnd < 0 || value[keyEnd + 1] !== 0x3a) return undefined; // '"key":'
    const key = value.toString('latin1', i + 1, keyEnd);
    if (key.includes('\\')) return undefined;
    const wanted = key === 'uid' || key === 'name' || key === 'namespace';
    i = keyEnd + 2;
    if (value[i] === 0x22) {
      const end = jsonStringEnd(value, i);
      if (end < 0) return undefined;
      if (wanted) {
        const v = value.toString('utf8', i + 1, end);
        if (v.includes('\\')) return undefined;
        found[key] = v;
      }
      i = end + 1;
    } else if (wanted) {
      return undefined;
    } else if (value[i] === 0x7b || value[i] === 0x5b) { // a nested value: skipped, strings and all
      const end = jsonContainerEnd(value, i);
      if (end < 0) return undefined;
      i = end + 1;
    } else {
      while (i < value.length && value[i] !== 0x2c && value[i] !== 0x7d) i++; // a number or literal
    }
    // Namespaced objects store name, namespace and uid before the rest: no need to read on.
    if (found.uid !== undefined && found.name !== undefined && found.namespace !== undefined) break;
    if (value[i] === 0x7d) break;
    if (value[i] !== 0x2c) return undefined;
  }
  const { uid, name, namespace } = found;
  if (uid === undefined || name === undefined) return undefined;
  return namespace === undefined ? { uid, name, resourceVersion: String(modRevision) } : { uid, name, namespace, resourceVersion: String(modRevision) };
}

/** The closing quote of the JSON string whose opening quote is at `at`, or -1 (bytes of multi-byte characters are >= 0x80). */
function jsonStringEnd(value: Buffer, at: number): number {
  for (let j = at + 1; j < value.length; j++) {
    const c = value[j];
    if (c === 0x5c) j++;
    else if (c === 0x22) return j;
  }
  return -1;
}

/** The bracket closing the JSON object or array that opens at `at` (strings skipped), or -1. */
function jsonContainerEnd(value: Buffer, at: number): number {
  let depth = 0;
  for (let i = at; i < value.length; i++) {
    const c = value[i];
    if (c === 0x22) {
      i = jsonStringEnd(value, i);
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if ((c === 0x7d || c === 0x5d) && --depth === 0) {
      return i;
    }
  }
  return -1;
}

export function decodeKv(kv: KeyValue): ApiObject {
  return decodeFromStorage(kv.value, kv.modRevision);
}
