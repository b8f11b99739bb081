/**
 * etcd's Watch service (etcdserverpb.Watch/Watch, a bidirectional gRPC stream) on the lean KV
 * client's HTTP/2 sessions, with the protobuf wire format encoded and decoded by hand.
 *
 * Why: every etcd write comes back to the server as a watch event. Through the etcd3 package
 * (grpc-js, protobufjs, Long) receiving them cost several % of the server's single core; here a
 * response is cut from the DATA frames, copied once and read by the KV codec's offset reader
 * (protobuf-wire.ts) into plain objects, and the server needs no grpc-js at all.
 *
 * One HTTP/2 stream per watch, carrying one create request, on the session the KV calls use
 * (EtcdKvClient.openStream): no extra connection or handshake, and a connection the KV calls
 * find dead (a missed deadline, then an unanswered ping) takes its watches down with it instead
 * of leaving them silent. With one watch per stream, every response on it is that watch's.
 *
 * Life of a watch: openWatch resolves once etcd has answered `created` (and rejects with a
 * StorageError when it cannot be created, also after the client's call deadline). Then every
 * response goes to handler.onResponse, in order, until the watch ends: etcd cancels it (its start
 * revision was compacted: Compacted), the stream breaks (connection lost, GOAWAY, reset, a
 * grpc-status that is not OK: Unavailable or the status's code) or the client closes. Then
 * handler.onError gets one StorageError. close() resets the stream (etcd cancels the watcher with
 * it) and ends deliveries at once, without onError. Nothing is resumed here: the caller knows the
 * revision it has reached and watches again from there.
 */
import { GrpcStatus, StorageError, fromGrpcStatus } from '../errors';
import { CANCEL } from '../../http2/frames';
import { H2Headers } from '../../http2/hpack';
import { H2Session, H2Stream, H2StreamHandler } from '../../http2/client-session';
import type { EtcdKeyValue, ResponseHeader } from './kv-types';
import { EMPTY, Reader, bytesSize, done, endOf, frame, messageSize, varintSize, writeBytes, writeUint } from './protobuf-wire';
import { NO_HEADER, decodeHeader, decodeKv } from './kv-codec';
import { grpcCodeOfHttp, isNoLeader, lostReason, percentDecode } from './grpc-failure';
import { GrpcMessageCutter } from './grpc-message-cutter';

// ---------------------------------------------------------------------------------------------
// Messages (etcdserverpb rpc.proto, mvccpb kv.proto): the fields the server uses.

export interface WatchCreateRequest {
  key: Buffer;
  /** [key, rangeEnd); absent: the key alone. */
  rangeEnd?: Buffer;
  /** The first revision to deliver (inclusive); 0 or absent: from now. */
  startRevision?: number;
  /** Periodic empty responses while nothing changes (etcd decides how often). */
  progressNotify?: boolean;
  /** Events carry the key as it was before them. */
  prevKv?: boolean;
}

/** mvccpb.Event.EventType */
export const EVENT_PUT = 0;
export const EVENT_DELETE = 1;

export interface WatchEvent {
  /** EVENT_PUT or EVENT_DELETE. */
  type: number;
  /** For a delete: the key, with mod_revision the revision of the delete, no value. */
  kv: EtcdKeyValue;
  /** With prevKv asked for: the key before the event, when it existed (and was not compacted). */
  prevKv: EtcdKeyValue | undefined;
}

export interface WatchResponse {
  header: ResponseHeader;
  watchId: number;
  created: boolean;
  canceled: boolean;
  /** Set (> 0) when the watch's start revision was compacted: the oldest revision left. */
  compactRevision: number;
  cancelReason: string;
  fragment: boolean;
  events: WatchEvent[];
}

export interface WatchStreamHandler {
  /** Every response after the `created` one, in order. Not called after close() or onError. */
  onResponse(res: WatchResponse): void;
  /** The watch has ended; called at most once, and never after close(). */
  onError(err: StorageError): void;
}

// ---------------------------------------------------------------------------------------------
// Encoding.

/** WatchRequest{create_request}, with the 5-byte gRPC message prefix. */
export function encodeWatchCreateRequest(req: WatchCreateRequest): Buffer {
  let size = req.key.length ? bytesSize(req.key) : 0;
  if (req.rangeEnd?.length) size += bytesSize(req.rangeEnd);
  if (req.startRevision) size += 1 + varintSize(req.startRevision);
  if (req.progressNotify) size += 2;
  if (req.prevKv) size += 2;
  const buf = frame(messageSize(size));
  let pos = writeUint(buf, 5, 0x0a, size); // WatchRequest 1 create_request
  if (req.key.length) pos = writeBytes(buf, pos, 0x0a, req.key); // 1 key
  if (req.rangeEnd?.length) pos = writeBytes(buf, pos, 0x12, req.rangeEnd); // 2 range_end
  if (req.startRevision) pos = writeUint(buf, pos, 0x18, req.startRevision); // 3 start_revision
  if (req.progressNotify) pos = writeUint(buf, pos, 0x20, 1); // 4 progress_notify
  if (req.prevKv) pos = writeUint(buf, pos, 0x30, 1); // 6 prev_kv
  return done(buf, pos);
}

