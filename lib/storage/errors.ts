/**
 * Infrastructure failures of the store, with stable codes. The response writer translates
 * them into Status objects in one place (api/status-for-error.ts); nothing else inspects etcd errors.
 */

export type StorageErrorCode = 'Unavailable' | 'RequestTooLarge' | 'Compacted' | 'FutureRevision' | 'Timeout' | 'Internal';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  /** For Compacted: the oldest revision still available, when known. */
  readonly compactRevision?: number;
  /**
   * Whether the request may have reached etcd (written to a connection with no definite answer
   * back, e.g. a missed deadline or a connection lost mid-call): then a write may have been
   * applied. false: it certainly was not (no connection, a refused stream, "no leader").
   * Undefined where the client does not tell.
   */
  sent?: boolean;

  constructor(code: StorageErrorCode, message: string, compactRevision?: number) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.compactRevision = compactRevision;
  }
}

export function isStorageError(e: unknown): e is StorageError {
  return e instanceof StorageError;
}

/** etcd's own error texts that have a code of their own, whatever the gRPC status or client said. */
function fromEtcdMessage(message: string): StorageError | undefined {
  if (/request is too large|message larger than max|trying to send message larger/i.test(message)) {
    return new StorageError('RequestTooLarge', 'etcdserver: request is too large');
  }
  if (/required revision has been compacted/.test(message)) return new StorageError('Compacted', 'mvcc: required revision has been compacted');
  if (/required revision is a future revision/.test(message)) return new StorageError('FutureRevision', 'mvcc: required revision is a future revision');
  return undefined;
}

/** Maps an etcd3/gRPC client error onto a StorageError code by etcd's own error texts. */
export function fromEtcdError(err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const name = err instanceof Error ? err.constructor.name : '';
  const known = fromEtcdMessage(message);
  if (known) return known;
  if (/DeadlineExceeded|deadline exceeded|request timed out/i.test(name + message)) {
    return new StorageError('Timeout', 'the storage did not answer in time');
  }
  if (/Unavailable|BrokenCircuit|ECONNREFUSED|No connection established|ClientClosed|Isolated|closed/i.test(name + message)) {
    return new StorageError('Unavailable', 'the storage backend is not reachable');
  }
  return new StorageError('Internal', message);
}

/** The gRPC status codes (grpc/status.proto) the mapping below tells apart. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/**
 * Maps a gRPC status (code and grpc-message) onto a StorageError: etcd's texts first, as
 * fromEtcdError, then the code. Used by the lean KV client (etcd3/kv-client.ts), also for its
 * own transport failures (a lost connection is UNAVAILABLE, a missed deadline DEADLINE_EXCEEDED).
 */
export function fromGrpcStatus(code: number, message: string): StorageError {
  const known = fromEtcdMessage(message);
  if (known) return known;
  // etcd's "etcdserver: request timed out" comes as UNAVAILABLE; it is a timeout all the same.
  if (code === GrpcStatus.DEADLINE_EXCEEDED || /request timed out/.test(message)) {
    return new StorageError('Timeout', 'the storage did not answer in time');
  }
  if (code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.CANCELLED) {
    return new StorageError('Unavailable', `the storage backend is not reachable${message ? `: ${message}` : ''}`);
  }
  return new StorageError('Internal', message || `etcd answered with gRPC status ${code}`);
}
