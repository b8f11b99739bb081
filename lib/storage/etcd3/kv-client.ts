/**
 * A lean gRPC client for etcd's unary KV calls (Range, Txn, Compact), on an HTTP/2 transport of
 * its own (lib/http2/client-session.ts) with the protobuf wire format encoded and decoded by hand (kv-codec.ts).
 *
 * Why: under write load the etcd3 package (grpc-js, protobufjs, Long, cockatiel) took about a
 * fifth of the server's single core. This client does the same calls with one Buffer per request
 * (sizes computed first), an offset-based reader for the answer, revisions as plain numbers, and
 * no closures per call beyond the Promise's own; node:http2's per-stream machinery, which cost
 * three times the rest of a call, is not used either. Watches ride the same sessions
 * (watch-stream.ts).
 *
 * Connections: one HTTP/2 session at a time, to the first endpoint that answers, made on the first
 * call and again after it closes, fails or receives GOAWAY. A member counts as connected once it
 * has sent its HTTP/2 SETTINGS (a SIGSTOPped member's kernel still accepts TCP, but nothing
 * answers), within a dial budget of 1 s per endpoint. While connected, an idle session is probed
 * every interval and must answer within its timeout, or the session is destroyed: its calls fail, its
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
 *
 * Beside it: one call (unary-call.ts), the member probe (member-probe.ts), the endpoints and the
 * dial of one (member-dial.ts), the Txns in flight and the raft terms (pending-txns.ts).
 */
import { GrpcStatus, StorageError, fromGrpcStatus } from '../errors';
import { CANCEL } from '../../http2/frames';
import { H2Session, H2Stream, H2StreamHandler } from '../../http2/client-session';
import type { EtcdKv, EtcdKvWatch, QuorumHealth } from './kv';
import type {
  CompactResponse, LeaseGrantResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from './kv-types';
import {
  decodeCompactionResponse, decodeLeaseGrantResponse, decodeRangeResponse, decodeTxnResponse,
  encodeCompactionRequest, encodeLeaseGrantRequest, encodeRangeRequest, encodeTxnRequest,
} from './kv-codec';
import { sentError } from './grpc-failure';
import { WatchCreateRequest, WatchStreamHandler, openWatch } from './watch-stream';
import { Call, CallHost, CallKind, Decoder, onDeadline } from './unary-call';
import { PROBE_BODY, Probe } from './member-probe';
import { DialHost, Endpoint, dialEndpoint, endpointsOf } from './member-dial';
import { PendingTxns, PendingTxnsHost } from './pending-txns';
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
  /** Interval of keepalive probes on an idle connected session (see checkAlive); 1 s by default, 0: none. */
  keepaliveIntervalMs?: number;
  /** How long a keepalive probe may go unanswered before the session is dropped; 1 s by default. */
  keepaliveTimeoutMs?: number;
}

// ---------------------------------------------------------------------------------------------
// gRPC over HTTP/2.

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

/** A stream's handler until its owner's is in place (nothing arrives before then). */
const NO_HANDLER: H2StreamHandler = { onHeaders() {}, onData() {}, onClose() {} };

export class EtcdKvClient implements EtcdKv, CallHost, DialHost, PendingTxnsHost {
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
  /** The connected session calls go to; undefined until the next call connects. */
  private session: H2Session | undefined;
  /** The endpoint of every adopted session (for its header blocks). */
  private readonly endpointOf = new WeakMap<H2Session, Endpoint>();
  /** Adopted sessions not yet closed, the current one and any still finishing their streams. */
  private readonly sessions = new Set<H2Session>();
  private connecting: Promise<H2Session> | undefined;
  /** The session being dialed, if any (dialEndpoint sets it). */
  dialing: H2Session | undefined;
  /** The endpoint to try first on the next connect. */
  private next = 0;
  /** Sessions with a probe in flight. */
  private readonly probing = new WeakSet<H2Session>();
  private closed = false;
  /** Txns in flight, on whichever session, and the raft term seen on each session. */
  private readonly pending: PendingTxns;
  /** What this client saw of etcd (kv.ts QuorumHealth): sawAnswer() and sawFailure(), from the calls and sessions. */
  private readonly health: QuorumHealth = { answeredAt: 0, failedAt: 0 };