// ---------------------------------------------------------------------------------------------
// Decoding.

/** An int64 varint; a negative one (watch_id -1 on a failed create) takes ten bytes. */
function int64(r: Reader): number {
  const start = r.pos;
  const v = r.varint();
  if (r.pos - start < 10) return v;
  let x = 0n;
  for (let i = r.pos - 1; i >= start; i--) x = (x << 7n) | BigInt(r.buf[i] & 0x7f);
  return Number(BigInt.asIntN(64, x));
}

const noKv = (): EtcdKeyValue => ({ key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0, version: 0 });

function decodeEvent(r: Reader, end: number): WatchEvent {
  let type = EVENT_PUT;
  let kv: EtcdKeyValue | undefined;
  let prevKv: EtcdKeyValue | undefined;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case 0x08: type = r.varint(); break; // 1 type
      case 0x12: kv = decodeKv(r, r.delimited()); break; // 2 kv
      case 0x1a: prevKv = decodeKv(r, r.delimited()); break; // 3 prev_kv
      default: r.skip(tag);
    }
  }
  endOf(r, end);
  return { type, kv: kv ?? noKv(), prevKv };
}

/** One WatchResponse (without the gRPC prefix). Bytes fields are views of `msg`. */
export function decodeWatchResponse(msg: Buffer): WatchResponse {
  const r = new Reader(msg, msg.length);
  let header: ResponseHeader | undefined;
  let watchId = 0;
  let created = false;
  let canceled = false;
  let compactRevision = 0;
  let cancelReason = '';
  let fragment = false;
  const events: WatchEvent[] = [];
  while (r.pos < msg.length) {
    const tag = r.tag();
    switch (tag) {
      case 0x0a: header = decodeHeader(r, r.delimited()); break; // 1 header
      case 0x10: watchId = int64(r); break; // 2 watch_id
      case 0x18: created = r.varint() !== 0; break; // 3 created
      case 0x20: canceled = r.varint() !== 0; break; // 4 canceled
      case 0x28: compactRevision = int64(r); break; // 5 compact_revision
      case 0x32: cancelReason = r.bytes().toString(); break; // 6 cancel_reason
      case 0x38: fragment = r.varint() !== 0; break; // 7 fragment
      case 0x5a: events.push(decodeEvent(r, r.delimited())); break; // 11 events
      default: r.skip(tag);
    }
  }
  endOf(r, msg.length);
  return { header: header ?? NO_HEADER(), watchId, created, canceled, compactRevision, cancelReason, fragment, events };
}

// ---------------------------------------------------------------------------------------------
// The stream.

/**
 * What a watch needs of the client whose session it rides (EtcdKvClient, which opens watches
 * with openWatch): named here so that this file need not import the client.
 */
export interface WatchStreamHost {
  /** The deadline of the watch's creation. */
  readonly timeoutMs: number;
  openStream(setup: (stream: H2Stream, session: H2Session) => H2StreamHandler): Promise<void>;
  /** Probes `session` after a missed deadline. */
  checkAlive(session: H2Session): void;
  /** Leaves a member that answered "no leader". */
  leaveMember(session: H2Session): void;
}

const RESOLVED = Promise.resolve();

const CREATING = 0;
const OPEN = 1;
const ENDED = 2;

/** One watch: its stream's handler. */
export class EtcdWatch implements H2StreamHandler {
  state = CREATING;
  /** The creation deadline. */
  timer: NodeJS.Timeout | undefined = undefined;
  headers: H2Headers | undefined = undefined;
  trailers: H2Headers | undefined = undefined;
  /** The watch_id etcd gave it (informational: the stream carries no other watch). */
  watchId = 0;
  readonly cutter = new GrpcMessageCutter();
  /** The messages of the current chunk; reused. */
  readonly messages: Buffer[] = [];

  constructor(
    readonly client: WatchStreamHost,
    readonly session: H2Session,
    readonly stream: H2Stream,
    readonly handler: WatchStreamHandler,
    readonly resolve: (w: EtcdWatch) => void,
    readonly reject: (e: StorageError) => void,
  ) {}

  /** Ends deliveries now and resets the stream; etcd drops the watcher with it. */
  close(): Promise<void> {
    if (this.state !== ENDED) {
      const creating = this.state === CREATING;
      end(this);
      if (creating) this.reject(new StorageError('Unavailable', 'the watch was closed before etcd created it'));
    }
    return RESOLVED;
  }

  onHeaders(_stream: H2Stream, headers: H2Headers): void {
    if (this.headers === undefined) this.headers = headers;
    else this.trailers = headers;
  }

