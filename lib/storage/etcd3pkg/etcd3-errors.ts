/**
 * The etcd3 package's failures as StorageErrors (../errors.ts): a call's error, whether it may
 * have reached etcd (`sent`), a watch stream's error and etcd's cancel of a watch, as the lean
 * client reports them.
 */
import { GrpcStatus, StorageError, fromEtcdError, fromGrpcStatus } from '../errors';
import type { WatchResponse } from '../etcd3/watch-stream';

/**
 * The package's errors as StorageErrors, by etcd's texts and the gRPC class (errors.ts
 * fromEtcdError). A call that found no connection (none could be made, or the member is held out
 * by the breaker) certainly did not reach etcd: `sent` false.
 */
export function storageErrorOf(err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  let e = fromEtcdError(err);
  const text = err instanceof Error ? `${err.constructor.name} ${err.message}` : String(err);
  // Say why, as the lean client does (e.g. "etcdserver: no leader").
  if (e.code === 'Unavailable' && err instanceof Error) e = new StorageError('Unavailable', `${e.message}: ${err.message}`);
  if (e.code === 'Unavailable' && /No connection established|BrokenCircuit|ClientClosed|ECONNREFUSED/i.test(text)) e.sent = false;
  return e;
}

/** Why etcd cancelled a watch: its start revision was compacted, or what cancel_reason says. */
export function cancelError(res: WatchResponse): StorageError {
  if (res.compactRevision > 0) return new StorageError('Compacted', 'mvcc: required revision has been compacted', res.compactRevision);
  return fromGrpcStatus(GrpcStatus.UNKNOWN, `etcd cancelled the watch${res.cancelReason ? `: ${res.cancelReason}` : ''}`);
}

/** A grpc-js stream error (it carries the gRPC code and details) as the lean client reports it. */
export function streamError(err: Error): StorageError {
  const { code, details } = err as Error & { code?: number; details?: string };
  if (typeof code === 'number' && code !== GrpcStatus.OK) {
    const e = fromGrpcStatus(code, details ?? err.message);
    if (e.code !== 'Internal') return e;
  }
  return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `the etcd watch stream was interrupted (${details ?? err.message})`);
}
