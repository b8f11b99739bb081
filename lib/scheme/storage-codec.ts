/**
 * How objects are stored in etcd: without `metadata.resourceVersion`, which is the key's
 * mod_revision and is set on every read. Written as JSON, or with --storage-media-type set to
 * a protobuf type in the k8s\0 protobuf envelope (kinds without protobuf stay JSON). Read in
 * either encoding whatever the flag: JSON starts with '{', protobuf with k8s\0.
 */
import { KeyValue } from '../storage/interfaces';
import { protobufMediaTypes } from '../naming';
import { ApiObject } from './types';
import { decodeProtobuf, encodeProtobuf, hasProtobuf, hasProtobufPrefix } from './protobuf';

/** `mediaType`: the --storage-media-type flag; absent means JSON. */
export function encodeForStorage(obj: ApiObject, mediaType = 'application/json'): Buffer {
  const { resourceVersion: _rv, ...meta } = obj.metadata ?? {};
  // apiVersion, kind, metadata first: a reader can then splice the resourceVersion into the
  // stored bytes without parsing them (jsonWithResourceVersion).
  const { apiVersion, kind, metadata: _m, ...rest } = obj;
  const stored = { apiVersion, kind, metadata: meta, ...rest };
  if (protobufMediaTypes.includes(mediaType) && hasProtobuf(obj.apiVersion, obj.kind)) return encodeProtobuf(stored);
  return Buffer.from(JSON.stringify(stored));
}

const HEAD = Buffer.from('{"apiVersion":"');
const KIND = Buffer.from('"kind":"');
const METADATA = Buffer.from('"metadata":{');

/**
 * The object's JSON as served (with metadata.resourceVersion), made from the stored JSON bytes
 * without parsing them: the stored layout puts apiVersion, kind and metadata first, so the first
 * `"metadata":{` is the object's own. Undefined when the value is not in that layout (protobuf,
 * or written otherwise): the caller decodes instead.
 */
export function jsonWithResourceVersion(value: Buffer, modRevision: number): Buffer | undefined {
  if (value.length < HEAD.length || value.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return undefined;
  const at = value.indexOf(METADATA);
  if (at < 0 || value.indexOf(KIND) > at || value.indexOf(KIND) < 0) return undefined;
  const insertAt = at + METADATA.length;
  const empty = value[insertAt] === 0x7d; // '}'
  const rv = Buffer.from(`"resourceVersion":"${modRevision}"${empty ? '' : ','}`);
  return Buffer.concat([value.subarray(0, insertAt), rv, value.subarray(insertAt)]);
}

export function decodeFromStorage(value: Buffer, modRevision: number): ApiObject {
  const obj = hasProtobufPrefix(value) ? decodeStoredProtobuf(value) : JSON.parse(value.toString('utf8')) as ApiObject;
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(modRevision) };
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

export function decodeKv(kv: KeyValue): ApiObject {
  return decodeFromStorage(kv.value, kv.modRevision);
}