  onData(_stream: H2Stream, chunk: Buffer): void {
    if (this.state === ENDED) return;
    const messages = this.messages;
    try {
      this.cutter.push(chunk, messages);
    } catch (err) {
      messages.length = 0;
      fail(this, new StorageError('Internal', `malformed watch stream from etcd: ${(err as Error).message}`));
      return;
    }
    for (let i = 0; i < messages.length && this.state !== ENDED; i++) {
      let res: WatchResponse;
      try {
        res = decodeWatchResponse(messages[i]);
      } catch (err) {
        fail(this, new StorageError('Internal', `malformed watch response from etcd: ${(err as Error).message}`));
        break;
      }
      dispatch(this, res);
    }
    messages.length = 0;
  }

  /** etcd finished the stream, or it was reset, lost, or cut by the client. */
  onClose(): void {
    if (this.state !== ENDED) fail(this, streamError(this));
  }
}

/**
 * Creates a watch; resolves once etcd has created it. `handler` receives what follows (see the
 * header comment). Rejects with a StorageError.
 */
export function openWatch(client: WatchStreamHost, req: WatchCreateRequest, handler: WatchStreamHandler): Promise<EtcdWatch> {
  let body: Buffer;
  try {
    body = encodeWatchCreateRequest(req);
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise<EtcdWatch>((resolve, reject) => {
    client.openStream((stream, session) => {
      const w = new EtcdWatch(client, session, stream, handler, resolve, reject);
      w.timer = setTimeout(onCreateDeadline, client.timeoutMs, w);
      stream.write(body);
      return w;
    }).catch(reject);
  });
}

function dispatch(w: EtcdWatch, res: WatchResponse): void {
  if (w.state === CREATING) {
    if (!res.created) {
      fail(w, new StorageError('Internal', 'etcd answered a watch before creating it'));
      return;
    }
    if (res.canceled || res.compactRevision > 0) {
      fail(w, cancelError(res));
      return;
    }
    w.state = OPEN;
    w.watchId = res.watchId;
    clearTimeout(w.timer);
    w.timer = undefined;
    w.resolve(w);
    return;
  }
  if (res.canceled || res.compactRevision > 0) {
    fail(w, cancelError(res));
    return;
  }
  w.handler.onResponse(res);
}

/** Why etcd cancelled a watch: its start revision was compacted, or what cancel_reason says. */
function cancelError(res: WatchResponse): StorageError {
  if (res.compactRevision > 0) return new StorageError('Compacted', 'mvcc: required revision has been compacted', res.compactRevision);
  return fromGrpcStatus(GrpcStatus.UNKNOWN, `etcd cancelled the watch${res.cancelReason ? `: ${res.cancelReason}` : ''}`);
}

function onCreateDeadline(w: EtcdWatch): void {
  w.timer = undefined;
  if (w.state !== CREATING) return;
  fail(w, fromGrpcStatus(GrpcStatus.DEADLINE_EXCEEDED, 'etcd did not create the watch in time'));
  w.client.checkAlive(w.session);
}

/** Ends the watch with `err`: the creation's rejection, or the one onError. */
function fail(w: EtcdWatch, err: StorageError): void {
  if (w.state === ENDED) return;
  const creating = w.state === CREATING;
  end(w);
  if (creating) w.reject(err);
  else w.handler.onError(err);
}

function end(w: EtcdWatch): void {
  w.state = ENDED;
  if (w.timer !== undefined) {
    clearTimeout(w.timer);
    w.timer = undefined;
  }
  w.stream.close(CANCEL);
}

/** Why the stream ended without the watch being cancelled or closed. */
function streamError(w: EtcdWatch): StorageError {
  // A trailers-only answer (an error before any message) carries grpc-status in its headers.
  const meta = w.trailers?.['grpc-status'] !== undefined ? w.trailers : w.headers;
  const status = w.stream.ended ? meta?.['grpc-status'] : undefined;
  if (status !== undefined) {
    const code = Number(status);
    const message = percentDecode(meta!['grpc-message'] ?? '');
    // The watch asked for a leader (hasleader): etcd ends it when its member loses the leader.
    if (isNoLeader(code, message)) w.client.leaveMember(w.session);
    if (code !== GrpcStatus.OK) return fromGrpcStatus(code, message);
    return fromGrpcStatus(GrpcStatus.UNAVAILABLE, 'etcd ended the watch stream');
  }
  const httpStatus = w.headers?.[':status'];
  if (httpStatus !== undefined && Number(httpStatus) !== 200) {
    return fromGrpcStatus(grpcCodeOfHttp(Number(httpStatus)), `etcd answered the watch with HTTP ${httpStatus}`);
  }
  const stream = w.stream;
  const reason = stream.cutReason
    ?? (w.session.destroyed ? `connection lost: ${lostReason(w.session)}` : undefined)
    ?? `stream reset (HTTP/2 code ${stream.rstCode})`;
  return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `the etcd watch stream was interrupted (${reason})`);
}
