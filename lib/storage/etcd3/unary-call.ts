/**
 * One unary gRPC call of the etcd client (Range, Txn, Compact, LeaseGrant) on an HTTP/2 stream:
 * its handler gathers the answer, and settling it turns the gRPC status, the transport's fate or
 * the one message into a result or a StorageError that says whether the call may have reached
 * etcd (`sent`). Also the calls' gRPC paths and header blocks. What the call learns of its member
 * it tells the client that made it (CallHost).
 */
import { GrpcStatus, StorageError, fromGrpcStatus } from '../errors';
import { CANCEL, ENHANCE_YOUR_CALM, REFUSED_STREAM } from '../../http2/frames';
import { H2Headers, encodeHeaderBlock } from '../../http2/hpack';
import type { H2Session, H2Stream, H2StreamHandler } from '../../http2/client-session';
import type { ResponseHeader } from './kv-types';
import { grpcCodeOfHttp, isNoLeader, lostReason, percentDecode, sentError } from './grpc-failure';

/** What a call and a probe tell the client that made them (EtcdKvClient implements it). */
export interface CallHost {
  /** A Txn settled: it no longer counts as waiting (stalled-Txn probing). */
  txnSettled(call: Call): void;
  /** An answer came: the member is alive (the health check may rest on it). */
  sawAnswer(): void;
  /** A call failed as an unreachable member would. */
  sawFailure(): void;
  /** Probes the session's member now (a deadline passed). */
  checkAlive(session: H2Session): void;
  /** The member has no leader: the next call goes to another. */
  leaveMember(session: H2Session): void;
  /** The member's raft term as an answer carried it. */
  observeTerm(session: H2Session, term: number): void;
  /** A probe finished. */
  probeSettled(session: H2Session): void;
}

export type Decoder = (msg: Buffer) => unknown;

/** The calls and streams this client makes; each has a header block per endpoint (Endpoint.blocks). */
export type CallKind = 'range' | 'txn' | 'compact' | 'leaseGrant' | 'watch' | 'probe';

/** One call in flight: its stream's handler. */
export class Call implements H2StreamHandler {
  timer: NodeJS.Timeout | undefined = undefined;
  headers: H2Headers | undefined = undefined;
  trailers: H2Headers | undefined = undefined;
  first: Buffer | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  length = 0;
  settled = false;
  /** A Txn: the raft term known on its session when it was sent (see PendingTxns.observeTerm); -1 otherwise. */
  term = -1;
  sentAt = 0;
  stream!: H2Stream;
  resolve!: (v: unknown) => void;
  reject!: (e: unknown) => void;

  constructor(readonly client: CallHost, readonly session: H2Session, readonly decode: Decoder) {}

  onHeaders(_stream: H2Stream, headers: H2Headers): void {
    if (this.headers === undefined) this.headers = headers;
    else this.trailers = headers;
  }

