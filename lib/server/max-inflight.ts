/**
 * The in-flight limits (`--max-requests-inflight`, `--max-mutating-requests-inflight`), as
 * Kubernetes' WithMaxInFlightLimit: placed after authentication and impersonation (the user is
 * known) and before authorization. A request that is not long-running takes a seat of its kind
 * (get, list and watch are read-only; every other verb mutating) for as long as its handler
 * runs; with no seat free it is answered 429 `TooManyRequests`, `Retry-After: 1`, with
 * Kubernetes' sentence, and nothing else runs for it. A limit of 0 is no limit.
 *
 * As kube-apiserver, members of system:masters are served past the limit (they are the
 * operator's way in to a drowning server); `--max-inflight-exempt-masters=false` turns that off.
 * Health probes take no seat (Kubernetes' default priority-and-fairness exempts them too).
 */
import type { Context, Next } from 'koa';
import { parseRequestInfo, RequestInfo } from '../api/request-info';
import type { TurnQueueBound } from './turn-budget';
import { errors } from '../meta/api-errors';
import { SYSTEM_MASTERS, UserInfo } from '../meta/user';
import { isHealthProbe, isLongRunning } from './long-running';
import type { TerminationMetrics } from '../api/metrics/termination-metrics';

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';
export const RETRY_AFTER_SECONDS = 1;

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export interface MaxInflightOptions {
  /** Read-only requests at once; 0: unlimited. */
  readOnlyLimit: number;
  /** Mutating requests at once; 0: unlimited. */
  mutatingLimit: number;
  /** system:masters is served past the limits (Kubernetes' behaviour). */
  exemptMasters: boolean;
  terminations?: TerminationMetrics;
}

/** The seats taken now, [readOnly, mutating] (tests and the load benchmark read them). */
export interface InflightCounts { readOnly: number; mutating: number }

export function maxInflight(opts: MaxInflightOptions): ((ctx: Context, next: Next) => Promise<void>) & { counts(): InflightCounts } {
  const used = [0, 0];
  const limits = [opts.readOnlyLimit, opts.mutatingLimit];
  const release = (kind: number) => () => { used[kind]--; };
  const middleware = (ctx: Context, next: Next): Promise<void> => {
    const info = ctx.state.requestInfo as RequestInfo;
    if (isLongRunning(info) || isHealthProbe(info)) return next();
    const kind = READ_ONLY_VERBS.has(info.verb) ? 0 : 1;
    const limit = limits[kind];
    if (limit === 0) return next();
    if (used[kind] >= limit) {
      const user = ctx.state.user as UserInfo | undefined;
      if (!(opts.exemptMasters && user?.groups.includes(SYSTEM_MASTERS))) {
        opts.terminations?.record(ctx.method, info, ctx.get('content-type'), 429);
        return Promise.reject(errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, RETRY_AFTER_SECONDS));
      }
      // Served past the limit, as kube-apiserver serves its masters: no seat is taken.
      return next();
    }
    used[kind]++;
    let p: Promise<void>;
    try {
      p = next();
    } catch (err) {
      used[kind]--;
      throw err;
    }
    const done = release(kind);
    return p.then(done, (err) => { done(); throw err; });
  };
  return Object.assign(middleware, { counts: () => ({ readOnly: used[0], mutating: used[1] }) });
}

/**
 * The bound of the turn-budget queue (turn-budget.ts) that goes with the in-flight limits: as
 * many waiting requests as the two limits together unless `limit` says otherwise (none when either is unlimited). Beyond it a
 * request is answered 429 before it is parsed further; long-running requests still wait their
 * turn, and health probes skip the queue (a load balancer's checks are answered under load).
 */
export function turnQueueBound(readOnlyLimit: number, mutatingLimit: number, limit = readOnlyLimit + mutatingLimit): TurnQueueBound<IncomingRequest, OutgoingResponse> | undefined {
  if (readOnlyLimit === 0 || mutatingLimit === 0) return undefined;
  const body = JSON.stringify(errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, RETRY_AFTER_SECONDS).toStatus());
  const infoOf = (req: IncomingRequest): RequestInfo | undefined => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    try {
      return parseRequestInfo(req.method ?? 'GET', q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1));
    } catch {
      return undefined;
    }
  };
  return {
    limit,
    exempt(req) {
      const info = infoOf(req);
      return info !== undefined && isLongRunning(info);
    },
    urgent(req) {
      // Cheap to tell: only paths under the three probe roots are parsed.
      const url = req.url ?? '';
      if (!(url.startsWith('/healthz') || url.startsWith('/livez') || url.startsWith('/readyz'))) return false;
      const info = infoOf(req);
      return info !== undefined && isHealthProbe(info);
    },
    refuse(_req, res) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS), 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    },
  };
}

interface IncomingRequest { method?: string; url?: string }
interface OutgoingResponse { writeHead(code: number, headers: Record<string, string>): unknown; end(body: string): unknown }
