/**
 * etcd's KV and Lease messages (kv-types.ts) encoded and decoded by hand, with the primitives of
 * protobuf-wire.ts: a request is sized first and written into one Buffer behind its gRPC prefix;
 * an answer is read in place. kv-client.ts says why. The response header and key-value decoders
 * also serve the watch's answers (watch-stream.ts).
 */
import { StorageError } from '../errors';
import type {
  Compare, CompareResult, CompareTarget, CompactResponse, DeleteRangeRequest, DeleteRangeResponse, EtcdKeyValue,
  LeaseGrantResponse, PutRequest, PutResponse, RangeRequest, RangeResponse, RequestOp, ResponseHeader, ResponseOp,
  TxnRequest, TxnResponse,
} from './kv-types';
import {
  EMPTY, Reader, bigVarintSize, bytesSize, done, endOf, frame, messageSize, varintSize, writeBigVarint, writeBytes, writeUint,
} from './protobuf-wire';

// ---------------------------------------------------------------------------------------------
// Encoding.

const TARGETS: Record<CompareTarget, number> = { Version: 0, Create: 1, Mod: 2, Value: 3 };
const RESULTS: Record<CompareResult, number> = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 };

function rangeSize(r: RangeRequest): number {
  let n = r.key.length ? bytesSize(r.key) : 0;
  if (r.rangeEnd?.length) n += bytesSize(r.rangeEnd);
  if (r.limit) n += 1 + varintSize(r.limit);
  if (r.revision) n += 1 + varintSize(r.revision);
  if (r.serializable) n += 2;
  if (r.keysOnly) n += 2;
  if (r.countOnly) n += 2;
  if (r.minModRevision) n += 1 + varintSize(r.minModRevision);
  return n;
}

function writeRange(buf: Buffer, pos: number, r: RangeRequest): number {
  if (r.key.length) pos = writeBytes(buf, pos, 0x0a, r.key); // 1 key
  if (r.rangeEnd?.length) pos = writeBytes(buf, pos, 0x12, r.rangeEnd); // 2 range_end
  if (r.limit) pos = writeUint(buf, pos, 0x18, r.limit); // 3 limit
  if (r.revision) pos = writeUint(buf, pos, 0x20, r.revision); // 4 revision
  if (r.serializable) pos = writeUint(buf, pos, 0x38, 1); // 7 serializable
  if (r.keysOnly) pos = writeUint(buf, pos, 0x40, 1); // 8 keys_only
  if (r.countOnly) pos = writeUint(buf, pos, 0x48, 1); // 9 count_only
  if (r.minModRevision) pos = writeUint(buf, pos, 0x50, r.minModRevision); // 10 min_mod_revision
  return pos;
}

function putSize(p: PutRequest): number {
  return (p.key.length ? bytesSize(p.key) : 0) + (p.value.length ? bytesSize(p.value) : 0) + (p.lease ? 1 + bigVarintSize(p.lease) : 0);
}

function writePut(buf: Buffer, pos: number, p: PutRequest): number {
  if (p.key.length) pos = writeBytes(buf, pos, 0x0a, p.key); // 1 key
  if (p.value.length) pos = writeBytes(buf, pos, 0x12, p.value); // 2 value
  if (p.lease) { // 3 lease
    buf[pos++] = 0x18;
    pos = writeBigVarint(buf, pos, p.lease);
  }
  return pos;
}

function deleteSize(d: DeleteRangeRequest): number {
  return (d.key.length ? bytesSize(d.key) : 0) + (d.rangeEnd?.length ? bytesSize(d.rangeEnd) : 0);
}

function writeDelete(buf: Buffer, pos: number, d: DeleteRangeRequest): number {
  if (d.key.length) pos = writeBytes(buf, pos, 0x0a, d.key); // 1 key
  if (d.rangeEnd?.length) pos = writeBytes(buf, pos, 0x12, d.rangeEnd); // 2 range_end
  return pos;
}

/** RequestOp: a oneof of nested messages, written even when the nested one is empty. */
function opSize(op: RequestOp): number {
  if (op.put) return messageSize(putSize(op.put));
  if (op.range) return messageSize(rangeSize(op.range));
  if (op.deleteRange) return messageSize(deleteSize(op.deleteRange));
  throw new TypeError('RequestOp needs one of range, put or deleteRange');
}

