/**
 * The priority-and-fairness filter (kube-apiserver 1.32's WithPriorityAndFairness), in the handler
 * chain where the in-flight limits stand (after authentication and impersonation, before
 * authorization). Every request but the long-running non-watch ones (exec, attach, proxy, ...) is
 * classified and answered with the `X-Kubernetes-PF-FlowSchema-UID` and
 * `X-Kubernetes-PF-PriorityLevel-UID` headers; an exempt level runs it at once; a limited level
 * runs it when its queue set dispatches it, holding its seats until the handler returns (for a
 * watch: once its initial events are sent and the stream has started), or answers 429
 * `Too many requests, please try again later.` with a Retry-After: at once (queue full, Reject
 * level full) or after waiting a quarter of the request timeout (at most a minute), as kube.
 */
import type { Context, Next } from 'koa';
import { performance } from 'node:perf_hooks';
import type { RequestInfo } from '../api/request-info';
import { errors } from '../meta/api-errors';
import type { UserInfo } from '../meta/user';
import type { TerminationMetrics } from '../api/metrics/termination-metrics';
import type { Dispatcher } from './dispatcher';
import type { FlowControlMetrics, FlowRecorder, RejectReason } from './metrics';
import type { Ticket, WaitingRequest } from './queueset';
import { Counts, estimateWork, ONE_SEAT, workReadsCounts } from './seats';
import { DroppedRequestsTracker } from './retry-after';
import type { RequestDigest } from './types';

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';
export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';
/** The same names in lower case, as the response keeps them (setHeader makes no copy of them). */
const FLOW_SCHEMA_UID_FIELD = 'x-kubernetes-pf-flowschema-uid';
const PRIORITY_LEVEL_UID_FIELD = 'x-kubernetes-pf-prioritylevel-uid';

export interface FilterOptions {
  dispatcher: Dispatcher;
  /** Long-running requests (watch included; the filter tells watches apart itself). */
  isLongRunning(info: RequestInfo): boolean;
  /** A served group's name in Kubernetes' spelling, when the flavor spells it otherwise. */
  groupAlias?(group: string): string | undefined;
  /** Health probes: classified, but never queued and no seat taken (as the plain in-flight limits). */
  isHealthProbe(info: RequestInfo): boolean;
  /** The stored-object and watcher counts of a request's resource (seats). */
  counts(info: RequestInfo): Counts;
  /** How long a request may wait in its queue (kube: a quarter of --request-timeout, at most 1m). */
  waitLimitMs: number;
  metrics?: FlowControlMetrics;
  terminations?: TerminationMetrics;
}