  onData(_stream: H2Stream, chunk: Buffer): void {
    if (this.first === undefined) this.first = chunk;
    else if (this.chunks === undefined) this.chunks = [this.first, chunk];
    else this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The answer is complete (the peer ended the stream), or the stream was reset or its session lost. */
  onClose(stream: H2Stream): void {
    if (!this.settled) settle(this, stream);
  }
}

export function onDeadline(c: Call): void {
  if (c.settled) return;
  c.settled = true;
  c.timer = undefined;
  if (c.term >= 0) c.client.txnSettled(c);
  c.client.sawFailure();
  c.reject(sentError(fromGrpcStatus(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded'), true));
  c.stream.close(CANCEL);
  c.client.checkAlive(c.session);
}

function settle(c: Call, stream: H2Stream): void {
  c.settled = true;
  if (c.timer !== undefined) clearTimeout(c.timer);
  if (c.term >= 0) c.client.txnSettled(c);
  // A trailers-only answer (every error from etcd) carries grpc-status in its headers.
  const meta = c.trailers?.['grpc-status'] !== undefined ? c.trailers : c.headers;
  const status = stream.ended ? meta?.['grpc-status'] : undefined;
  if (status === undefined) {
    c.client.sawFailure();
    c.reject(transportFailure(c, stream));
    return;
  }
  const code = Number(status);
  if (code !== GrpcStatus.OK) {
    const message = percentDecode(meta!['grpc-message'] ?? '');
    // "no leader" (the hasleader check) refuses the call before it runs: not applied.
    const noLeader = isNoLeader(code, message);
    if (noLeader) c.client.leaveMember(c.session);
    if (noLeader || code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.DEADLINE_EXCEEDED) c.client.sawFailure();
    c.reject(sentError(fromGrpcStatus(code, message), !noLeader));
    return;
  }
  const body = messageOf(c);
  if (body === undefined) {
    c.reject(new StorageError('Internal', 'etcd answered without exactly one uncompressed gRPC message'));
    return;
  }
  let value: unknown;
  try {
    value = c.decode(body);
  } catch (err) {
    c.reject(new StorageError('Internal', `malformed answer from etcd: ${(err as Error).message}`));
    return;
  }
  c.resolve(value);
  if (c.term >= 0) c.client.sawAnswer();
  const term = (value as { header: ResponseHeader }).header.raftTerm;
  if (term !== undefined) c.client.observeTerm(c.session, term);
}

/**
 * The one gRPC message of an answer, in a Buffer of its own: DATA payloads are views of the
 * socket's reads, and what is decoded from the message (views of it) may be kept in a cache.
 */
function messageOf(c: Call): Buffer | undefined {
  const n = c.length;
  if (n < 5) return undefined;
  const body = c.chunks === undefined ? c.first! : Buffer.concat(c.chunks, n);
  if (body[0] !== 0 || body.readUInt32BE(1) !== n - 5) return undefined;
  if (c.chunks !== undefined) return body.subarray(5);
  const msg = Buffer.allocUnsafe(n - 5);
  body.copy(msg, 0, 5, n);
  return msg;
}

/** The stream ended without a gRPC status: not a gRPC answer, a reset, or a lost connection. */
function transportFailure(c: Call, stream: H2Stream): StorageError {
  // A refused stream was never processed; anything else may have been.
  return sentError(transportError(c, stream), stream.rstCode !== REFUSED_STREAM);
}

function transportError(c: Call, stream: H2Stream): StorageError {
  const httpStatus = c.headers?.[':status'];
  if (httpStatus !== undefined && Number(httpStatus) !== 200) {
    return fromGrpcStatus(grpcCodeOfHttp(Number(httpStatus)), `etcd answered HTTP ${httpStatus}`);
  }
  if (c.session.destroyed) return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `connection lost: ${lostReason(c.session)}`);
  const reason = `stream closed (HTTP/2 code ${stream.rstCode})`;
  switch (stream.rstCode) {
    case REFUSED_STREAM: return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `etcd refused the stream: ${reason}`);
    case CANCEL: return fromGrpcStatus(GrpcStatus.CANCELLED, `etcd cancelled the stream: ${reason}`);
    case ENHANCE_YOUR_CALM: return fromGrpcStatus(GrpcStatus.RESOURCE_EXHAUSTED, `etcd reset the stream: ${reason}`);
    default: return fromGrpcStatus(GrpcStatus.INTERNAL, `etcd reset the stream: ${reason}`);
  }
}

export const PATHS: Record<CallKind, string> = {
  range: '/etcdserverpb.KV/Range',
  txn: '/etcdserverpb.KV/Txn',
  compact: '/etcdserverpb.KV/Compact',
  leaseGrant: '/etcdserverpb.Lease/LeaseGrant',
  watch: '/etcdserverpb.Watch/Watch',
  probe: '/etcdserverpb.KV/Range',
};

/**
 * The header block of a gRPC call to `path` at `url`; without `timeoutMs` (a stream) no
 * grpc-timeout. Every call asks for a leader (`hasleader`, etcd's rpctypes.MetadataRequireLeaderKey):
 * a member cut off from the quorum answers UNAVAILABLE "etcdserver: no leader" at once instead
 * of waiting.
 */
export function requestBlock(url: URL, path: string, timeoutMs?: number): Buffer {
  const fields: [string, string][] = [
    [':method', 'POST'],
    [':scheme', url.protocol === 'https:' ? 'https' : 'http'],
    [':path', path],
    [':authority', url.host],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ['user-agent', 'orch-apiserver-etcd-kv'],
    ['hasleader', 'true'],
  ];
  // gRPC allows at most 8 digits.
  if (timeoutMs !== undefined) fields.push(['grpc-timeout', timeoutMs < 1e8 ? `${timeoutMs}m` : `${Math.ceil(timeoutMs / 1000)}S`]);
  return encodeHeaderBlock(fields);
}
