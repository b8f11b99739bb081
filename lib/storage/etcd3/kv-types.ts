/**
 * The messages of etcd's KV and Lease calls (etcdserverpb rpc.proto, mvccpb kv.proto), the fields
 * this server uses, as plain objects: revisions are numbers, keys and values Buffers. The
 * interface both clients implement (kv.ts) is written in them; the lean client's codec
 * (kv-codec.ts) reads and writes them.
 */

export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  limit?: number;
  revision?: number;
  serializable?: boolean;
  keysOnly?: boolean;
  countOnly?: boolean;
  minModRevision?: number;
}

export interface PutRequest {
  key: Buffer;
  value: Buffer;
  /** An etcd lease (int64) the key is attached to: the key is deleted when the lease expires. */
  lease?: bigint;
}

/** LeaseGrant's answer: the lease's ID (an int64) and the TTL etcd granted, in seconds. */
export interface LeaseGrantResponse {
  header: ResponseHeader;
  id: bigint;
  ttl: number;
}

export interface DeleteRangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
}

export type CompareTarget = 'Version' | 'Create' | 'Mod' | 'Value';
export type CompareResult = 'Equal' | 'Greater' | 'Less' | 'NotEqual';

/** Compares the key's `target` with the field of the same name (absent: 0 or empty). */
export interface Compare {
  key: Buffer;
  target: CompareTarget;
  result: CompareResult;
  version?: number;
  createRevision?: number;
  modRevision?: number;
  value?: Buffer;
}

/** Exactly one of the fields. */
export interface RequestOp {
  range?: RangeRequest;
  put?: PutRequest;
  deleteRange?: DeleteRangeRequest;
}

export interface TxnRequest {
  compare?: Compare[];
  success?: RequestOp[];
  failure?: RequestOp[];
}

export interface ResponseHeader {
  revision: number;
  /** The answering member's raft term, when etcd sends it (it always does): it rises with every election. */
  raftTerm?: number;
}

export interface EtcdKeyValue {
  key: Buffer;
  /** Empty for keysOnly ranges. */
  value: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: EtcdKeyValue[];
  more: boolean;
  count: number;
}

export interface PutResponse {
  header: ResponseHeader;
}

export interface DeleteRangeResponse {
  header: ResponseHeader;
  deleted: number;
}

/** One of the fields, matching the RequestOp at the same position. */
export interface ResponseOp {
  responseRange?: RangeResponse;
  responsePut?: PutResponse;
  responseDeleteRange?: DeleteRangeResponse;
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactResponse {
  header: ResponseHeader;
}
