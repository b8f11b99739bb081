/**
 * A lean gRPC client for etcd's unary KV calls (Range, Txn, Compact), written straight on
 * node:http2 with the protobuf wire format encoded and decoded by hand.
 *
 * Why: under write load the etcd3 package (grpc-js, protobufjs, Long, cockatiel) took about a
 * fifth of the server's single core. This client does the same calls with one Buffer per request
 * (sizes computed first), an offset-based reader for the answer, revisions as plain numbers, and
 * no closures per call beyond the Promise's own. Watches ride the same sessions (watch-stream.ts).
 *
 * Connections: one HTTP/2 session at a time, to the first endpoint that answers, made on the first
 * call and again after it closes, fails or receives GOAWAY. A member counts as connected once it
 * has sent its HTTP/2 SETTINGS (a SIGSTOPped member's kernel still accepts TCP, but nothing
 * answers), within a dial budget of 1 s per endpoint. While connected, a keepalive PING every
 * interval must be answered within its timeout, or the session is destroyed: its calls fail, its
 * watches end, and the next call dials the next member. Every call has a deadline (also sent as
 * grpc-timeout); a Txn's is shorter than etcd's own request timeout (5 s + 2 election timeouts),
 * so a proposal lost with a dead leader fails here first. Calls and watches carry `hasleader`:
 * a member cut off from the leader answers "no leader" at once, and the client leaves it.
 * Answers carry the member's raft term: when it rises (an election), Txns sent before and still
 * waiting fail at once as sent (a proposal forwarded to a dead leader is lost, and etcd would
 * hold it to the deadline); a Txn waiting over 250 ms gets its member probed to learn the term.
 * Failures are StorageErrors, mapped in one place (../errors.ts), and say whether the request may
 * have reached etcd (`sent`). Requests are never retried here once sent: a Txn that may have been
 * applied is not repeated blindly (the store decides, by its compare).
 */
import http2, { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import { readFileSync } from 'node:fs';
import { GrpcStatus, StorageError, fromGrpcStatus } from '../errors';
import { installCheapAsyncResourceBind } from './async-bind';
import type { EtcdKv, EtcdKvWatch } from './kv';
import type { WatchCreateRequest, WatchStreamHandler } from './watch-stream';
import { signalReconnected } from '../reconnects';

export interface EtcdClientOptions {
  endpoints: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Deadline of a unary call (and of a watch's creation) in milliseconds; 5 s by default. */
  callTimeoutMs?: number;
  /** Deadline of a Txn (a write); 3 s by default, under etcd's 7 s request timeout. */
  txnTimeoutMs?: number;
  /** How long one endpoint has to answer (TCP, TLS and the server's SETTINGS); 1 s by default. */
  dialTimeoutMs?: number;
  /** Interval of keepalive PINGs on the connected session; 1 s by default, 0: none. */
  keepaliveIntervalMs?: number;
  /** How long a keepalive PING may go unanswered before the session is dropped; 1 s by default. */
  keepaliveTimeoutMs?: number;
}

/** The first key after every key that starts with `prefix` (etcd's prefix range end). */
export function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i] += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

// ---------------------------------------------------------------------------------------------
// Messages (etcdserverpb rpc.proto, mvccpb kv.proto): the fields this server uses.

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

// ---------------------------------------------------------------------------------------------
// Encoding: sizes first, then one Buffer with the 5-byte gRPC message prefix in front.

export const EMPTY = Buffer.alloc(0);
const TARGETS: Record<CompareTarget, number> = { Version: 0, Create: 1, Mod: 2, Value: 3 };
const RESULTS: Record<CompareResult, number> = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 };

/** Bytes of a varint; negative int64s take ten. */
export function varintSize(v: number): number {
  if (v < 0) return 10;
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  let n = 4;
  for (let x = Math.floor(v / 0x10000000); x > 0; x = Math.floor(x / 128)) n++;
  return n;
}

