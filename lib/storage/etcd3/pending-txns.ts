/**
 * The etcd client's Txns in flight, on whichever session: a Txn waiting over STALLED_TXN_MS gets
 * its member probed, and when an answer shows a session's raft term rose (an election), the Txns
 * sent on it before, still waiting, fail at once as sent. What it needs of the client it names
 * (PendingTxnsHost).
 */
import { GrpcStatus, fromGrpcStatus } from '../errors';
import { CANCEL } from '../../http2/frames';
import type { H2Session } from '../../http2/client-session';
import { sentError } from './grpc-failure';
import type { Call } from './unary-call';

/**
 * A Txn unanswered this long has its member probed (checkAlive), at most once per this period
 * while it waits: a normal write takes milliseconds, and the probe's answer tells whether the
 * member still runs and whether its raft term rose (see PendingTxns.observeTerm).
 */
export const STALLED_TXN_MS = 250;

/** What the Txns in flight need of the client (EtcdKvClient implements it). */
export interface PendingTxnsHost {
  /** Probes the session's member now (a Txn on it stalled). */
  checkAlive(session: H2Session): void;
}

export class PendingTxns {
  /** The highest raft term seen in an answer on each session (observeTerm). */
  private readonly terms = new WeakMap<H2Session, number>();
  /** Txns in flight, on whichever session. */
  private readonly txns = new Set<Call>();
  /** Probes members with a stalled Txn while any Txn is in flight (checkStalledTxns). */
  private stallTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** `probing`: whether stalled Txns get their member probed (the client's keepalive is on). */
  constructor(private readonly host: PendingTxnsHost, private readonly probing: boolean) {}

  /** `call`, a Txn, was just sent on `session`. */
  sent(call: Call, session: H2Session): void {
    call.term = this.terms.get(session) ?? 0;
    call.sentAt = Date.now();
    this.txns.add(call);
    if (this.stallTimer === undefined && this.probing) {
      this.stallTimer = setTimeout(() => this.checkStalledTxns(), STALLED_TXN_MS);
      this.stallTimer.unref();
    }
  }

  /** A Txn's call has settled (answer, failure or deadline). */
  txnSettled(call: Call): void {
    this.txns.delete(call);
  }

  /** The client is closed: no more probes. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  /**
   * Every STALLED_TXN_MS while Txns are in flight: the member of each Txn waiting longer than that
   * is probed (once per period; checkAlive skips a session with a probe in flight). A hung member
   * is then left within the probe's timeout, and a new raft term is seen within a period.
   */
  private checkStalledTxns(): void {
    this.stallTimer = undefined;
    if (this.txns.size === 0 || this.stopped) return;
    const stalledBefore = Date.now() - STALLED_TXN_MS;
    let last: H2Session | undefined;
    for (const c of this.txns) {
      if (c.sentAt <= stalledBefore && c.session !== last) {
        last = c.session;
        this.host.checkAlive(c.session);
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
}
