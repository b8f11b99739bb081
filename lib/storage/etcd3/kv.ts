/**
 * The narrow etcd interface below the storage layer: what Etcd3Storage (store.ts), the watch
 * path (watcher.ts), the compactor (compactor.ts) and the freshness probe (cacher/etcd3-probe.ts)
 * need from an etcd client, and nothing more. Two clients implement it: the lean one written here
 * (kv-client.ts, the default) and one on the etcd3 npm package (../etcd3pkg/etcd3-kv.ts,
 * `--etcd-client=etcd3`). kv-factory.ts picks one.
 *
 * The contract both keep (test/contract/storage-contract.ts checks it against a real etcd):
 * - Revisions are numbers, keys and values Buffers; messages are those of kv-types.ts and
 *   watch-stream.ts.
 * - Every failure is a StorageError (../errors.ts) with the same code for the same cause:
 *   etcd unreachable or the connection lost: Unavailable; a missed deadline: Timeout; etcd's
 *   "request is too large": RequestTooLarge; a compacted or future revision: Compacted /
 *   FutureRevision.
 * - A request that may have been applied is never repeated inside the client (a Txn is not
 *   idempotent); the storage layer decides (Etcd3Storage's retry of an indeterminate CAS).
 * - A watch resolves once etcd has created it, then delivers every response in order until it
 *   ends with exactly one onError (a compacted start: Compacted with compactRevision; a broken
 *   stream: Unavailable). It is never resumed inside the client: the caller (the cacher's
 *   Reflector) knows the revision it reached and watches again from there. close() ends
 *   deliveries at once, without onError.
 */
import type { CompactResponse, LeaseGrantResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse } from './kv-types';
import type { WatchCreateRequest, WatchStreamHandler } from './watch-stream';

export type { CompactResponse, LeaseGrantResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse, WatchCreateRequest, WatchStreamHandler };

/** An open watch. */
export interface EtcdKvWatch {
  /** Ends deliveries now (no onError afterwards) and lets etcd drop the watcher. */
  close(): Promise<void>;
}

/**
 * What a client saw of etcd, on the Date.now() clock (0: never): the newest Txn answered (a
 * quorum agreed to it, or a read-only one was read linearizably), and the newest failure of the
 * connection (lost, a missed deadline, a member without a leader). Read by the health check.
 */
export interface QuorumHealth { answeredAt: number; failedAt: number }

export interface EtcdKv {
  range(req: RangeRequest): Promise<RangeResponse>;
  txn(req: TxnRequest): Promise<TxnResponse>;
  compact(revision: number, physical?: boolean): Promise<CompactResponse>;
  /** A new lease of `ttlSeconds` (keys put with it are deleted when it expires). */
  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse>;
  /** Resolves once etcd has created the watch; rejects with a StorageError when it cannot. */
  watch(req: WatchCreateRequest, handler: WatchStreamHandler): Promise<EtcdKvWatch>;
  /** No new calls; open watches end, each with one onError Unavailable. */
  close(): Promise<void>;
  /** Optional: what the client saw of etcd (the lean client says; etcd-health.ts probes when it does not). */
  quorumHealth?(): QuorumHealth;
}