function writeVarint(buf: Buffer, pos: number, v: number): number {
  if (v < 0) {
    let x = BigInt.asUintN(64, BigInt(Math.trunc(v)));
    for (let i = 0; i < 9; i++) {
      buf[pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    buf[pos++] = Number(x);
    return pos;
  }
  if (v < 0x80000000) {
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
  } else {
    while (v > 0x7f) {
      buf[pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
  }
  buf[pos++] = v;
  return pos;
}

/** A length-delimited field (field numbers below 16: one tag byte). */
export const bytesSize = (b: Buffer): number => 1 + varintSize(b.length) + b.length;

export function writeBytes(buf: Buffer, pos: number, tag: number, b: Buffer): number {
  buf[pos++] = tag;
  pos = writeVarint(buf, pos, b.length);
  buf.set(b, pos);
  return pos + b.length;
}

export function writeUint(buf: Buffer, pos: number, tag: number, v: number): number {
  buf[pos++] = tag;
  return writeVarint(buf, pos, v);
}

/** A nested message field of `size` bytes: tag and length; the caller writes the body. */
export const messageSize = (size: number): number => 1 + varintSize(size) + size;

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
  return (p.key.length ? bytesSize(p.key) : 0) + (p.value.length ? bytesSize(p.value) : 0);
}

function writePut(buf: Buffer, pos: number, p: PutRequest): number {
  if (p.key.length) pos = writeBytes(buf, pos, 0x0a, p.key); // 1 key
  if (p.value.length) pos = writeBytes(buf, pos, 0x12, p.value); // 2 value
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

/** A Buffer for one gRPC message of `size` bytes, its prefix (not compressed, length) written. */
export function frame(size: number): Buffer {
  const buf = Buffer.allocUnsafe(5 + size);
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
  return buf;
}

export function done(buf: Buffer, pos: number): Buffer {
  if (pos !== buf.length) throw new Error(`etcd request encoding wrote ${pos} of ${buf.length} bytes`);
  return buf;
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

export function encodeCompactionRequest(revision: number, physical: boolean): Buffer {
  const buf = frame((revision ? 1 + varintSize(revision) : 0) + (physical ? 2 : 0));
  let pos = 5;
  if (revision) pos = writeUint(buf, pos, 0x08, revision); // 1 revision
  if (physical) pos = writeUint(buf, pos, 0x10, 1); // 2 physical
  return done(buf, pos);
}

// ---------------------------------------------------------------------------------------------
// Decoding: one reader over the message, nested messages as [pos, end) ranges of it. Bytes
// fields are views of the message buffer, as protobufjs gives them (no copy). Exported for the
// watch's decoder (watch-stream.ts).

export class Reader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly end: number) {}

  varint(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b < 0x80) return b;
    let v = b & 0x7f;
    let mul = 0x80;
    for (let i = 1; ; i++) {
      if (i === 10 || this.pos >= this.end) throw new Error('malformed varint');
      b = buf[this.pos++];
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }

  /** A length prefix; returns where the delimited field ends. */
  delimited(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.end) throw new Error('truncated message');
    return end;
  }

  bytes(): Buffer {
    const end = this.delimited();
    const b = this.buf.subarray(this.pos, end);
    this.pos = end;
    return b;
  }

  skip(tag: number): void {
    switch (tag & 7) {
      case 0: this.varint(); break;
      case 1: this.pos += 8; break;
      case 2: this.pos = this.delimited(); break;
      case 5: this.pos += 4; break;
      default: throw new Error(`unsupported wire type ${tag & 7}`);
    }
    if (this.pos > this.end) throw new Error('truncated message');
  }

  tag(): number {
    const b = this.buf[this.pos];
    if (b < 0x80) {
      this.pos++;
      return b;
    }
    return this.varint();
  }
}

export function endOf(r: Reader, end: number): void {
  if (r.pos !== end) throw new Error('truncated message');
}

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

export function decodeCompactionResponse(msg: Buffer): CompactResponse {
  return decodePut(new Reader(msg, msg.length), msg.length);
}

// ---------------------------------------------------------------------------------------------
// gRPC over HTTP/2.

/** HTTP/2 flow-control windows: large enough that a 10,000-key range (~15 MB) never waits. */
const WINDOW = 2 ** 31 - 1;
/** Until etcd says otherwise: grpc-go announces no limit unless --max-concurrent-streams is set. */
const PEER_MAX_STREAMS = 100_000;
/**
 * Deadlines below etcd's own request timeout (5 s + 2 election timeouts = 7 s by default), which a
 * linearizable read or a proposal waits out when the leader is lost: the call fails here first,
 * and the next one goes to a member that has a leader.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 5_000;
export const DEFAULT_DIAL_TIMEOUT_MS = 1_000;
export const DEFAULT_TXN_TIMEOUT_MS = 3_000;
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 1_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 1_000;
/**
 * A Txn unanswered this long has its member probed (checkAlive), at most once per this period
 * while it waits: a normal write takes milliseconds, and the probe's answer tells whether the
 * member still runs and whether its raft term rose (see EtcdKvClient.observeTerm).
 */
const STALLED_TXN_MS = 250;
const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM } = http2.constants;

type Decoder = (msg: Buffer) => unknown;

/** One call in flight, hung on its stream so that the listeners below are shared functions. */
class Call {
  timer: NodeJS.Timeout | undefined = undefined;
  headers: IncomingHttpHeaders | undefined = undefined;
  trailers: IncomingHttpHeaders | undefined = undefined;
  first: Buffer | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  length = 0;
  error: Error | undefined = undefined;
  settled = false;
  /** A Txn: the raft term known on its session when it was sent (see EtcdKvClient.observeTerm); -1 otherwise. */
  term = -1;
  sentAt = 0;

  constructor(
    readonly client: EtcdKvClient,
    readonly session: ClientHttp2Session,
    readonly decode: Decoder,
    readonly resolve: (v: unknown) => void,
    readonly reject: (e: unknown) => void,
  ) {}
}

const CALL = Symbol('etcdKvCall');
type CallStream = ClientHttp2Stream & { [CALL]: Call };

function onResponse(this: CallStream, headers: IncomingHttpHeaders): void {
  this[CALL].headers = headers;
}

function onTrailers(this: CallStream, trailers: IncomingHttpHeaders): void {
  this[CALL].trailers = trailers;
}

function onData(this: CallStream, chunk: Buffer): void {
  const c = this[CALL];
  if (c.first === undefined) c.first = chunk;
  else if (c.chunks === undefined) c.chunks = [c.first, chunk];
  else c.chunks.push(chunk);
  c.length += chunk.length;
}

function onStreamError(this: CallStream, err: Error): void {
  this[CALL].error ??= err;
}

/** 'end': the answer is complete; 'close' without 'end': the stream was reset or its session lost. */
function onEnd(this: CallStream): void {
  const c = this[CALL];
  if (!c.settled) settle(c, this);
}

function onDeadline(stream: CallStream): void {
  const c = stream[CALL];
  if (c.settled) return;
  c.settled = true;
  c.timer = undefined;
  if (c.term >= 0) c.client.txnSettled(stream);
  c.reject(sentError(fromGrpcStatus(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded'), true));
  stream.close(NGHTTP2_CANCEL);
  c.client.checkAlive(c.session);
}

export function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function headerString(v: string | string[] | number | undefined): string {
  return v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v);
}

/** HTTP statuses of answers that are not gRPC, as gRPC's spec maps them. */
export function grpcCodeOfHttp(status: number): number {
  switch (status) {
    case 429: case 502: case 503: case 504: return GrpcStatus.UNAVAILABLE;
    case 400: return GrpcStatus.INTERNAL;
    default: return GrpcStatus.UNKNOWN;
  }
}

function settle(c: Call, stream: CallStream): void {
  c.settled = true;
  if (c.timer !== undefined) clearTimeout(c.timer);
  if (c.term >= 0) c.client.txnSettled(stream);
  // A trailers-only answer (every error from etcd) carries grpc-status in its headers.
  const meta = c.trailers?.['grpc-status'] !== undefined ? c.trailers : c.headers;
  const status = meta?.['grpc-status'];
  if (status === undefined) {
    c.reject(transportFailure(c, stream));
    return;
  }
  const code = Number(status);
  if (code !== GrpcStatus.OK) {
    const message = percentDecode(headerString(meta!['grpc-message']));
    // "no leader" (the hasleader check) refuses the call before it runs: not applied.
    const noLeader = isNoLeader(code, message);
    if (noLeader) c.client.leaveMember(c.session);
    c.reject(sentError(fromGrpcStatus(code, message), !noLeader));
    return;
  }
  const body = c.chunks === undefined ? c.first : Buffer.concat(c.chunks, c.length);
  if (body === undefined || body.length < 5 || body[0] !== 0 || body.readUInt32BE(1) !== body.length - 5) {
    c.reject(new StorageError('Internal', 'etcd answered without exactly one uncompressed gRPC message'));
    return;
  }
  let value: unknown;
  try {
    value = c.decode(body.subarray(5));
  } catch (err) {
    c.reject(new StorageError('Internal', `malformed answer from etcd: ${(err as Error).message}`));
    return;
  }
  c.resolve(value);
  const term = (value as { header: ResponseHeader }).header.raftTerm;
  if (term !== undefined) c.client.observeTerm(c.session, term);
}

/** The stream ended without a gRPC status: not a gRPC answer, a reset, or a lost connection. */
function transportFailure(c: Call, stream: ClientHttp2Stream): StorageError {
  // A refused stream was never processed; anything else may have been.
  return sentError(transportError(c, stream), stream.rstCode !== NGHTTP2_REFUSED_STREAM);
}

function transportError(c: Call, stream: ClientHttp2Stream): StorageError {
  // node:http2 gives :status as a number, though its types say string.
  const httpStatus = c.headers?.[':status'] as number | string | undefined;
  if (httpStatus !== undefined && Number(httpStatus) !== 200) {
    return fromGrpcStatus(grpcCodeOfHttp(Number(httpStatus)), `etcd answered HTTP ${httpStatus}`);
  }
  const reason = c.error?.message ?? `stream closed (HTTP/2 code ${stream.rstCode})`;
  if (c.session.destroyed || c.session.closed) return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `connection lost: ${reason}`);
  switch (stream.rstCode) {
    case NGHTTP2_REFUSED_STREAM: return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `etcd refused the stream: ${reason}`);
    case NGHTTP2_CANCEL: return fromGrpcStatus(GrpcStatus.CANCELLED, `etcd cancelled the stream: ${reason}`);
    case NGHTTP2_ENHANCE_YOUR_CALM: return fromGrpcStatus(GrpcStatus.RESOURCE_EXHAUSTED, `etcd reset the stream: ${reason}`);
    default: return fromGrpcStatus(GrpcStatus.INTERNAL, `etcd reset the stream: ${reason}`);
  }
}

/** Marks `err` with whether its request may have reached etcd (see StorageError.sent). */
export function sentError(err: StorageError, sent: boolean): StorageError {
  err.sent = sent;
  return err;
}

/**
 * etcd's answer to a call or watch carrying `hasleader: true` on a member without a leader
 * (rpctypes.ErrGRPCNoLeader, UNAVAILABLE "etcdserver: no leader").
 */
export function isNoLeader(code: number, message: string): boolean {
  return code === GrpcStatus.UNAVAILABLE && /no leader/.test(message);
}

/**
 * The headers of a gRPC call to `path`; without `timeoutMs` (a stream) no grpc-timeout. Every
 * call asks for a leader (`hasleader`, etcd's rpctypes.MetadataRequireLeaderKey): a member cut
 * off from the quorum answers UNAVAILABLE "etcdserver: no leader" at once instead of waiting.
 */
export function requestHeaders(path: string, timeoutMs?: number): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
    'user-agent': 'orch-apiserver-etcd-kv',
    hasleader: 'true',
  };
  // gRPC allows at most 8 digits.
  if (timeoutMs !== undefined) headers['grpc-timeout'] = timeoutMs < 1e8 ? `${timeoutMs}m` : `${Math.ceil(timeoutMs / 1000)}S`;
  return headers;
}