function writeOp(buf: Buffer, pos: number, op: RequestOp): number {
  if (op.put) {
    pos = writeUint(buf, pos, 0x12, putSize(op.put)); // 2 request_put
    return writePut(buf, pos, op.put);
  }
  if (op.range) {
    pos = writeUint(buf, pos, 0x0a, rangeSize(op.range)); // 1 request_range
    return writeRange(buf, pos, op.range);
  }
  pos = writeUint(buf, pos, 0x1a, deleteSize(op.deleteRange!)); // 3 request_delete_range
  return writeDelete(buf, pos, op.deleteRange!);
}

/** Compare: the target_union member is written even when 0 or empty (a oneof has presence). */
function compareSize(c: Compare): number {
  const result = RESULTS[c.result];
  const target = TARGETS[c.target];
  if (target === undefined || result === undefined) throw new TypeError(`bad Compare target/result: ${c.target}/${c.result}`);
  let n = c.key.length ? bytesSize(c.key) : 0;
  if (result) n += 2;
  if (target) n += 2;
  switch (target) {
    case 0: return n + 1 + varintSize(c.version ?? 0);
    case 1: return n + 1 + varintSize(c.createRevision ?? 0);
    case 2: return n + 1 + varintSize(c.modRevision ?? 0);
    default: return n + bytesSize(c.value ?? EMPTY);
  }
}

function writeCompare(buf: Buffer, pos: number, c: Compare): number {
  const result = RESULTS[c.result];
  const target = TARGETS[c.target];
  if (result) pos = writeUint(buf, pos, 0x08, result); // 1 result
  if (target) pos = writeUint(buf, pos, 0x10, target); // 2 target
  if (c.key.length) pos = writeBytes(buf, pos, 0x1a, c.key); // 3 key
  switch (target) {
    case 0: return writeUint(buf, pos, 0x20, c.version ?? 0); // 4 version
    case 1: return writeUint(buf, pos, 0x28, c.createRevision ?? 0); // 5 create_revision
    case 2: return writeUint(buf, pos, 0x30, c.modRevision ?? 0); // 6 mod_revision
    default: return writeBytes(buf, pos, 0x3a, c.value ?? EMPTY); // 7 value
  }
}

export function encodeRangeRequest(r: RangeRequest): Buffer {
  const buf = frame(rangeSize(r));
  return done(buf, writeRange(buf, 5, r));
}

export function encodeTxnRequest(t: TxnRequest): Buffer {
  let size = 0;
  const { compare, success, failure } = t;
  if (compare) for (let i = 0; i < compare.length; i++) size += messageSize(compareSize(compare[i]));
  if (success) for (let i = 0; i < success.length; i++) size += messageSize(opSize(success[i]));
  if (failure) for (let i = 0; i < failure.length; i++) size += messageSize(opSize(failure[i]));
  const buf = frame(size);
  let pos = 5;
  if (compare) {
    for (let i = 0; i < compare.length; i++) {
      pos = writeUint(buf, pos, 0x0a, compareSize(compare[i])); // 1 compare
      pos = writeCompare(buf, pos, compare[i]);
    }
  }
  if (success) {
    for (let i = 0; i < success.length; i++) {
      pos = writeUint(buf, pos, 0x12, opSize(success[i])); // 2 success
      pos = writeOp(buf, pos, success[i]);
    }
  }
  if (failure) {
    for (let i = 0; i < failure.length; i++) {
      pos = writeUint(buf, pos, 0x1a, opSize(failure[i])); // 3 failure
      pos = writeOp(buf, pos, failure[i]);
    }
  }
  return done(buf, pos);
}

export function encodeLeaseGrantRequest(ttlSeconds: number): Buffer {
  const buf = frame(ttlSeconds ? 1 + varintSize(ttlSeconds) : 0);
  let pos = 5;
  if (ttlSeconds) pos = writeUint(buf, pos, 0x08, ttlSeconds); // 1 TTL
  return done(buf, pos);
}

export function encodeCompactionRequest(revision: number, physical: boolean): Buffer {
  const buf = frame((revision ? 1 + varintSize(revision) : 0) + (physical ? 2 : 0));
  let pos = 5;
  if (revision) pos = writeUint(buf, pos, 0x08, revision); // 1 revision
  if (physical) pos = writeUint(buf, pos, 0x10, 1); // 2 physical
  return done(buf, pos);
}

// ---------------------------------------------------------------------------------------------
// Decoding.

export function decodeHeader(r: Reader, end: number): ResponseHeader {
  let revision = 0;
  let raftTerm = 0;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === 0x18) revision = r.varint(); // 3 revision
    else if (tag === 0x20) raftTerm = r.varint(); // 4 raft_term
    else r.skip(tag);
  }
  endOf(r, end);
  return raftTerm ? { revision, raftTerm } : { revision };
}