export function priorityAndFairness(opts: FilterOptions): (ctx: Context, next: Next) => Promise<void> {
  const { dispatcher, metrics } = opts;
  const dropped = new DroppedRequestsTracker();

  const reject = (ctx: Context, info: RequestInfo, level: string, flow: FlowRecorder | undefined, reason: RejectReason): Promise<void> => {
    flow?.rejected(reason);
    dropped.record(level);
    opts.terminations?.record(ctx.method, info, ctx.get('content-type'), 429);
    return Promise.reject(errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, dropped.retryAfter(level)));
  };

  /**
   * Runs the rest of the chain and calls `release` once it has settled, however it ends: one
   * promise of its own per request and no async function's (the path a request takes when its
   * seats are free, or its level exempt).
   */
  const run = (next: Next, release: () => void): Promise<void> => {
    let p: Promise<void>;
    try {
      p = next();
    } catch (err) {
      release();
      throw err;
    }
    return p.then(release, (err) => { release(); throw err; });
  };

  return (ctx: Context, next: Next): Promise<void> => {
    const info = ctx.state.requestInfo as RequestInfo;
    const isWatch = info.verb === 'watch';
    if (!isWatch && opts.isLongRunning(info)) return next();
    const user = ctx.state.user as UserInfo | undefined;
    const digest: RequestDigest = {
      user: user ?? { name: '', groups: [] }, isResourceRequest: info.isResourceRequest, verb: info.verb,
      apiGroup: info.group, apiGroupAlias: opts.groupAlias?.(info.group), resource: info.resource, subresource: info.subresource, namespace: info.namespace, path: info.path,
    };
    const c = dispatcher.classify(digest);
    const level = c.level;
    // Straight on the response (nothing is sent yet): koa's ctx.set only adds checks for arrays and non-strings.
    ctx.res.setHeader(FLOW_SCHEMA_UID_FIELD, c.flowSchema.metadata.uid ?? '');
    ctx.res.setHeader(PRIORITY_LEVEL_UID_FIELD, level.pl.metadata.uid ?? '');
    const type = isWatch ? 'watch' : 'regular';
    let flow: FlowRecorder | undefined;
    if (metrics) {
      const recorders = c.recorders ??= {};
      flow = recorders[type] ??= metrics.flow(level.name, c.flowSchema.metadata.name, type);
    }

    if (level.exempt || !level.queues || opts.isHealthProbe(info)) {
      flow?.dispatched.inc();
      flow?.executing.inc();
      flow?.seats.inc();
      level.integrator.set(++level.exemptSeats);
      const started = performance.now();
      return run(next, () => {
        level.integrator.set(--level.exemptSeats);
        if (!flow) return;
        flow.executing.dec();
        flow.seats.dec();
        flow.execution.observe((performance.now() - started) / 1000);
      });
    }

    // Only lists, watches and writes are estimated (gets and non-resource requests take one seat);
    // the query is parsed only for the lists and watches whose seats depend on it.
    const querystring = ctx.querystring;
    const work = info.isResourceRequest && workReadsCounts(info.verb)
      ? estimateWork({ verb: info.verb, isResourceRequest: true, resource: info.resource, name: info.name ?? info.listName, get query() { return new URLSearchParams(querystring); } },
        opts.counts(info), level.maxSeats)
      : ONE_SEAT;
    flow?.estimatedSeats.observe(Math.max(work.initialSeats, work.finalSeats));
    const arrived = performance.now();
    let settleLater: ((o: Ticket | RejectReason) => void) | undefined;
    const outcome = level.queues.start(work, c.flowKey, c.flowHash, (o) => settleLater?.(o));
    if (typeof outcome === 'string') {
      flow?.waitRejected.observe(0);
      return reject(ctx, info, level.name, flow, outcome);
    }
    const execute = (ticket: Ticket, started: number): Promise<void> => {
      flow?.waitExecuted.observe((started - arrived) / 1000);
      flow?.dispatched.inc();
      flow?.executing.inc();
      flow?.seats.inc(work.initialSeats);
      return run(next, () => {
        ticket.finish();
        if (!flow) return;
        flow.executing.dec();
        flow.seats.dec(work.initialSeats);
        flow.execution.observe((performance.now() - started) / 1000);
      });
    };
    // Seats free: run at once. Else wait in the queue.
    if ('finish' in outcome) return execute(outcome, arrived);
    const waiting: WaitingRequest = outcome;
    const queues = level.queues;
    flow?.queueLength.observe(queues.queueLength(waiting));
    flow?.inqueue.inc();
    return new Promise<Ticket | RejectReason>((resolve) => {
      const done = (o: Ticket | RejectReason) => { clearTimeout(timer); ctx.req.off('close', onClose); resolve(o); };
      const timer = setTimeout(() => { if (queues.cancel(waiting)) done('time-out'); }, opts.waitLimitMs);
      const onClose = () => { if (queues.cancel(waiting)) done('cancelled'); };
      ctx.req.once('close', onClose);
      settleLater = done;
    }).then((result) => {
      flow?.inqueue.dec();
      if (typeof result !== 'string') return execute(result, performance.now());
      flow?.waitRejected.observe((performance.now() - arrived) / 1000);
      return reject(ctx, info, level.name, flow, result);
    });
  };
}