/**
 * Set on a long-lived stream the client resets itself (client closed, GOAWAY), before the reset:
 * why it ended, for the stream's owner to report.
 */
export const STREAM_CUT = Symbol('etcdStreamCut');
export type LongLivedStream = ClientHttp2Stream & { [STREAM_CUT]?: string };

interface Endpoint {
  url: string;
  options: http2.SecureClientSessionOptions;
}

const noop = (): void => undefined;

/** Bytes read so far on the session's socket (0 when there is none). */
function bytesRead(s: ClientHttp2Session): number {
  try {
    return s.socket?.bytesRead ?? 0;
  } catch {
    return 0;
  }
}

/** The liveness probe (checkAlive); with hasleader, so that it also finds a member that lost its leader. */
const PROBE_HEADERS: OutgoingHttpHeaders = requestHeaders('/etcdserverpb.KV/Range', 1_000);
const PROBE_BODY = encodeRangeRequest({ key: Buffer.from([0]), limit: 1, serializable: true, countOnly: true });

export class EtcdKvClient implements EtcdKv {
  private readonly endpoints: Endpoint[];
  /** The deadline of a unary call, and of a watch's creation. */
  readonly timeoutMs: number;
  /** The deadline of a Txn. */
  readonly txnTimeoutMs: number;
  private readonly dialTimeoutMs: number;
  private readonly keepaliveIntervalMs: number;
  private readonly keepaliveTimeoutMs: number;
  /** The keepalive timer of the connected session. */
  private keepalive: NodeJS.Timeout | undefined;
  /** Called each time a new session is adopted (a reconnect, possibly to another member). */
  private readonly connectedListeners = new Set<(endpoint: string) => void>();
  /** The endpoint of the connected session, if any. */
  private endpointUrl: string | undefined;
  private readonly rangeHeaders: OutgoingHttpHeaders;
  private readonly txnHeaders: OutgoingHttpHeaders;
  private readonly compactHeaders: OutgoingHttpHeaders;
  /** The connected session calls go to; undefined until the next call connects. */
  private session: ClientHttp2Session | undefined;
  private connecting: Promise<ClientHttp2Session> | undefined;
  private dialing: ClientHttp2Session | undefined;
  /** The endpoint to try first on the next connect. */
  private next = 0;
  /** Sessions with a ping in flight. */
  private readonly probing = new WeakSet<ClientHttp2Session>();
  private closed = false;
  /** Open long-lived streams (watches), on whichever session: close() and GOAWAY cut them. */
  private readonly streams = new Set<LongLivedStream>();
  /** The highest raft term seen in an answer on each session (observeTerm). */
  private readonly terms = new WeakMap<ClientHttp2Session, number>();
  /** Txns in flight, on whichever session. */
  private readonly txns = new Set<CallStream>();
  /** Probes members with a stalled Txn while any Txn is in flight (checkStalledTxns). */
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(opts: EtcdClientOptions) {
    if (!opts.endpoints.length) throw new Error('EtcdKvClient needs at least one endpoint');
    installCheapAsyncResourceBind();
    this.timeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.txnTimeoutMs = Math.min(opts.txnTimeoutMs ?? DEFAULT_TXN_TIMEOUT_MS, this.timeoutMs);
    this.dialTimeoutMs = Math.min(opts.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS, this.timeoutMs);
    this.keepaliveIntervalMs = opts.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS;
    this.keepaliveTimeoutMs = opts.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS;
    const tls: http2.SecureClientSessionOptions = {};
    if (opts.caFile) tls.ca = readFileSync(opts.caFile);
    if (opts.certFile) tls.cert = readFileSync(opts.certFile);
    if (opts.keyFile) tls.key = readFileSync(opts.keyFile);
    this.endpoints = opts.endpoints.map((e) => {
      const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(e) ? e : `${opts.caFile ? 'https' : 'http'}://${e}`;
      return {
        url,
        options: {
          ...(url.startsWith('https:') ? tls : {}),
          settings: { initialWindowSize: WINDOW, enablePush: false },
          peerMaxConcurrentStreams: PEER_MAX_STREAMS,
          // The default (10 MB) would refuse new streams while large requests are being sent.
          maxSessionMemory: Number.MAX_SAFE_INTEGER,
        },
      };
    });
    this.rangeHeaders = requestHeaders('/etcdserverpb.KV/Range', this.timeoutMs);
    this.txnHeaders = requestHeaders('/etcdserverpb.KV/Txn', this.txnTimeoutMs);
    this.compactHeaders = requestHeaders('/etcdserverpb.KV/Compact', this.timeoutMs);
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    let body: Buffer;
    try {
      body = encodeRangeRequest(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.unary(this.rangeHeaders, body, decodeRangeResponse, this.timeoutMs) as Promise<RangeResponse>;
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    let body: Buffer;
    try {
      body = encodeTxnRequest(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.unary(this.txnHeaders, body, decodeTxnResponse, this.txnTimeoutMs) as Promise<TxnResponse>;
  }

  compact(revision: number, physical = false): Promise<CompactResponse> {
    return this.unary(this.compactHeaders, encodeCompactionRequest(revision, physical), decodeCompactionResponse, this.timeoutMs) as Promise<CompactResponse>;
  }

  /** Which endpoint is in use, and whether a session is up (for logs, tests and metrics). */
  state(): { endpoint?: string; connected: boolean } {
    const s = this.session;
    const connected = s !== undefined && !s.closed && !s.destroyed;
    return { endpoint: connected ? this.endpointUrl : undefined, connected };
  }

  /** `listener(endpoint)` runs each time the client has connected anew; returns the unsubscribe. */
  onConnected(listener: (endpoint: string) => void): () => void {
    this.connectedListeners.add(listener);
    return () => { this.connectedListeners.delete(listener); };
  }

  /** A watch on a stream of its own (watch-stream.ts), loaded on first use: that module imports this one. */
  watch(req: WatchCreateRequest, handler: WatchStreamHandler): Promise<EtcdKvWatch> {
    const { openWatch } = require('./watch-stream') as typeof import('./watch-stream');
    return openWatch(this, req, handler);
  }

  /**
   * Opens a long-lived stream (a watch) to `headers[':path']` on the session the calls use,
   * connecting when there is none, and hands it to `setup` before anything can happen on it (so
   * that no event is missed). It has no deadline: its owner ends it. The client resets it with
   * CANCEL, STREAM_CUT set, when the client closes or its session receives GOAWAY. While it is
   * open it keeps the process alive, as a socket being read would.
   * Rejects with StorageError Unavailable when no session can be had.
   */
  async openStream(headers: OutgoingHttpHeaders, setup: (stream: LongLivedStream, session: ClientHttp2Session) => void): Promise<void> {
    for (let retried = false; ; retried = true) {
      const s = this.session;
      const session = s !== undefined && !s.closed && !s.destroyed ? s : await this.connect();
      let stream: LongLivedStream;
      try {
        stream = session.request(headers, { endStream: false });
      } catch (err) {
        // As for calls: nothing was sent, so once more on a new session.
        this.drop(session);
        if (retried) throw sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE, (err as Error).message), false);
        continue;
      }
      this.streams.add(stream);
      session.ref();
      stream.once('close', () => {
        this.streams.delete(stream);
        for (const other of this.streams) if (other.session === session) return;
        session.unref();
      });
      setup(stream, session);
      return;
    }
  }

  private cut(stream: LongLivedStream, reason: string): void {
    if (stream.closed || stream.destroyed) return;
    stream[STREAM_CUT] = reason;
    stream.close(NGHTTP2_CANCEL);
  }

  /**
   * No new calls; calls in flight finish (or meet their deadline) before the session closes.
   * Long-lived streams are cut at once.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stopKeepalive();
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.dialing?.destroy();
    for (const stream of this.streams) this.cut(stream, 'the etcd client is closed');
    const s = this.session;
    this.session = undefined;
    if (s && !s.destroyed) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private unary(headers: OutgoingHttpHeaders, body: Buffer, decode: Decoder, timeoutMs: number): Promise<unknown> {
    const s = this.session;
    if (s !== undefined && !s.closed && !s.destroyed) return this.start(s, headers, body, decode, timeoutMs, false);
    return this.connect().then((c) => this.start(c, headers, body, decode, timeoutMs, false));
  }

  private start(session: ClientHttp2Session, headers: OutgoingHttpHeaders, body: Buffer, decode: Decoder, timeoutMs: number, retried: boolean): Promise<unknown> {
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(headers);
    } catch (err) {
      // Nothing was sent (e.g. GOAWAY arrived, or stream ids ran out): once more on a new session.
      this.drop(session);
      if (retried) return Promise.reject(sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE, (err as Error).message), false));
      return this.connect().then((c) => this.start(c, headers, body, decode, timeoutMs, true));
    }
    return new Promise((resolve, reject) => {
      const call = new Call(this, session, decode, resolve, reject);
      const s = stream as CallStream;
      s[CALL] = call;
      s.on('response', onResponse);
      s.on('trailers', onTrailers);
      s.on('data', onData);
      s.on('error', onStreamError);
      s.on('end', onEnd);
      s.on('close', onEnd);
      call.timer = setTimeout(onDeadline, timeoutMs, s);
      if (headers === this.txnHeaders) {
        call.term = this.terms.get(session) ?? 0;
        call.sentAt = Date.now();
        this.txns.add(s);
        if (this.stallTimer === undefined && this.keepaliveIntervalMs > 0) {
          this.stallTimer = setTimeout(() => this.checkStalledTxns(), STALLED_TXN_MS);
          this.stallTimer.unref();
        }
      }
      s.end(body);
    });
  }

  /** A Txn's call has settled (answer, failure or deadline). */
  txnSettled(stream: CallStream): void {
    this.txns.delete(stream);
  }

  /**
   * Every STALLED_TXN_MS while Txns are in flight: the member of each Txn waiting longer than that
   * is probed (once per period; checkAlive skips a session with a probe in flight). A hung member
   * is then left within the probe's timeout, and a new raft term is seen within a period.
   */
  private checkStalledTxns(): void {
    this.stallTimer = undefined;
    if (this.txns.size === 0 || this.closed) return;
    const stalledBefore = Date.now() - STALLED_TXN_MS;
    let last: ClientHttp2Session | undefined;
    for (const stream of this.txns) {
      const c = stream[CALL];
      if (c.sentAt <= stalledBefore && c.session !== last) {
        last = c.session;
        this.checkAlive(c.session);
      }
    }
    this.stallTimer = setTimeout(() => this.checkStalledTxns(), STALLED_TXN_MS);
    this.stallTimer.unref();
  }

  /**
   * An answer on `s` carried raft term `term`. When it is above the highest seen on `s`, the
   * member has seen an election since: Txns sent on `s` before, still unanswered, were most
   * likely proposals forwarded to the old leader and lost with it, which etcd does not fail (it
   * waits out the request's deadline; the new leader never heard of them). They fail now as
   * Unavailable, sent (their outcome unknown: one may yet have been committed), so that their
   * owner can decide at once instead of at the deadline: the store sends a compare-guarded Txn
   * once more (store.ts), on the new leader, and its compare keeps a write from applying twice.
   * Reads are left alone: nothing retries them, so failing one early would only trade a wait
   * for an error.
   */
  observeTerm(s: ClientHttp2Session, term: number): void {
    const known = this.terms.get(s) ?? 0;
    if (term <= known) return;
    this.terms.set(s, term);
    for (const stream of this.txns) {
      const c = stream[CALL];
      if (c.session !== s) continue;
      // Sent before any term was known on `s`: this term is the best guess of the one it was sent in.
      if (known === 0) {
        if (c.term === 0) c.term = term;
        continue;
      }
      if (c.term >= term || c.settled) continue;
      c.settled = true;
      if (c.timer !== undefined) clearTimeout(c.timer);
      this.txns.delete(stream);
      c.reject(sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE,
        `etcd elected a new leader (raft term ${c.term} to ${term}) while this write waited; it may have been lost with the old leader`), true));
      stream.close(NGHTTP2_CANCEL);
    }
  }

