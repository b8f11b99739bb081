/**
 * `--request-timeout`: a request that is not long-running (long-running.ts) and has not answered
 * within the limit is answered 504 `Timeout: request did not complete within the allotted
 * timeout` (Kubernetes' WithTimeoutForNonLongRunningRequests), with `Retry-After: 1`.
 *
 * The handler is not stopped (as in Kubernetes, a write may still land): whatever it writes
 * later is dropped (the response has ended; streamed writers check `answeredAlready`), and its
 * late outcome is logged. `ctx.state.deadline` (a RequestDeadline, lib/api/request-deadline.ts)
 * tells work that can stop (reading the request body) that the time is up.
 *
 * A client may ask for less with the `timeout` query parameter (a Go duration, as client-go and
 * kubectl --request-timeout send it); more than the server's limit, or 0, means the server's.
 * A response whose head is already out (a large list being streamed) is let finish.
 */
import type { Context, Next } from 'koa';
import type { RequestInfo } from '../api/request-info';
import { errors } from '../meta/api-errors';
import { writeError } from '../api/response-writer';
import { RequestDeadline } from '../api/request-deadline';
import { parseDuration } from './flags';
import { isLongRunning } from './long-running';
import { logger } from '../logger';
import type { TerminationMetrics } from '../api/metrics/termination-metrics';

export const TIMEOUT_MESSAGE = 'Timeout: request did not complete within the allotted timeout';

export interface RequestTimeoutOptions {
  /** The server's limit (--request-timeout); 0: none. */
  timeoutMs: number;
  terminations?: TerminationMetrics;
}

/** True once the request timeout has answered for this request: write nothing more. */
export function answeredAlready(ctx: Context): boolean {
  return ctx.state.timedOut === true || ctx.res.writableEnded;
}

/** The client's `timeout` parameter in ms (0 when absent); 400 as kube-apiserver when it is not a duration. */
function askedTimeoutMs(query: string): number {
  if (!query.includes('timeout=')) return 0;
  const value = new URLSearchParams(query).get('timeout');
  if (!value) return 0;
  try {
    return parseDuration(value);
  } catch (err) {
    throw errors.badRequest(`invalid timeout specified in the request URL: time: ${(err as Error).message}`);
  }
}

export function requestTimeout(opts: RequestTimeoutOptions): (ctx: Context, next: Next) => Promise<void> {
  return (ctx: Context, next: Next): Promise<void> => {
    const info = ctx.state.requestInfo as RequestInfo;
    if (isLongRunning(info)) return next();
    const asked = askedTimeoutMs(ctx.querystring);
    const limit = asked > 0 && (asked < opts.timeoutMs || opts.timeoutMs === 0) ? asked : opts.timeoutMs;
    if (limit <= 0) return next();
    const deadline = new RequestDeadline();
    ctx.state.deadline = deadline;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A streamed answer already under way is let finish: its head is out, a 504 cannot follow.
        if (ctx.res.headersSent || ctx.res.writableEnded) return;
        ctx.state.timedOut = true;
        deadline.expire();
        opts.terminations?.record(ctx.method, info, ctx.get('content-type'), 504);
        answerNow(ctx);
        resolve();
      }, limit);
      const started = Date.now();
      next().then(() => {
        clearTimeout(timer);
        if (!deadline.expired) resolve();
        else logLate(ctx, started, undefined);
      }, (err: unknown) => {
        clearTimeout(timer);
        if (!deadline.expired) reject(err);
        else logLate(ctx, started, err);
      });
    });
  };
}

/**
 * Writes the 504 Status now and ends the response, so that nothing the handler does later can
 * change it (Koa's own respond step is turned off for this request).
 */
function answerNow(ctx: Context): void {
  writeError(ctx, errors.timeout(TIMEOUT_MESSAGE, 1));
  const body = ctx.body as string | Buffer;
  ctx.respond = false;
  ctx.res.statusCode = 504;
  ctx.res.setHeader('Content-Length', Buffer.byteLength(body));
  ctx.res.end(body);
}

function logLate(ctx: Context, started: number, err: unknown): void {
  logger.info('request finished after its timeout answered', {
    verb: (ctx.state.requestInfo as RequestInfo | undefined)?.verb, path: ctx.path,
    outcome: err === undefined ? 'completed' : (err as { code?: number }).code ?? 'failed',
    afterMs: Date.now() - started,
  });
}