  constructor(opts: EtcdClientOptions) {
    if (!opts.endpoints.length) throw new Error('EtcdKvClient needs at least one endpoint');
    this.timeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.txnTimeoutMs = Math.min(opts.txnTimeoutMs ?? DEFAULT_TXN_TIMEOUT_MS, this.timeoutMs);
    this.dialTimeoutMs = Math.min(opts.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS, this.timeoutMs);
    this.keepaliveIntervalMs = opts.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS;
    this.keepaliveTimeoutMs = opts.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS;
    this.endpoints = endpointsOf(opts, this.timeoutMs, this.txnTimeoutMs);
    this.pending = new PendingTxns(this, this.keepaliveIntervalMs > 0);
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    let body: Buffer;
    try {
      body = encodeRangeRequest(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.unary('range', body, decodeRangeResponse, this.timeoutMs) as Promise<RangeResponse>;
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    let body: Buffer;
    try {
      body = encodeTxnRequest(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.unary('txn', body, decodeTxnResponse, this.txnTimeoutMs) as Promise<TxnResponse>;
  }

  compact(revision: number, physical = false): Promise<CompactResponse> {
    return this.unary('compact', encodeCompactionRequest(revision, physical), decodeCompactionResponse, this.timeoutMs) as Promise<CompactResponse>;
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.unary('leaseGrant', encodeLeaseGrantRequest(ttlSeconds), decodeLeaseGrantResponse, this.timeoutMs) as Promise<LeaseGrantResponse>;
  }

  quorumHealth(): QuorumHealth {
    return { ...this.health };
  }

  /** A Txn was answered: a quorum agreed to it. */
  sawAnswer(): void {
    this.health.answeredAt = Date.now();
  }

  /** A call or the session failed for want of etcd (lost, deadline, Unavailable, no leader). */
  sawFailure(): void {
    this.health.failedAt = Date.now();
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

  /** A watch on a stream of its own (watch-stream.ts). */
  watch(req: WatchCreateRequest, handler: WatchStreamHandler): Promise<EtcdKvWatch> {
    return openWatch(this, req, handler);
  }

  /**
   * Opens a long-lived stream (a watch) on the session the calls use, connecting when there is
   * none; `setup` makes its handler before anything can arrive on it (so that no event is
   * missed), and may write to it. It has no deadline: its owner ends it. The client resets it
   * with CANCEL, a `cutReason` set, when the client closes or its session receives GOAWAY.
   * While it is open it keeps the process alive, as a socket being read would.
   * Rejects with StorageError Unavailable when no session can be had.
   */
  async openStream(setup: (stream: H2Stream, session: H2Session) => H2StreamHandler): Promise<void> {
    for (let retried = false; ; retried = true) {
      const s = this.session;
      const session = s !== undefined && !s.closed && !s.destroyed ? s : await this.connect();
      let stream: H2Stream;
      try {
        stream = session.request(this.blockFor(session, 'watch'), NO_HANDLER, undefined, false, true);
      } catch (err) {
        // As for calls: nothing was sent, so once more on a new session.
        this.drop(session);
        if (retried) throw sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE, (err as Error).message), false);
        continue;
      }
      stream.handler = setup(stream, session);
      return;
    }
  }

  private blockFor(session: H2Session, kind: CallKind): Buffer {
    return this.endpointOf.get(session)!.blocks[kind];
  }

  private cut(stream: H2Stream, reason: string): void {
    if (stream.closed) return;
    stream.cutReason = reason;
    stream.close(CANCEL);
  }

  /** Cuts the long-lived streams (watches) of `s`. */
  private cutStreams(s: H2Session, reason: string): void {
    for (const stream of s.openStreams()) if (stream.longLived) this.cut(stream, reason);
  }

  /**
   * No new calls; calls in flight finish (or meet their deadline) before the session closes.
   * Long-lived streams are cut at once.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stopKeepalive();
    this.pending.stop();
    this.dialing?.destroy();
    for (const s of this.sessions) this.cutStreams(s, 'the etcd client is closed');
    const s = this.session;
    this.session = undefined;
    await Promise.all([...this.sessions].map((x) => new Promise<void>((resolve) => x.close(resolve))));
    if (s && !s.destroyed) await new Promise<void>((resolve) => s.close(resolve));
  }

  private unary(kind: CallKind, body: Buffer, decode: Decoder, timeoutMs: number): Promise<unknown> {
    const s = this.session;
    if (s !== undefined && !s.closed && !s.destroyed) return this.start(s, kind, body, decode, timeoutMs, false);
    return this.connect().then((c) => this.start(c, kind, body, decode, timeoutMs, false));
  }

  private start(session: H2Session, kind: CallKind, body: Buffer, decode: Decoder, timeoutMs: number, retried: boolean): Promise<unknown> {
    const call = new Call(this, session, decode);
    try {
      call.stream = session.request(this.blockFor(session, kind), call, body, true);
    } catch (err) {
      // Nothing was sent (GOAWAY arrived, or stream ids ran out): once more on a new session.
      this.drop(session);
      if (retried) return Promise.reject(sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE, (err as Error).message), false));
      return this.connect().then((c) => this.start(c, kind, body, decode, timeoutMs, true));
    }
    // The handler hears nothing before the socket is read, after this executor has run.
    return new Promise((resolve, reject) => {
      call.resolve = resolve;
      call.reject = reject;
      call.timer = setTimeout(onDeadline, timeoutMs, call);
      if (kind === 'txn') this.pending.sent(call, session);
    });
  }

  /** A Txn's call has settled (answer, failure or deadline): PendingTxns.txnSettled. */
  txnSettled(call: Call): void {
    this.pending.txnSettled(call);
  }

  /** An answer on `s` carried raft term `term`: PendingTxns.observeTerm. */
  observeTerm(s: H2Session, term: number): void {
    this.pending.observeTerm(s, term);
  }

  private connect(): Promise<H2Session> {
    if (this.closed) return Promise.reject(sentError(new StorageError('Unavailable', 'the etcd client is closed'), false));
    return (this.connecting ??= this.dial().finally(() => { this.connecting = undefined; }));
  }

  /** Tries every endpoint once, starting with the one that worked last. */
  private async dial(): Promise<H2Session> {
    const n = this.endpoints.length;
    const reasons: string[] = [];
    // Each member once, from where the dial starts: `next` may move while a member is tried (a
    // session lost meanwhile), and read again it could send the dial back to the hung member.
    const first = this.next;
    for (let i = 0; i < n && !this.closed; i++) {
      const index = (first + i) % n;
      const ep = this.endpoints[index];
      try {
        const s = await dialEndpoint(this, ep, this.dialTimeoutMs);
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

  private adopt(s: H2Session, index: number): void {
    const ep = this.endpoints[index];
    this.session = s;
    this.endpointUrl = ep.url;
    this.endpointOf.set(s, ep);
    this.sessions.add(s);
    s.on('close', () => {
      this.sessions.delete(s);
      this.lose(s);
    });
    s.on('goaway', () => {
      this.lose(s);
      // Streams may run on after GOAWAY, but a watch's never ends by itself: etcd is going away
      // (shutting down) and would cut it later. Cut it now, so its owner watches again elsewhere.
      this.cutStreams(s, 'etcd sent GOAWAY');
    });
    this.startKeepalive(s);
    signalReconnected();
    for (const listener of this.connectedListeners) {
      try {
        listener(ep.url);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /**
   * Every keepalive interval: when nothing has arrived on `s` since the last tick, it is probed
   * (see checkAlive). Traffic proves the member is running, so a busy session costs nothing.
   */
  private startKeepalive(s: H2Session): void {
    this.stopKeepalive();
    if (this.keepaliveIntervalMs <= 0) return;
    let seen = s.bytesRead;
    const timer = setInterval(() => {
      if (s.destroyed || s.closed || this.session !== s) {
        clearInterval(timer);
        if (this.keepalive === timer) this.keepalive = undefined;
        return;
      }
      const now = s.bytesRead;
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
  private drop(s: H2Session): boolean {
    if (this.session !== s) return false;
    this.session = undefined;
    this.stopKeepalive();
    return true;
  }

  /** The current session `s` is lost (closed, failed, GOAWAY): the next dial starts at the next member. */
  lose(s: H2Session): void {
    if (this.session !== s) return;
    this.sawFailure();
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
  leaveMember(s: H2Session): void {
    this.lose(s);
    s.destroy(new Error('the member has lost its leader'));
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
  checkAlive(s: H2Session, timeoutMs = this.keepaliveTimeoutMs): void {
    if (s.destroyed || s.closed || this.probing.has(s)) return;
    const timer = setTimeout(() => s.destroy(new Error(`etcd did not answer a probe within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    try {
      s.request(this.blockFor(s, 'probe'), new Probe(this, s, timer), PROBE_BODY, true);
    } catch {
      clearTimeout(timer);
      return;
    }
    this.probing.add(s);
  }

  /** A probe of `s` is over (answered or not). */
  probeSettled(s: H2Session): void {
    this.probing.delete(s);
  }
}