  private connect(): Promise<ClientHttp2Session> {
    if (this.closed) return Promise.reject(sentError(new StorageError('Unavailable', 'the etcd client is closed'), false));
    return (this.connecting ??= this.dial().finally(() => { this.connecting = undefined; }));
  }

  /** Tries every endpoint once, starting with the one that worked last. */
  private async dial(): Promise<ClientHttp2Session> {
    const n = this.endpoints.length;
    const reasons: string[] = [];
    // Each member once, from where the dial starts: `next` may move while a member is tried (a
    // session lost meanwhile), and read again it could send the dial back to the hung member.
    const first = this.next;
    for (let i = 0; i < n && !this.closed; i++) {
      const index = (first + i) % n;
      const ep = this.endpoints[index];
      try {
        const s = await this.dialOne(ep);
        if (this.closed) {
          s.destroy();
          break;
        }
        this.next = index;
        this.adopt(s, index);
        return s;
      } catch (err) {
        reasons.push(`${ep.url}: ${(err as Error).message}`);
      }
    }
    if (this.closed) throw sentError(new StorageError('Unavailable', 'the etcd client is closed'), false);
    throw sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE, `cannot connect to etcd (${reasons.join('; ')})`), false);
  }

  /**
   * Connects to one endpoint: resolves once the member has answered with its HTTP/2 SETTINGS
   * (TCP alone is not an answer: a stopped process's kernel still accepts), or fails within the
   * dial budget.
   */
  private dialOne(ep: Endpoint): Promise<ClientHttp2Session> {
    return new Promise((resolve, reject) => {
      const s = http2.connect(ep.url, ep.options);
      this.dialing = s;
      let settled = false;
      let connected = false;
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        s.off('connect', onConnect);
        s.off('remoteSettings', onSettings);
        s.off('close', onClose);
        if (this.dialing === s) this.dialing = undefined;
        if (err) {
          s.destroy();
          reject(err);
        } else {
          resolve(s);
        }
      };
      const ready = () => {
        if (!connected || !answered) return;
        // Calls in flight keep the process alive through their deadline timers; an idle client does not.
        s.unref();
        finish();
      };
      const onConnect = () => {
        try {
          s.setLocalWindowSize(WINDOW);
        } catch (err) {
          finish(err as Error);
          return;
        }
        connected = true;
        ready();
      };
      const onSettings = () => {
        answered = true;
        ready();
      };
      const onClose = () => finish(new Error('connection closed'));
      const budget = this.dialTimeoutMs;
      // etcd with --client-cert-auth drops a TLS 1.3 client whose certificate it rejects without
      // a word: the handshake looks done and nothing more comes. Say so, as it is the likely cause.
      const hint = ep.url.startsWith('https:') ? ' (over TLS: is the client certificate, --etcd-certfile, one this etcd trusts?)' : '';
      timer = setTimeout(() => finish(new Error(connected ? `connected, but no answer within ${budget} ms${hint}` : `no connection within ${budget} ms`)), budget);
      // Stays for the session's life: an 'error' without a listener would crash the process.
      s.on('error', (err: Error) => {
        finish(err);
        this.lose(s);
      });
      s.once('connect', onConnect);
      s.on('remoteSettings', onSettings);
      s.once('close', onClose);
    });
  }

  private adopt(s: ClientHttp2Session, index: number): void {
    this.session = s;
    this.endpointUrl = this.endpoints[index].url;
    const lost = () => this.lose(s);
    s.on('close', lost);
    s.on('goaway', () => {
      lost();
      // Streams may run on after GOAWAY, but a watch's never ends by itself: etcd is going away
      // (shutting down) and would cut it later. Cut it now, so its owner watches again elsewhere.
      for (const stream of this.streams) if (stream.session === s) this.cut(stream, 'etcd sent GOAWAY');
    });
    // Frame errors end their stream (its call fails); the session itself may go on.
    s.on('frameError', noop);
    this.startKeepalive(s);
    signalReconnected();
    for (const listener of this.connectedListeners) {
      try {
        listener(this.endpointUrl);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /**
   * Every keepalive interval: when nothing has arrived on `s` since the last tick, it is probed
   * (see checkAlive). Traffic proves the member is running, so a busy session costs nothing.
   */
  private startKeepalive(s: ClientHttp2Session): void {
    this.stopKeepalive();
    if (this.keepaliveIntervalMs <= 0) return;
    let seen = bytesRead(s);
    const timer = setInterval(() => {
      if (s.destroyed || s.closed || this.session !== s) {
        clearInterval(timer);
        if (this.keepalive === timer) this.keepalive = undefined;
        return;
      }
      const now = bytesRead(s);
      if (now !== seen) {
        seen = now;
        return;
      }
      this.checkAlive(s, this.keepaliveTimeoutMs);
    }, this.keepaliveIntervalMs);
    timer.unref();
    this.keepalive = timer;
  }

  private stopKeepalive(): void {
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.keepalive = undefined;
  }

  /** Stops sending calls to `s`; returns whether it was the current session. */
  private drop(s: ClientHttp2Session): boolean {
    if (this.session !== s) return false;
    this.session = undefined;
    this.stopKeepalive();
    return true;
  }

  /** The current session `s` is lost (closed, failed, GOAWAY): the next dial starts at the next member. */
  private lose(s: ClientHttp2Session): void {
    if (this.session !== s) return;
    const index = this.endpoints.findIndex((e) => e.url === this.endpointUrl);
    this.drop(s);
    this.next = (index + 1) % this.endpoints.length;
  }

  /**
   * `s`'s member answered "no leader": it is cut off from the quorum, or electing one. New calls
   * go to the next member. The session is destroyed: calls in flight on it cannot complete there
   * (a proposal forwarded to a dead leader is lost and would wait out etcd's 7 s request timeout),
   * so they fail now as sent (their outcome unknown), and its watches end and resume elsewhere.
   */
  leaveMember(s: ClientHttp2Session): void {
    this.lose(s);
    if (!s.destroyed) s.destroy();
  }

  /**
   * After a missed deadline, and on an idle session every keepalive interval: a session that
   * does not answer a probe within `timeoutMs` is destroyed (its calls fail and its watches end).
   * The probe is a serializable, count-only Range of one key, not an HTTP/2 PING: etcd's gRPC
   * server counts PINGs closer than --grpc-keepalive-min-time (5 s) while it has sent nothing
   * as abuse and answers the third with GOAWAY "too_many_pings", which would cut every watch.
   * Any answer counts (headers back), even an error: the member is running. An answer "no
   * leader" leaves the member (leaveMember): calls stuck on it fail now instead of at their deadline.
   */
  checkAlive(s: ClientHttp2Session, timeoutMs = this.keepaliveTimeoutMs): void {
    if (s.destroyed || s.closed || this.probing.has(s)) return;
    let stream: ClientHttp2Stream;
    try {
      stream = s.request(PROBE_HEADERS);
    } catch {
      return;
    }
    this.probing.add(s);
    const timer = setTimeout(() => {
      if (!s.destroyed) s.destroy(new Error(`etcd did not answer a probe within ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    const settled = () => {
      clearTimeout(timer);
      this.probing.delete(s);
    };
    let ok = false;
    let body: Buffer | undefined;
    const answered = (headers: IncomingHttpHeaders) => {
      settled();
      const status = headers['grpc-status'];
      if (status === undefined) return;
      ok = Number(status) === GrpcStatus.OK;
      if (isNoLeader(Number(status), percentDecode(headerString(headers['grpc-message'])))) this.leaveMember(s);
    };
    stream.once('response', answered);
    stream.once('trailers', answered);
    stream.once('close', settled);
    stream.on('error', noop);
    // One small message (a count): one chunk, or a few. Its header carries the member's raft term.
    stream.on('data', (chunk: Buffer) => { body = body === undefined ? chunk : Buffer.concat([body, chunk]); });
    stream.once('end', () => {
      if (!ok || body === undefined || body.length <= 5) return;
      let term: number | undefined;
      try {
        term = decodeRangeResponse(body.subarray(5)).header.raftTerm;
      } catch {
        return;
      }
      if (term !== undefined) this.observeTerm(s, term);
    });
    stream.end(PROBE_BODY);
  }

}
