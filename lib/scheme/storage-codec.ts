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
  const stored = { ...obj, metadata: meta };
  if (protobufMediaTypes.includes(mediaType) && hasProtobuf(obj.apiVersion, obj.kind)) return encodeProtobuf(stored);
  return Buffer.from(JSON.stringify(stored));
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
