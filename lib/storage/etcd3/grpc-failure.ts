/**
 * How the lean client reads a failed gRPC answer, for its calls (kv-client.ts) and its watches
 * (watch-stream.ts) alike: the status message, an HTTP status that is not gRPC, a lost session,
 * etcd's "no leader", and whether the request may have reached etcd.
 */
import { GrpcStatus, StorageError } from '../errors';
import type { H2Session } from '../../http2/client-session';

/** grpc-message is percent-encoded; a malformed one is shown as it came. */
export function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** HTTP statuses of answers that are not gRPC, as gRPC's spec maps them. */
export function grpcCodeOfHttp(status: number): number {
  switch (status) {
    case 429: case 502: case 503: case 504: return GrpcStatus.UNAVAILABLE;
    case 400: return GrpcStatus.INTERNAL;
    default: return GrpcStatus.UNKNOWN;
  }
}

/** Why a session went away, for messages. */
export function lostReason(s: H2Session): string {
  return s.error?.message ?? 'the connection closed';
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
