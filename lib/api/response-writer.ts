/**
 * The one place responses are written, and the one place any error becomes a Status body.
 */
import type { Context } from 'koa';
import { ApiError, errors, isApiError } from '../meta/api-errors';
import { isStorageError, StorageError } from '../storage/errors';
import { encodeBody, negotiateResponse, Negotiated } from './negotiation';
import { logger } from '../logger';
import { joinJson, storedFormOf } from '../storage/storage-codec';
import { setContentType } from './response-head';

/**
 * Writes `obj` in the negotiated encoding (negotiated here when not given). It does not transform:
 * a Table or PartialObjectMetadata is built by the caller (represent.ts); writes answer the object.
 */
export function writeObject(ctx: Context, code: number, obj: unknown, negotiated?: Negotiated): void {
  const n = negotiated ?? negotiateResponse(ctx.get('accept'), 'object', typeof obj === 'object' && obj !== null ? obj : undefined);
  ctx.status = code;
  setContentType(ctx, n.mediaType);
  // The audit event's responseStatus / responseObject (lib/audit/filter.ts), only when audited.
  if (ctx.state.auditCapture) ctx.state.auditResponseObject = obj;
  // An object just written (or read) as stored: its stored bytes are the compact JSON answer.
  const stored = wantsCompactJson(ctx, n) ? storedFormOf(obj) : undefined;
  ctx.body = stored ? joinJson('', [stored], '\n') : encodeBody(obj, n, wantsPretty(ctx, n));
}

/** The answer is the object itself as compact JSON: what stored JSON bytes can be served as. */
export function wantsCompactJson(ctx: Context, n: Negotiated): boolean {
  return n.format === 'json' && n.encoding === 'json' && !wantsPretty(ctx, n);
}

/**
 * Kubernetes' rule for indented JSON: `pretty=1` on the Accept entry, else the `pretty` query
 * parameter as a Go bool (`true`, `1`, ...; anything else is false), else when absent or empty
 * a curl, Wget or browser User-Agent.
 */
export function wantsPretty(ctx: Context, n: Negotiated): boolean {
  if (n.pretty) return true;
  const qs = ctx.querystring;
  const pretty = qs.includes('pretty') ? new URLSearchParams(qs).get('pretty') : null;
  if (pretty) return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(pretty);
  return /^(curl|Wget|Mozilla\/5\.0)/.test(ctx.get('user-agent'));
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
  // A stack overflow comes from input nested past what a path can walk (the decode limits of
  // decode-limits.ts should have refused it first): the request's fault, answered 400, logged as a bug.
  if (isStackOverflow(err)) return errors.badRequest('the request is nested too deeply to be handled: exceeded max depth');
  return errors.internal('an unexpected error occurred; see the server log');
}

/** V8's "Maximum call stack size exceeded". */
export function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && err.message === 'Maximum call stack size exceeded';
}

/** Writes `err` as a Status (JSON unless YAML was asked for). */
export function writeError(ctx: Context, err: unknown): void {
  const e = toApiError(err);
  if (isStorageError(err)) {
    // An etcd outage is an operational condition, not a bug: one line, no stack.
    logger.warn('storage error', { path: ctx.path, code: err.code });
  } else if ((err as { clientGone?: boolean } | undefined)?.clientGone) {
    // The client went away (or broke its framing) before its body ended: no answer reaches it, and no bug to report.
    logger.info('request abandoned by the client before its body ended', { path: ctx.path });
  } else if (isStackOverflow(err)) {
    logger.error('bug: a request overflowed the stack past the decode limits (answered 400)', { path: ctx.path, error: (err as Error).stack });
  } else if (e.code >= 500 && !isApiError(err)) {
    logger.error('request failed', { path: ctx.path, error: err instanceof Error ? err.stack : String(err) });
  }
  for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
  let negotiated: Negotiated;
  try {
    // A Status is never a Table: Accept entries asking for one are skipped, then JSON.
    negotiated = negotiateResponse(ctx.get('accept'), 'status');
  } catch {
    negotiated = { format: 'json', mediaType: 'application/json', encoding: 'json' };
  }
  writeObject(ctx, e.code, e.toStatus(), negotiated);
}
