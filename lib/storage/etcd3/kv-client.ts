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
 */
import { readFileSync } from 'node:fs';
import { GrpcStatus, StorageError, fromGrpcStatus } from '../errors';
import { CANCEL } from '../../http2/frames';
import { H2ConnectOptions, H2Session, H2Stream, H2StreamHandler } from '../../http2/client-session';
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
import { Call, CallHost, CallKind, Decoder, PATHS, onDeadline, requestBlock } from './unary-call';
import { PROBE_BODY, PROBE_TIMEOUT_MS, Probe } from './member-probe';
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
/**
 * A Txn unanswered this long has its member probed (checkAlive), at most once per this period
 * while it waits: a normal write takes milliseconds, and the probe's answer tells whether the
 * member still runs and whether its raft term rose (see EtcdKvClient.observeTerm).
 */
const STALLED_TXN_MS = 250;

interface Endpoint {
  url: string;
  connect: H2ConnectOptions;
  /** The header block of each kind of call to this endpoint. */
  blocks: Record<CallKind, Buffer>;
}

/** A stream's handler until its owner's is in place (nothing arrives before then). */
const NO_HANDLER: H2StreamHandler = { onHeaders() {}, onData() {}, onClose() {} };

export class EtcdKvClient implements EtcdKv, CallHost {
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
  private dialing: H2Session | undefined;
  /** The endpoint to try first on the next connect. */
  private next = 0;
  /** Sessions with a probe in flight. */
  private readonly probing = new WeakSet<H2Session>();
  private closed = false;
  /** The highest raft term seen in an answer on each session (observeTerm). */
  private readonly terms = new WeakMap<H2Session, number>();
  /** Txns in flight, on whichever session. */
  private readonly txns = new Set<Call>();
  /** Probes members with a stalled Txn while any Txn is in flight (checkStalledTxns). */
  private stallTimer: NodeJS.Timeout | undefined;
  /** What this client saw of etcd (kv.ts QuorumHealth): sawAnswer() and sawFailure(), from the calls and sessions. */
  private readonly health: QuorumHealth = { answeredAt: 0, failedAt: 0 };

  constructor(opts: EtcdClientOptions) {
    if (!opts.endpoints.length) throw new Error('EtcdKvClient needs at least one endpoint');
    this.timeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.txnTimeoutMs = Math.min(opts.txnTimeoutMs ?? DEFAULT_TXN_TIMEOUT_MS, this.timeoutMs);
    this.dialTimeoutMs = Math.min(opts.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS, this.timeoutMs);
    this.keepaliveIntervalMs = opts.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS;
    this.keepaliveTimeoutMs = opts.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS;
    const tls = {
      ca: opts.caFile ? readFileSync(opts.caFile) : undefined,
      cert: opts.certFile ? readFileSync(opts.certFile) : undefined,
      key: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
    };
    this.endpoints = opts.endpoints.map((e) => {
      const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(e) ? e : `${opts.caFile ? 'https' : 'http'}://${e}`;
      const parsed = new URL(url);
      const secure = parsed.protocol === 'https:';
      const blocks = {} as Record<CallKind, Buffer>;
      for (const kind of Object.keys(PATHS) as CallKind[]) {
        const timeout = kind === 'watch' ? undefined : kind === 'txn' ? this.txnTimeoutMs : kind === 'probe' ? PROBE_TIMEOUT_MS : this.timeoutMs;
        blocks[kind] = requestBlock(parsed, PATHS[kind], timeout);
      }
      return {
        url,
        // A bracketed IPv6 host is connected to without its brackets.
        connect: { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port || (secure ? 443 : 80)), tls: secure ? tls : undefined },
        blocks,
      };
    });
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
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
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
      if (kind === 'txn') {
        call.term = this.terms.get(session) ?? 0;
        call.sentAt = Date.now();
        this.txns.add(call);
        if (this.stallTimer === undefined && this.keepaliveIntervalMs > 0) {
          this.stallTimer = setTimeout(() => this.checkStalledTxns(), STALLED_TXN_MS);
          this.stallTimer.unref();
        }
      }
    });
  }

  /** A Txn's call has settled (answer, failure or deadline). */
  txnSettled(call: Call): void {
    this.txns.delete(call);
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
    let last: H2Session | undefined;
    for (const c of this.txns) {
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
  observeTerm(s: H2Session, term: number): void {
    const known = this.terms.get(s) ?? 0;
    if (term <= known) return;
    this.terms.set(s, term);
    for (const c of this.txns) {
      if (c.session !== s) continue;
      // Sent before any term was known on `s`: this term is the best guess of the one it was sent in.
      if (known === 0) {
        if (c.term === 0) c.term = term;
        continue;
      }
      if (c.term >= term || c.settled) continue;
      c.settled = true;
      if (c.timer !== undefined) clearTimeout(c.timer);
      this.txns.delete(c);
      c.reject(sentError(fromGrpcStatus(GrpcStatus.UNAVAILABLE,
        `etcd elected a new leader (raft term ${c.term} to ${term}) while this write waited; it may have been lost with the old leader`), true));
      c.stream.close(CANCEL);
    }
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
  private dialOne(ep: Endpoint): Promise<H2Session> {
    return new Promise((resolve, reject) => {
      const s = new H2Session(ep.connect);
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
        connected = true;
        ready();
      };
      const onSettings = () => {
        answered = true;
        ready();
      };
      const onClose = () => finish(new Error(s.error ? s.error.message : 'connection closed'));
      const budget = this.dialTimeoutMs;
      // etcd with --client-cert-auth drops a TLS 1.3 client whose certificate it rejects without
      // a word: the handshake looks done and nothing more comes. Say so, as it is the likely cause.
      const hint = ep.connect.tls ? ' (over TLS: is the client certificate, --etcd-certfile, one this etcd trusts?)' : '';
      timer = setTimeout(() => finish(new Error(connected ? `connected, but no answer within ${budget} ms${hint}` : `no connection within ${budget} ms`)), budget);
      // Stays for the session's life: an error ends the dial, or loses the session once adopted.
      s.on('error', () => this.lose(s));
      s.once('connect', onConnect);
      s.on('remoteSettings', onSettings);
      s.once('close', onClose);
    });
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
  private lose(s: H2Session): void {
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
