/**
 * The one place responses are written, and the one place any error becomes a Status body.
 */
import type { Context } from 'koa';
import { ApiError, errors, isApiError } from '../meta/api-errors';
import { isStorageError, StorageError } from '../storage/errors';
import { encodeBody, negotiateResponse, Negotiated } from './negotiation';
import { logger } from '../server/logger';

/** Writes an object in the representation the client asked for. */
export function writeObject(ctx: Context, code: number, obj: unknown, negotiated?: Negotiated): void {
  const n = negotiated ?? negotiateResponse(ctx.get('accept'));
  ctx.status = code;
  ctx.type = n.mediaType;
  ctx.body = encodeBody(obj, n.format, ctx.query.pretty !== undefined && ctx.query.pretty !== 'false');
}

/** Storage failures as Status, in etcd-agnostic words (no keys or values leak). */
export function statusForStorageError(err: StorageError): ApiError {
  switch (err.code) {
    case 'Unavailable': return errors.serviceUnavailable('storage is unavailable: etcd cannot be reached; retry later');
    case 'Timeout': return errors.timeout('the storage did not answer in time; retry later', 1);
    case 'RequestTooLarge': return errors.tooLarge('Request entity too large: the object is larger than the storage accepts (etcdserver: request is too large)');
    case 'Compacted': return errors.expired('The resourceVersion for the provided request is too old.');
    case 'FutureRevision': return errors.timeout('Too large resource version', 1);
    default: return errors.internal(err.message);
  }
}

/** Any thrown value as the ApiError the client sees. */
export function toApiError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  if (isStorageError(err)) return statusForStorageError(err);
  return errors.internal('an unexpected error occurred; see the server log');
}

/** Writes `err` as a Status (JSON unless YAML was asked for). */
export function writeError(ctx: Context, err: unknown): void {
  const e = toApiError(err);
  if (isStorageError(err)) {
    // An etcd outage is an operational condition, not a bug: one line, no stack.
    logger.warn('storage error', { path: ctx.path, code: err.code });
  } else if (e.code >= 500 && !isApiError(err)) {
    logger.error('request failed', { path: ctx.path, error: err instanceof Error ? err.stack : String(err) });
  }
  for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
  let negotiated: Negotiated;
  try {
    negotiated = negotiateResponse(ctx.get('accept'));
  } catch {
    negotiated = { format: 'json', mediaType: 'application/json' };
  }
  writeObject(ctx, e.code, e.toStatus(), negotiated);
}