export function decodeKv(r: Reader, end: number): EtcdKeyValue {
  let key: Buffer = EMPTY;
  let value: Buffer = EMPTY;
  let createRevision = 0;
  let modRevision = 0;
  let version = 0;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case 0x0a: key = r.bytes(); break; // 1 key
      case 0x10: createRevision = r.varint(); break; // 2 create_revision
      case 0x18: modRevision = r.varint(); break; // 3 mod_revision
      case 0x20: version = r.varint(); break; // 4 version
      case 0x2a: value = r.bytes(); break; // 5 value
      default: r.skip(tag);
    }
  }
  endOf(r, end);
  return { key, value, createRevision, modRevision, version };
}

export const NO_HEADER = (): ResponseHeader => ({ revision: 0 });

function decodeRange(r: Reader, end: number): RangeResponse {
  let header: ResponseHeader | undefined;
  const kvs: EtcdKeyValue[] = [];
  let more = false;
  let count = 0;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case 0x0a: header = decodeHeader(r, r.delimited()); break; // 1 header
      case 0x12: kvs.push(decodeKv(r, r.delimited())); break; // 2 kvs
      case 0x18: more = r.varint() !== 0; break; // 3 more
      case 0x20: count = r.varint(); break; // 4 count
      default: r.skip(tag);
    }
  }
  endOf(r, end);
  return { header: header ?? NO_HEADER(), kvs, more, count };
}

function decodePut(r: Reader, end: number): PutResponse {
  let header: ResponseHeader | undefined;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === 0x0a) header = decodeHeader(r, r.delimited()); // 1 header
    else r.skip(tag);
  }
  endOf(r, end);
  return { header: header ?? NO_HEADER() };
}

function decodeDelete(r: Reader, end: number): DeleteRangeResponse {
  let header: ResponseHeader | undefined;
  let deleted = 0;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === 0x0a) header = decodeHeader(r, r.delimited()); // 1 header
    else if (tag === 0x10) deleted = r.varint(); // 2 deleted
    else r.skip(tag);
  }
  endOf(r, end);
  return { header: header ?? NO_HEADER(), deleted };
}

function decodeResponseOp(r: Reader, end: number): ResponseOp {
  let op: ResponseOp = {};
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case 0x0a: op = { responseRange: decodeRange(r, r.delimited()) }; break; // 1 response_range
      case 0x12: op = { responsePut: decodePut(r, r.delimited()) }; break; // 2 response_put
      case 0x1a: op = { responseDeleteRange: decodeDelete(r, r.delimited()) }; break; // 3 response_delete_range
      default: r.skip(tag); // 4 response_txn: nested transactions are not sent
    }
  }
  endOf(r, end);
  return op;
}

export function decodeRangeResponse(msg: Buffer): RangeResponse {
  return decodeRange(new Reader(msg, msg.length), msg.length);
}

export function decodeTxnResponse(msg: Buffer): TxnResponse {
  const r = new Reader(msg, msg.length);
  let header: ResponseHeader | undefined;
  let succeeded = false;
  const responses: ResponseOp[] = [];
  while (r.pos < msg.length) {
    const tag = r.tag();
    switch (tag) {
      case 0x0a: header = decodeHeader(r, r.delimited()); break; // 1 header
      case 0x10: succeeded = r.varint() !== 0; break; // 2 succeeded
      case 0x1a: responses.push(decodeResponseOp(r, r.delimited())); break; // 3 responses
      default: r.skip(tag);
    }
  }
  endOf(r, msg.length);
  return { header: header ?? NO_HEADER(), succeeded, responses };
}

export function decodeLeaseGrantResponse(msg: Buffer): LeaseGrantResponse {
  const r = new Reader(msg, msg.length);
  let header: ResponseHeader | undefined;
  let id = 0n;
  let ttl = 0;
  let error = '';
  while (r.pos < msg.length) {
    const tag = r.tag();
    switch (tag) {
      case 0x0a: header = decodeHeader(r, r.delimited()); break; // 1 header
      case 0x10: id = r.varintBig(); break; // 2 ID
      case 0x18: ttl = r.varint(); break; // 3 TTL
      case 0x22: error = r.bytes().toString('utf8'); break; // 4 error
      default: r.skip(tag);
    }
  }
  endOf(r, msg.length);
  if (error) throw new StorageError('Internal', `etcd refused a lease: ${error}`);
  return { header: header ?? NO_HEADER(), id, ttl };
}

export function decodeCompactionResponse(msg: Buffer): CompactResponse {
  return decodePut(new Reader(msg, msg.length), msg.length);
}
