/**
 * How objects are stored in etcd: JSON without `metadata.resourceVersion`, which is the key's
 * mod_revision and is set on every read. (Protobuf storage comes with the wire-format work.)
 */
import { KeyValue } from '../storage/interfaces';
import { ApiObject } from './types';

export function encodeForStorage(obj: ApiObject): Buffer {
  const { resourceVersion: _rv, ...meta } = obj.metadata ?? {};
  return Buffer.from(JSON.stringify({ ...obj, metadata: meta }));
}

export function decodeFromStorage(value: Buffer, modRevision: number): ApiObject {
  const obj = JSON.parse(value.toString('utf8')) as ApiObject;
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(modRevision) };
  return obj;
}

export function decodeKv(kv: KeyValue): ApiObject {
  return decodeFromStorage(kv.value, kv.modRevision);
}
